import type { AuditEntry, Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../domain/org';
import { formatUsdc } from '../../billing/domain/atomic-usdc';
import type { BudgetState } from '../application/budget-directory';
import type { UsageTotals, WalletStats } from '../domain/wallet-stats';
import type { Page } from '../ports/org-store';

/** The enterprise resources as the API shows them (spec 2.11): snake_case, ISO 8601 times. */
export const orgView = (org: Org) => ({ id: org.id, name: org.name, created_at: org.createdAt.toISOString(), updated_at: org.updatedAt.toISOString() });

export const memberView = (member: OrgMember) => ({ wallet_address: member.walletAddress, role: member.role });

export const teamView = (team: Team) => ({ id: team.id, org_id: team.orgId, name: team.name, created_at: team.createdAt.toISOString(), updated_at: team.updatedAt.toISOString() });

export const teamWalletView = (wallet: TeamWallet) => ({ wallet_address: wallet.walletAddress, consented: wallet.consented });

export const keyView = (key: OrgApiKey) => ({
  id: key.id,
  name: key.name,
  role: key.role,
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

export const auditView = (entry: AuditEntry) => ({
  id: entry.id,
  actor: entry.actor.kind === 'admin' ? 'admin' : entry.actor.kind === 'key' ? `key:${entry.actor.keyId}` : `wallet:${entry.actor.wallet}`,
  action: entry.action,
  before: entry.before,
  after: entry.after,
  at: entry.at.toISOString(),
});

/** Lists answer `{object: "list", data, total}`, oldest first. */
export function listView<T, V>(page: Page<T>, view: (item: T) => V): { object: 'list'; data: V[]; total: number } {
  return { object: 'list', data: page.items.map(view), total: page.total };
}

/** Limits as the JSON numbers a client PUTs (null: uncapped); spend as 6-decimal USDC strings. */
export const budgetView = ({ limits, spend }: BudgetState) => ({
  hourly: limits.hourly === null ? null : Number(formatUsdc(limits.hourly)),
  daily: limits.daily === null ? null : Number(formatUsdc(limits.daily)),
  monthly: limits.monthly === null ? null : Number(formatUsdc(limits.monthly)),
  hourly_spend: formatUsdc(spend.hourly),
  daily_spend: formatUsdc(spend.daily),
  monthly_spend: formatUsdc(spend.monthly),
});

const totalsView = ({ requests, spendAtomic, tokens }: UsageTotals) => ({ requests, spend: formatUsdc(spendAtomic), tokens });

/** Wallet stats: spend as 6-decimal USDC strings, days as UTC `YYYY-MM-DD`. */
export const walletStatsView = (stats: WalletStats) => ({
  ...totalsView(stats),
  by_model: stats.byModel.map((group) => ({ model: group.model, ...totalsView(group) })),
  by_day: stats.byDay.map((group) => ({ date: group.date, ...totalsView(group) })),
});
