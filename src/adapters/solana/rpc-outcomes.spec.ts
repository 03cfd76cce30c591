import { refusedSimulation } from './rpc-outcomes';

describe("a node's error answer to simulateTransaction", () => {
  it('is a verdict on the transaction when the node refuses the transaction itself', () => {
    expect(refusedSimulation(new Error('failed to simulate transaction: Transaction signature verification failure'))).toMatchObject({ ok: false, reason: 'failed' });
    expect(refusedSimulation(new Error('failed to simulate transaction: invalid transaction: Transaction failed to sanitize accounts offsets correctly'))).toMatchObject({
      ok: false,
      reason: 'failed',
    });
  });

  it("is the RPC's failure, no verdict, when the node speaks of its own trouble", () => {
    for (const trouble of ['Node is unhealthy', 'Node is behind by 42 slots', 'Minimum context slot has not been reached', 'Internal error', '429 Too Many Requests']) {
      expect(refusedSimulation(new Error(`failed to simulate transaction: ${trouble}`))).toBeNull();
    }
    expect(refusedSimulation(new Error('fetch failed'))).toBeNull();
  });
});
