import type { WalletStats } from '../domain/wallet-stats';

/** Charged requests from the spend log, by payer. */
export abstract class WalletUsage {
  /** Stats of the wallet's charged requests since `since` (by model in model order, by day oldest first). */
  abstract stats(wallet: string, since: Date): Promise<WalletStats>;
}
