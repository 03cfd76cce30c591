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
    expect(doublingRatio((size) => () => sum((size * size * size) / 1_000), 200, { attempts: 1 }).ratio).toBeGreaterThanOrEqual(MAX_DOUBLING_RATIO);
  });
});
