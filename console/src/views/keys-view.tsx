import { useState } from 'preact/hooks';
import type { OrgRole } from '../../../src/modules/orgs/domain/org-role';
import { seg } from '../api';
import { useSession } from '../context';
import { check, Choice, ErrorNote, Field, Form, Section, Table, useLoad, when } from '../ui';
import { nameProblem } from '../validate';
import type { ApiKey, IssuedKey, List } from '../wire';

/** The org's API keys: issue (the secret shown this once), list, revoke. */
export function KeysView({ orgId }: { orgId: string }) {
  const { api, powers } = useSession();
  const keys = useLoad(() => api<List<ApiKey>>('GET', `/v1/orgs/${seg(orgId)}/api-keys`), [orgId]);
  const [name, setName] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const revoke = async (key: ApiKey) => {
    setRevokeError(null);
    try {
      await api('DELETE', `/v1/orgs/${seg(orgId)}/api-keys/${seg(key.id)}`);
      keys.reload();
    } catch (err) {
      setRevokeError(err);
    }
  };
  return (
    <>
      <h1>API keys</h1>
      <Section title="Issue a key">
        <Form
          label="Issue a key"
          submitLabel="Issue key"
          submit={async () => {
            check(nameProblem(name));
            setIssued(await api<IssuedKey>('POST', `/v1/orgs/${seg(orgId)}/api-keys`, { name, role }));
            setName('');
            keys.reload();
          }}
        >
          <Field label="Key name" value={name} onInput={setName} />
          <Choice label="Role" value={role} options={powers.keyRoles} onChange={setRole} />
        </Form>
        {issued && <Secret issued={issued} />}
      </Section>
      <Section title="Keys">
        <ErrorNote error={keys.error ?? revokeError} />
        <Table
          caption="Keys of the org"
          head={['Name', 'Role', 'Id', 'Created', 'Revoked', '']}
          rows={(keys.data?.data ?? []).map((key) => [
            key.name,
            key.role,
            <code>{key.id}</code>,
            when(key.created_at),
            when(key.revoked_at),
            key.revoked_at === null && powers.keyRoles.includes(key.role) ? (
              <button type="button" class="danger" aria-label={`Revoke key ${key.name}`} onClick={() => void revoke(key)}>
                Revoke
              </button>
            ) : (
              ''
            ),
          ])}
        />
      </Section>
    </>
  );
}

/** The new key's secret: the only time the API shows it. */
function Secret({ issued }: { issued: IssuedKey }) {
  const [copied, setCopied] = useState<string>('');
  const copy = () =>
    navigator.clipboard.writeText(issued.key).then(
      () => setCopied('Copied.'),
      () => setCopied('Copying was refused: select the key and copy it.'),
    );
  return (
    <div class="secret" role="status">
      <p>
        Key <strong>{issued.name}</strong> ({issued.role}) issued. Its secret is shown this once:
      </p>
      <p>
        <code class="secret-value" data-testid="issued-key">
          {issued.key}
        </code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy key
      </button>{' '}
      <span aria-live="polite">{copied}</span>
    </div>
  );
}
