import { Injectable, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { AppLogger } from '../../../logging/app-logger';
import { paymentErrors } from '../domain/payment-errors';
import { ChannelChain } from '../ports/channel-chain';
import { ChannelLedger } from '../ports/channel-ledger';
import { ChannelLocks } from '../ports/channel-locks';
import { ReceiptStore } from '../ports/receipt-store';

/** What a running channel system is made of. */
export interface ChannelParts {
  chain: ChannelChain;
  ledger: ChannelLedger;
  locks: ChannelLocks;
  receipts: ReceiptStore;
}

/**
 * Whether channels are on (docs/decisions.md, "Channels"): a custody key, a database, Redis
 * and custody's USDC token account, checked at start (one log line names what is missing). A
 * start whose custody key is not the one of channels still open is refused: their funds sit with
 * the other key, and only it can close them.
 */
@Injectable()
export class ChannelAvailability implements OnApplicationBootstrap {
  private parts: ChannelParts | null = null;
  private checked: Promise<void> | null = null;

  constructor(
    private readonly logger: AppLogger,
    @Optional() private readonly chain?: ChannelChain,
    @Optional() private readonly ledger?: ChannelLedger,
    @Optional() private readonly locks?: ChannelLocks,
    @Optional() private readonly receipts?: ReceiptStore,
  ) {
    logger.setContext(ChannelAvailability.name);
  }

  get enabled(): boolean {
    return this.parts !== null;
  }

  /** The running parts, or 404 `payment.channel_unavailable`. */
  require(): ChannelParts {
    if (!this.parts) throw paymentErrors.channelUnavailable();
    return this.parts;
  }

  onApplicationBootstrap(): Promise<void> {
    return this.check();
  }

  /** The start-up check, once: whoever needs its verdict first (this, or ChannelWorker's start) runs it, the other waits for it. */
  check(): Promise<void> {
    this.checked ??= this.decide();
    return this.checked;
  }

  private async decide(): Promise<void> {
    const { chain, ledger, locks, receipts } = this;
    if (!chain) return;
    if (!ledger || !locks || !receipts) {
      this.logger.warn('channels off: GW_CHANNEL_CUSTODY_KEY is set, but channels also need a database and REDIS_URL');
      return;
    }
    const other = (await ledger.custodiesInUse()).find((custody) => custody !== chain.custody);
    if (other) throw new Error(`GW_CHANNEL_CUSTODY_KEY is not the key of channels still open (custody ${other}); start with that key until they are closed`);
    const exists = await chain.custodyAccountExists().catch((err: unknown) => {
      this.logger.warn({ err }, 'channels off: the custody token account could not be read');
      return null;
    });
    if (exists === false) this.logger.warn({ custody: chain.custody }, "channels off: custody's USDC token account does not exist; create it to turn channels on");
    if (exists === true) this.parts = { chain, ledger, locks, receipts };
  }
}
