import { doublingRatio, MAX_DOUBLING_RATIO } from './linear-time';

/** The measure the linear-time specs rely on: it passes linear work and never quadratic work. */
describe('doublingRatio', () => {
  const sum = (steps: number) => {
    let total = 0;
    for (let step = 0; step < steps; step++) total += step % 7;
    return total;
  };

  it('passes linear work', () => {
    expect(doublingRatio((size) => () => sum(size * 100), 10_000).ratio).toBeLessThan(MAX_DOUBLING_RATIO);
  });

  it('fails quadratic work, at the size asked and a size up', () => {
    expect(doublingRatio((size) => () => sum((size * size) / 8), 4_000, { attempts: 1 }).ratio).toBeGreaterThanOrEqual(MAX_DOUBLING_RATIO);
  });
});
