import { ClaimBreaker } from './claim-breaker';

describe('the escrow claim breaker (spec 3.2)', () => {
  it('opens on more than half failures among at least 4 samples, and closes after the reset with a fresh window', () => {
    const breaker = new ClaimBreaker(300_000, 60_000);
    breaker.record(false, 0);
    breaker.record(false, 1);
    breaker.record(false, 2);
    expect(breaker.state(3)).toBe('closed'); // 3 samples: not enough
    breaker.record(true, 4);
    expect(breaker.state(5)).toBe('open'); // 3 of 4 failed
    expect(breaker.openedUntil(5)).toBe(60_004);
    breaker.record(true, 10); // ignored while open
    expect(breaker.state(60_004)).toBe('closed');
    expect(breaker.counts(60_004)).toEqual({ samples: 0, failures: 0 });
  });

  it('stays closed at exactly half, and forgets samples older than the window', () => {
    const breaker = new ClaimBreaker(1_000, 500);
    for (const [ok, at] of [
      [false, 0],
      [false, 1],
      [true, 2],
      [true, 3],
    ] as const)
      breaker.record(ok, at);
    expect(breaker.state(4)).toBe('closed');
    breaker.record(false, 2_000);
    breaker.record(false, 2_001);
    breaker.record(false, 2_002);
    expect(breaker.state(2_003)).toBe('closed'); // the old ones left the window: 3 samples
    breaker.record(true, 2_003);
    expect(breaker.state(2_004)).toBe('open');
  });
});
