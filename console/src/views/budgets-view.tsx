import { useState } from 'preact/hooks';
import { BUDGET_WINDOWS } from '../../../src/modules/orgs/domain/budget';
import { seg } from '../api';
import { SpendBar } from '../charts';
import { useSession } from '../context';
import { check, ErrorNote, Field, Form, Section, useLoad } from '../ui';
import { limitProblem, walletProblem } from '../validate';
import type { Budget, List, Team } from '../wire';

const WINDOW_NAMES = { hourly: 'hour', daily: 'day', monthly: 'month' } as const;

/** Team budgets of the org (admin and owner) and, for the admin token, a wallet's own budget. */
export function BudgetsView({ orgId }: { orgId: string | null }) {
  const { api, powers } = useSession();
  const teams = useLoad(async () => (orgId === null ? null : api<List<Team>>('GET', `/v1/orgs/${seg(orgId)}/teams`)), [orgId]);
  const [wallet, setWallet] = useState('');
  const [shownWallet, setShownWallet] = useState<string | null>(null);
  return (
    <>
      <h1>Budgets</h1>
      <ErrorNote error={teams.error} />
      {orgId !== null &&
        (teams.data?.data ?? []).map((team) => (
          <Section title={`Team ${team.name}`}>
            <BudgetPanel path={`/v1/orgs/${seg(orgId)}/teams/${seg(team.id)}/budget`} label={`team ${team.name}`} />
          </Section>
        ))}
      {orgId !== null && teams.data?.data.length === 0 && <p>The org has no teams yet.</p>}
      {powers.operator && (
        <Section title="A wallet's own budget">
          <Form
            label="Show a wallet's budget"
            submitLabel="Show budget"
            submit={async () => {
              check(walletProblem(wallet));
              setShownWallet(wallet);
            }}
          >
            <Field label="Payer wallet" value={wallet} onInput={setWallet} />
          </Form>
          {shownWallet && <BudgetPanel path={`/v1/wallets/${seg(shownWallet)}/budget`} label={`wallet ${shownWallet}`} />}
        </Section>
      )}
    </>
  );
}

/** Bars of spend against each window's limit, and the form that replaces all three limits. */
function BudgetPanel({ path, label }: { path: string; label: string }) {
  const { api } = useSession();
  const budget = useLoad(() => api<Budget>('GET', path), [path]);
  const [limits, setLimits] = useState<Record<string, string> | null>(null);
  const shown = limits ?? Object.fromEntries(BUDGET_WINDOWS.map((window) => [window, budget.data?.[window]?.toString() ?? '']));
  return (
    <>
      <ErrorNote error={budget.error} />
      {budget.data && (
        <div class="bars" aria-label={`Spend of ${label}`}>
          {BUDGET_WINDOWS.map((window) => (
            <SpendBar window={WINDOW_NAMES[window]} spend={budget.data![`${window}_spend`]} limit={budget.data![window]} />
          ))}
        </div>
      )}
      <Form
        label={`Set the budget of ${label}`}
        submitLabel="Save budget"
        submit={async () => {
          for (const window of BUDGET_WINDOWS) check(limitProblem(shown[window]));
          // A PUT replaces all three limits: a blank window is left out, so uncapped.
          const body = Object.fromEntries(BUDGET_WINDOWS.filter((window) => shown[window].trim() !== '').map((window) => [window, Number(shown[window].trim())]));
          await api('PUT', path, body);
          setLimits(null);
          budget.reload();
        }}
      >
        <div class="row">
          {BUDGET_WINDOWS.map((window) => (
            <Field label={`${window} limit (USDC)`} value={shown[window]} onInput={(value) => setLimits({ ...shown, [window]: value })} hint="blank: uncapped" />
          ))}
        </div>
      </Form>
    </>
  );
}
