import { RestartBudget } from './restart-budget';

describe('RestartBudget', () => {
  const policy = { maxRestarts: 5, windowMs: 60_000, baseDelayMs: 500 };

  it('restarts a lone crash at once, then waits longer for each crash in a row, and gives up past the limit', () => {
    let now = 0;
    const budget = new RestartBudget(policy, () => now);
    const delays: Array<number | null> = [];
    for (let i = 0; i < 6; i++) {
      delays.push(budget.take());
      now += 1_000;
    }
    expect(delays).toEqual([0, 500, 1_000, 2_000, 4_000, null]);
  });

  it('forgets restarts older than the window', () => {
    let now = 0;
    const budget = new RestartBudget(policy, () => now);
    for (let i = 0; i < 5; i++) budget.take();
    expect(budget.take()).toBeNull();
    now = 60_000;
    expect(budget.take()).toBe(0);
    expect(budget.take()).toBe(500);
  });

  it('counts only the restarts still inside the window', () => {
    let now = 0;
    const budget = new RestartBudget(policy, () => now);
    budget.take();
    now = 30_000;
    for (let i = 0; i < 4; i++) budget.take();
    now = 60_001;
    // The first restart has left the window; the four at 30 s remain.
    expect(budget.take()).toBe(4_000);
    expect(budget.take()).toBeNull();
  });
});
