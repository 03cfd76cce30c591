import type { GatewayConfig } from '../../../config/gateway-config';
import type { AppLogger } from '../../../logging/app-logger';
import { UnusedPaymentChain } from '../../../../test/support/unused-payment-chain';
import type { BlockhashView } from '../ports/payment-chain';
import { SLOT_MS } from '../domain/solana-slot';
import { BlockhashTracker, EXPIRY_MARGIN_MS } from './blockhash-tracker';

const logger = { setContext: () => undefined, info: () => undefined, warn: () => undefined } as unknown as AppLogger;
const POLL_MS = 2_000;
const config = { settlement: { blockhashPollMs: POLL_MS } } as GatewayConfig;

/** A chain that answers getLatestBlockhash with what the test sets, or fails. */
class PolledChain extends UnusedPaymentChain {
  view: BlockhashView | Error = { blockhash: 'h1', lastValidBlockHeight: 250, blockHeight: 100 };
  heightReads = 0;
  override latestBlockhash(): Promise<BlockhashView> {
    return this.view instanceof Error ? Promise.reject(this.view) : Promise.resolve(this.view);
  }
  override blockHeight(): Promise<number> {
    this.heightReads += 1;
    return this.view instanceof Error ? Promise.reject(this.view) : Promise.resolve(this.view.blockHeight);
  }
}

const valid = () => Promise.resolve(true);

function tracked() {
  const chain = new PolledChain();
  let now = 1_000_000;
  const tracker = new BlockhashTracker(chain, logger, config, () => now);
  return { chain, tracker, advance: (ms: number) => (now += ms) };
}

describe('BlockhashTracker', () => {
  it("knows a polled blockhash's life, counting the blocks the chain may have made since, at most one poll's worth", async () => {
    const { tracker, advance } = tracked();
    expect(tracker.lifeMs('h1')).toBeNull();
    await tracker.poll();
    expect(tracker.lifeMs('h1')).toBe(150 * SLOT_MS);
    advance(1_000);
    // 1 s is 2.5 blocks, rounded up: the estimate errs towards less life.
    expect(tracker.lifeMs('h1')).toBe(147 * SLOT_MS);
    advance(3_000);
    expect(tracker.lifeMs('h1')).toBe(145 * SLOT_MS);
    expect(tracker.lifeMs('other')).toBeNull();
  });

  it('remembers earlier blockhashes as the chain moves on', async () => {
    const { chain, tracker } = tracked();
    await tracker.poll();
    chain.view = { blockhash: 'h2', lastValidBlockHeight: 260, blockHeight: 110 };
    await tracker.poll();
    expect(tracker.lifeMs('h1')).toBe(140 * SLOT_MS);
    expect(tracker.lifeMs('h2')).toBe(150 * SLOT_MS);
  });

  it('says nothing once polls have failed for three intervals, and keeps its view meanwhile', async () => {
    const { chain, tracker, advance } = tracked();
    await tracker.poll();
    chain.view = new Error('rpc down');
    advance(POLL_MS);
    await tracker.poll();
    expect(tracker.lifeMs('h1')).toBe(145 * SLOT_MS);
    advance(2 * POLL_MS + 1);
    expect(tracker.lifeMs('h1')).toBeNull();
    await expect(tracker.unseenLifeMs('h9', valid)).rejects.toThrow('rpc down');
  });

  it('judges a payment against a block height read at most 100 ms ago, one read shared by the payments waiting', async () => {
    const { chain, tracker, advance } = tracked();
    await tracker.poll();
    expect(await tracker.lifeNowMs('unknown')).toBeNull();
    expect(chain.heightReads).toBe(0);
    // The chain jumped 120 blocks since the poll; the next payment sees it.
    chain.view = { blockhash: 'h1', lastValidBlockHeight: 250, blockHeight: 220 };
    expect(await tracker.lifeNowMs('h1')).toBe(150 * SLOT_MS);
    advance(101);
    expect(await Promise.all([tracker.lifeNowMs('h1'), tracker.lifeNowMs('h1')])).toEqual([30 * SLOT_MS, 30 * SLOT_MS]);
    expect(chain.heightReads).toBe(1);
    chain.view = new Error('rpc down');
    advance(101);
    await expect(tracker.lifeNowMs('h1')).rejects.toThrow('rpc down');
  });

  it('polls at once for a valid blockhash it has not seen: the newest gets its exact life, and a later poll replaces an estimate', async () => {
    const { chain, tracker, advance } = tracked();
    await tracker.poll();
    // Made 145 blocks ago, it is the newest: 5 blocks left, not a guessed 145.
    chain.view = { blockhash: 'h2', lastValidBlockHeight: 300, blockHeight: 295 };
    advance(10);
    expect(await tracker.unseenLifeMs('h2', valid)).toBe(5 * SLOT_MS);
    // Valid, not the newest: taken to be one poll interval old, until a poll says otherwise.
    expect(await tracker.unseenLifeMs('between', valid)).toBe((150 - POLL_MS / SLOT_MS) * SLOT_MS);
    chain.view = { blockhash: 'between', lastValidBlockHeight: 305, blockHeight: 295 };
    await tracker.poll();
    expect(tracker.lifeMs('between')).toBe(10 * SLOT_MS);
  });

  it('neither estimates nor remembers a blockhash the chain says is not valid, and shares one poll among the payments asking', async () => {
    const { chain, tracker } = tracked();
    let polls = 0;
    chain.latestBlockhash = () => ((polls += 1), Promise.resolve({ blockhash: 'h1', lastValidBlockHeight: 250, blockHeight: 100 }));
    expect(await Promise.all([tracker.unseenLifeMs('made-up', () => Promise.resolve(false)), tracker.unseenLifeMs('other', () => Promise.resolve(false))])).toEqual([null, null]);
    expect(polls).toBe(1);
    expect(tracker.lifeMs('made-up')).toBeNull();
  });

  it('tells a watcher once, at the first poll that finds its blockhash about to expire; other blockhashes and stopped watches are left alone', async () => {
    const { chain, tracker } = tracked();
    await tracker.poll();
    const expiring = jest.fn();
    const stopped = jest.fn();
    const other = jest.fn();
    tracker.watch('h1', expiring);
    tracker.watch('h1', stopped)();
    chain.view = { blockhash: 'h2', lastValidBlockHeight: 400, blockHeight: 240 };
    tracker.watch('h2', other);
    await tracker.poll();
    expect(expiring).not.toHaveBeenCalled();
    // 10 blocks left (4 s) is not under the margin; 9 is.
    expect((250 - 240) * SLOT_MS).toBe(EXPIRY_MARGIN_MS);
    chain.view = { blockhash: 'h2', lastValidBlockHeight: 400, blockHeight: 241 };
    await tracker.poll();
    await tracker.poll();
    expect(expiring).toHaveBeenCalledTimes(1);
    expect(stopped).not.toHaveBeenCalled();
    expect(other).not.toHaveBeenCalled();
  });
});
