import { useState } from 'preact/hooks';
import { joinConsentText } from '../../../src/modules/orgs/domain/consent-texts';
import type { OrgRole } from '../../../src/modules/orgs/domain/org-role';
import { seg } from '../api';
import { useSession } from '../context';
import { check, Choice, ErrorNote, Field, Form, Section, Table, useLoad, when } from '../ui';
import { consentProblem, nameProblem, walletProblem } from '../validate';
import type { List, Member, Org, Team, TeamWallet } from '../wire';

/** The org: its teams, members and team wallets; write forms only for admin and owner. */
export function OrgView({ orgId }: { orgId: string }) {
  const { api, powers } = useSession();
  const org = useLoad(() => api<Org>('GET', `/v1/orgs/${seg(orgId)}`), [orgId]);
  const teams = useLoad(() => api<List<Team>>('GET', `/v1/orgs/${seg(orgId)}/teams`), [orgId]);
  const members = useLoad(() => api<List<Member>>('GET', `/v1/orgs/${seg(orgId)}/members`), [orgId]);
  const [teamName, setTeamName] = useState('');
  const [wallet, setWallet] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  return (
    <>
      <h1>Org {org.data?.name ?? ''}</h1>
      <ErrorNote error={org.error} />
      <p class="muted">
        Id <code>{orgId}</code>
      </p>
      <Section title="Teams">
        <ErrorNote error={teams.error} />
        <Table caption="Teams" head={['Name', 'Id', 'Created']} rows={(teams.data?.data ?? []).map((team) => [team.name, <code>{team.id}</code>, when(team.created_at)])} />
        {powers.manage && (
          <Form
            label="Create a team"
            submitLabel="Create team"
            submit={async () => {
              check(nameProblem(teamName));
              await api('POST', `/v1/orgs/${seg(orgId)}/teams`, { name: teamName });
              setTeamName('');
              teams.reload();
            }}
          >
            <Field label="Team name" value={teamName} onInput={setTeamName} />
          </Form>
        )}
      </Section>
      {(teams.data?.data ?? []).map((team) => (
        <TeamWallets orgId={orgId} team={team} />
      ))}
      <Section title="Members">
        <ErrorNote error={members.error} />
        <Table caption="Members" head={['Wallet', 'Role']} rows={(members.data?.data ?? []).map((member) => [<code>{member.wallet_address}</code>, member.role])} />
        {powers.memberRoles.length > 0 && (
          <Form
            label="Add a member"
            submitLabel="Add member"
            submit={async () => {
              check(walletProblem(wallet));
              await api('POST', `/v1/orgs/${seg(orgId)}/members`, { wallet_address: wallet, role });
              setWallet('');
              members.reload();
            }}
          >
            <Field label="Member wallet" value={wallet} onInput={setWallet} />
            <Choice label="Role" value={role} options={powers.memberRoles} onChange={setRole} />
          </Form>
        )}
      </Section>
    </>
  );
}

/** A team's wallets; adding one takes the wallet's signature of its consent text. */
function TeamWallets({ orgId, team }: { orgId: string; team: Team }) {
  const { api, powers, who } = useSession();
  const wallets = useLoad(() => api<List<TeamWallet>>('GET', `/v1/orgs/${seg(orgId)}/teams/${seg(team.id)}/wallets`), [orgId, team.id]);
  const [wallet, setWallet] = useState('');
  const [signature, setSignature] = useState('');
  return (
    <Section title={`Team ${team.name}: wallets`}>
      <ErrorNote error={wallets.error} />
      <Table
        caption={`Wallets of team ${team.name}`}
        head={['Wallet', 'Consented']}
        rows={(wallets.data?.data ?? []).map((entry) => [<code>{entry.wallet_address}</code>, entry.consented ? 'yes' : 'no'])}
      />
      {powers.manage && (
        <Form
          label={`Add a wallet to team ${team.name}`}
          submitLabel="Add wallet"
          submit={async () => {
            check(walletProblem(wallet));
            check(who.kind === 'org_key' && signature === '' ? 'an org key adds a wallet only with its consent signature' : consentProblem(signature));
            await api('POST', `/v1/orgs/${seg(orgId)}/teams/${seg(team.id)}/wallets`, { wallet_address: wallet, ...(signature ? { consent_signature: signature } : {}) });
            setWallet('');
            setSignature('');
            wallets.reload();
          }}
        >
          <Field label="Wallet address" value={wallet} onInput={setWallet} />
          <Field
            label="Consent signature (base64)"
            value={signature}
            onInput={setSignature}
            hint={`The wallet signs: ${joinConsentText(orgId, team.id, wallet || '<wallet>')}${who.kind === 'admin' ? ' (the admin token may leave it out)' : ''}`}
          />
        </Form>
      )}
    </Section>
  );
}
