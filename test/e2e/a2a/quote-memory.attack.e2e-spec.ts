import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, userMessage } from '../../support/a2a-client';
import { startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * The memory task store is bounded by count (100,000), not by bytes, and a quote stores the user's
 * text whole (up to 1,000,000 characters): an unpaid quote costs the client one slot of its paid
 * window (GW_RATE_LIMIT_MAX a minute, 60 by default) and the gateway up to ~1-2 MB of heap for
 * the task TTL (10 minutes). One client address holds 600 live quotes (~0.6-1.2 GB); a few
 * addresses exhaust the heap. The gateway runs in this process, so its heap is this heap.
 */
describe('A2A quotes against the memory task store', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { GW_STORAGE: 'none' });
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('a quote of 1,000,000 characters is refused; 200 unpaid quotes of the largest text allowed do not pin 64 MB of heap', async () => {
    const refused = await a2aCall(gateway, 'message/send', userMessage('word '.repeat(200_000), { model: 'openai/gpt-4.1-mini', max_tokens: 16 }));
    expect(refused.body.error?.code).toBe(-32602);
    const text = 'word '.repeat(20_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    let quoted = 0;
    for (let i = 0; i < 200; i++) {
      const res = await a2aCall(gateway, 'message/send', userMessage(text, { model: 'openai/gpt-4.1-mini', max_tokens: 16 }));
      if (res.body.result?.status.state === 'input-required') quoted++;
    }
    gc();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
    process.stdout.write(`a2a quotes accepted: ${quoted}/200; heap retained: ${grownMb.toFixed(0)} MB\n`);
    expect(quoted).toBeGreaterThan(0);
    expect(grownMb).toBeLessThan(64);
  }, 240_000);
});
