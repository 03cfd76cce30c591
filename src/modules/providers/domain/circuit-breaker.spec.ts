import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const breaker = (): CircuitBreaker => new CircuitBreaker(undefined, () => now);
  beforeEach(() => (now = 1_000_000));

  it('stays closed below 5 requests, whatever fails', () => {
    const b = breaker();
    for (let i = 0; i < 4; i++) b.failed();
    expect(b.state).toBe('closed');
  });

  it('opens at 50 percent failures over at least 5 requests in 60 s', () => {
    const b = breaker();
    b.succeeded();
    b.succeeded();
    b.succeeded();
    b.failed();
    b.failed();
    expect(b.state).toBe('closed');
    b.failed();
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
  });

  it('forgets outcomes older than the window', () => {
    const b = breaker();
    for (let i = 0; i < 4; i++) b.failed();
    now += 61_000;
    b.failed();
    expect(b.state).toBe('closed');
  });

  it('half-opens after 30 s with one trial: success closes, failure re-opens', () => {
    const b = breaker();
    for (let i = 0; i < 5; i++) b.failed();
    now += 30_000;
    expect(b.state).toBe('half-open');
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false);
    b.failed();
    expect(b.state).toBe('open');
    now += 30_000;
    expect(b.tryAcquire()).toBe(true);
    b.succeeded();
    expect(b.state).toBe('closed');
    expect(b.tryAcquire()).toBe(true);
  });
});
