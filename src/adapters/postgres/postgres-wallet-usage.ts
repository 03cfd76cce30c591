import type { DataSource } from 'typeorm';
import type { UsageTotals, WalletStats } from '../../modules/orgs/domain/wallet-stats';
import { WalletUsage } from '../../modules/orgs/ports/wallet-usage';

interface TotalsRow {
  requests: string;
  spend: string | null;
  tokens: string | null;
}

/** Wallet stats from the spend log: charged requests only (a free or refused request spends nothing). */
export class PostgresWalletUsage extends WalletUsage {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async stats(wallet: string, since: Date): Promise<WalletStats> {
    const where = 'FROM spend_log WHERE payer_wallet = $1 AND created_at >= $2 AND amount_charged_atomic > 0';
    const totals = `count(*) AS requests, sum(amount_charged_atomic) AS spend, sum(tokens_in + tokens_out) AS tokens`;
    const [all, byModel, byDay] = await Promise.all([
      this.dataSource.query(`SELECT ${totals} ${where}`, [wallet, since]) as Promise<TotalsRow[]>,
      this.dataSource.query(`SELECT model, ${totals} ${where} GROUP BY model ORDER BY model`, [wallet, since]) as Promise<Array<TotalsRow & { model: string }>>,
      this.dataSource.query(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, ${totals} ${where} GROUP BY 1 ORDER BY 1`, [wallet, since]) as Promise<
        Array<TotalsRow & { date: string }>
      >,
    ]);
    return {
      ...usage(all[0]),
      byModel: byModel.map((row) => ({ model: row.model, ...usage(row) })),
      byDay: byDay.map((row) => ({ date: row.date, ...usage(row) })),
    };
  }
}

/** int8 sums arrive as strings: money stays bigint, counts fit a number. */
function usage(row: TotalsRow | undefined): UsageTotals {
  return { requests: Number(row?.requests ?? 0), spendAtomic: BigInt(row?.spend ?? 0), tokens: Number(row?.tokens ?? 0) };
}
