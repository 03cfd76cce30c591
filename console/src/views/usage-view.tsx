import { useState } from 'preact/hooks';
import { STATS_DAYS } from '../../../src/modules/orgs/domain/wallet-stats';
import { seg } from '../api';
import { DayChart } from '../charts';
import { useSession } from '../context';
import { check, ErrorNote, Field, Form, Section, Table, useLoad } from '../ui';
import { daysProblem, walletProblem } from '../validate';
import type { List, Team, TeamWallet, Usage, WalletStats } from '../wire';

/** A wallet's charged requests (GET /v1/wallets/{wallet}/stats): spend and requests per day, and by model. */
export function UsageView({ orgId }: { orgId: string | null }) {
  const { api } = useSession();
  const known = useLoad(async () => (orgId === null ? [] : teamWallets(orgId)), [orgId]);
  const [wallet, setWallet] = useState('');
  const [days, setDays] = useState(String(STATS_DAYS.default));
  const [query, setQuery] = useState<{ wallet: string; days: number } | null>(null);

  async function teamWallets(id: string): Promise<string[]> {
    const teams = await api<List<Team>>('GET', `/v1/orgs/${seg(id)}/teams`);
    const lists = await Promise.all(teams.data.map((team) => api<List<TeamWallet>>('GET', `/v1/orgs/${seg(id)}/teams/${seg(team.id)}/wallets`)));
    return [...new Set(lists.flatMap((list) => list.data.map((entry) => entry.wallet_address)))];
  }

  return (
    <>
      <h1>Usage</h1>
      <Section title="Wallet">
        <ErrorNote error={known.error} />
        <Form
          label="Show a wallet's usage"
          submitLabel="Show usage"
          submit={async () => {
            check(walletProblem(wallet));
            check(daysProblem(Number(days)));
            setQuery({ wallet, days: Number(days) });
          }}
        >
          <Field label="Wallet address" value={wallet} onInput={setWallet} hint={known.data?.length ? 'or pick one of the team wallets below' : undefined} />
          <Field label="Days" type="number" value={days} onInput={setDays} />
        </Form>
        {(known.data ?? []).length > 0 && (
          <ul class="picks" aria-label="Team wallets">
            {known.data!.map((address) => (
              <li>
                <button type="button" class="link" onClick={() => setWallet(address)}>
                  {address}
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>
      {query && <Stats wallet={query.wallet} days={query.days} />}
    </>
  );
}

/** The last `days` UTC dates, today last: the days the stats cover, those without requests included. */
function lastDays(days: number): string[] {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: days }, (_, index) => new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10));
}

function Stats({ wallet, days }: { wallet: string; days: number }) {
  const { api } = useSession();
  const stats = useLoad(() => api<WalletStats>('GET', `/v1/wallets/${seg(wallet)}/stats?days=${days}`), [wallet, days]);
  const s = stats.data;
  const byDate = new Map((s?.by_day ?? []).map((day) => [day.date, day]));
  const perDay = (value: (day: Usage) => number) => lastDays(days).map((date) => ({ date, value: byDate.has(date) ? value(byDate.get(date)!) : 0 }));
  return (
    <Section title={`Usage of ${wallet}, last ${days} days`}>
      <ErrorNote error={stats.error} />
      {s && (
        <>
          <p class="totals" data-testid="usage-totals">
            {s.requests} {s.requests === 1 ? 'request' : 'requests'}, {s.spend} USDC, {s.tokens} tokens
          </p>
          <div class="charts">
            <DayChart title="Spend per day (USDC)" unit="USDC" days={perDay((day) => Number(day.spend))} />
            <DayChart title="Requests per day" unit="requests" days={perDay((day) => day.requests)} />
          </div>
          <Table caption="By day" head={['Day', 'Requests', 'Spend (USDC)', 'Tokens']} rows={s.by_day.map((day) => [day.date, day.requests, day.spend, day.tokens])} />
          <Table caption="By model" head={['Model', 'Requests', 'Spend (USDC)', 'Tokens']} rows={s.by_model.map((model) => [model.model, model.requests, model.spend, model.tokens])} />
        </>
      )}
    </Section>
  );
}
