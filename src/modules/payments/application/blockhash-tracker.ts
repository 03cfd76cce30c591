import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { PaymentChain } from '../ports/payment-chain';
import { SLOT_MS } from '../domain/solana-slot';

/** How many blocks a blockhash stays valid for (its `lastValidBlockHeight` is its own height plus this). */
const BLOCKHASH_VALIDITY_BLOCKS = 150;
/** Blockhashes remembered: well over the validity window at any poll interval the configuration allows. */
const REMEMBERED = 1_024;
/** A payment waiting for its first content is released once its blockhash has less left than this: its transfer still has to land. */
export const EXPIRY_MARGIN_MS = 4_000;
/** After this many missed polls the tracker's view is too old to judge a blockhash by. */
const STALE_POLLS = 3;
/** A payment is judged against a block height at most this old; an older one is read again first (one read shared by the payments waiting). */
const FRESH_HEIGHT_MS = 100;

type Watcher = { blockhash: string; onExpiring: () => void };

/**
 * The life left in payments' blockhashes (docs/decisions.md, "Blockhash life"): polls
 * `getLatestBlockhash` with the block height (`getEpochInfo`) every GW_BLOCKHASH_POLL_MS and remembers each
 * blockhash's `lastValidBlockHeight`, so acceptance needs only the current block height (read
 * beside the simulation, never after it) to judge a known blockhash. Between reads the height is
 * extrapolated by the block time, at most one poll interval ahead, so the estimate errs towards
 * less life. Payments waiting for their first content watch their blockhash and are released
 * before it expires.
 */
@Injectable()
export class BlockhashTracker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly lastValid = new Map<string, number>();
  private height: { value: number; at: number } | null = null;
  private readonly watchers = new Set<Watcher>();
  private timer: NodeJS.Timeout | null = null;
  private heightRead: Promise<void> | null = null;
  private reading: Promise<void> | null = null;
  private failing = false;
  private readonly pollMs: number;

  constructor(
    private readonly chain: PaymentChain,
    private readonly logger: AppLogger,
    config: GatewayConfig,
    @Optional() private readonly now: () => number = Date.now,
  ) {
    logger.setContext(BlockhashTracker.name);
    this.pollMs = config.settlement.blockhashPollMs;
  }

  onApplicationBootstrap(): void {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the chain once, then tells the payments whose blockhash is about to expire. */
  async poll(): Promise<void> {
    try {
      await this.read();
      if (this.failing) this.logger.info('blockhash polls answer again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn({ err }, 'blockhash poll failed; payments are checked against the chain meanwhile');
      this.failing = true;
      return;
    }
    for (const watcher of this.watchers) {
      const life = this.lifeMs(watcher.blockhash);
      if (life !== null && life < EXPIRY_MARGIN_MS) {
        this.watchers.delete(watcher);
        watcher.onExpiring();
      }
    }
  }

  /**
   * `lifeMs` against a block height at most FRESH_HEIGHT_MS old: a chain that jumped since the last
   * poll is seen. Null for a blockhash unknown here; rejects when the chain cannot be read.
   */
  async lifeNowMs(blockhash: string): Promise<number | null> {
    if (!this.lastValid.has(blockhash)) return null;
    if (!this.height || this.now() - this.height.at > FRESH_HEIGHT_MS) {
      this.heightRead ??= this.chain
        .blockHeight()
        .then((value) => void (this.height = { value, at: this.now() }))
        .finally(() => (this.heightRead = null));
      await this.heightRead;
    }
    return this.lifeMs(blockhash);
  }

  /** The time left before `blockhash` expires, or null when it is unknown here or the view is stale. */
  lifeMs(blockhash: string): number | null {
    const lastValid = this.lastValid.get(blockhash);
    const height = this.currentHeight();
    if (lastValid === undefined || height === null) return null;
    return (lastValid - height) * SLOT_MS;
  }

  /**
   * The life of a blockhash the chain says is valid but no poll returned: the chain is polled at
   * once (one poll shared by the payments waiting), which gives the exact life of a blockhash that
   * is the newest. One still unseen is valid yet not the newest, and its age cannot be read from a
   * poll: it is taken to be one poll interval old, the age of one its payer fetched just before
   * signing (docs/decisions.md, "Blockhash life"). Null when `isValid` says it is not valid (it is
   * then not remembered); rejects when the chain cannot be read.
   */
  async unseenLifeMs(blockhash: string, isValid: () => Promise<boolean>): Promise<number | null> {
    const [valid] = await Promise.all([isValid(), this.read()]);
    if (!valid) return null;
    if (!this.lastValid.has(blockhash)) this.remember(blockhash, this.height!.value + BLOCKHASH_VALIDITY_BLOCKS - Math.ceil(this.pollMs / SLOT_MS));
    return this.lifeMs(blockhash)!;
  }

  /** Calls `onExpiring` once, at the first poll that finds less than EXPIRY_MARGIN_MS left; the returned function stops watching. */
  watch(blockhash: string, onExpiring: () => void): () => void {
    const watcher = { blockhash, onExpiring };
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private currentHeight(): number | null {
    if (!this.height) return null;
    const elapsed = this.now() - this.height.at;
    if (elapsed > STALE_POLLS * this.pollMs) return null;
    return this.height.value + Math.ceil(Math.min(elapsed, this.pollMs) / SLOT_MS);
  }

  /** One `latestBlockhash` read, shared by everyone asking meanwhile; what it returns replaces any estimate. */
  private read(): Promise<void> {
    this.reading ??= this.chain
      .latestBlockhash()
      .then((view) => {
        this.lastValid.delete(view.blockhash);
        this.remember(view.blockhash, view.lastValidBlockHeight);
        this.height = { value: view.blockHeight, at: this.now() };
      })
      .finally(() => (this.reading = null));
    return this.reading;
  }

  private remember(blockhash: string, lastValidBlockHeight: number): void {
    if (this.lastValid.size >= REMEMBERED) this.lastValid.delete(this.lastValid.keys().next().value as string);
    this.lastValid.set(blockhash, lastValidBlockHeight);
  }
}
