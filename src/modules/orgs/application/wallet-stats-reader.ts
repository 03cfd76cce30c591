import { Injectable, Optional } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { statsSince, type WalletStats } from '../domain/wallet-stats';
import { WalletUsage } from '../ports/wallet-usage';
import { OrgDirectory } from './org-directory';

/**
 * Wallet stats (docs/decisions.md, "Wallet stats"): for the admin token, or for a key of an org
 * that has the wallet in one of its teams; any other key gets the 404 of an unknown wallet, so no
 * key learns which wallets other orgs hold.
 */
@Injectable()
export class WalletStatsReader {
  constructor(
    private readonly orgs: OrgDirectory,
    @Optional() private readonly usage?: WalletUsage,
  ) {}

  /** `keyOrg` is the calling key's org; null for the admin token, which reads every wallet. */
  async stats(keyOrg: string | null, wallet: string, days: number, now = new Date()): Promise<WalletStats> {
    if (!this.usage) throw new GatewayError('org.storage_not_configured', 'enterprise routes need storage; GW_STORAGE is none');
    if (keyOrg !== null && !(await this.orgs.hasTeamWallet(keyOrg, wallet))) {
      throw new GatewayError('org.wallet_not_found', 'no team of this org has the wallet');
    }
    return this.usage.stats(wallet, statsSince(days, now));
  }
}
