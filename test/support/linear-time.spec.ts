import { doublingRatio, MAX_DOUBLING_RATIO } from './linear-time';

/**
 * The measure the linear-time specs rely on: it passes linear work and fails work that grows
 * faster. The failing case is cubic (a ratio of 8): other suites running beside this one on a
 * small machine can blur a quadratic ratio of 4 towards the threshold of 3, never a cubic one.
 */
describe('doublingRatio', () => {
  const sum = (steps: number) => {
    let total = 0;
    for (let step = 0; step < steps; step++) total += step % 7;
    return total;
  };

  it('passes linear work', () => {
    expect(doublingRatio((size) => () => sum(size * 100), 10_000).ratio).toBeLessThan(MAX_DOUBLING_RATIO);
  });

  it('fails superlinear work, at the size asked and a size up', () => {
    // Seven runs per size: the full run once measured a cubic ratio of 2.4 here, the fastest of three
    // runs at the small size all slowed by the suites beside it (the large size's were not).
    expect(doublingRatio((size) => () => sum((size * size * size) / 1_000), 200, { attempts: 1, runs: 7 }).ratio).toBeGreaterThanOrEqual(MAX_DOUBLING_RATIO);
  });
});
