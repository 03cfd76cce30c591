/**
 * Whether some work grows linearly with its input: the median time at one size against the median
 * at twice that size. Linear work doubles (2), quadratic quadruples (4); MAX_DOUBLING_RATIO sits
 * between with room for noise on a loaded machine, and a ratio spoilt by a burst of other work is
 * measured again (a quadratic one never passes).
 */
export const MAX_DOUBLING_RATIO = 3;

export interface Doubling {
  smallMs: number;
  largeMs: number;
  ratio: number;
}

/** Below this the clock and the scheduler, not the work, set the ratio. */
const FLOOR_MS = 0.5;

/**
 * `prepare(size)` builds the input (untimed) and returns the work on it; the work runs `runs`
 * times per size, after one warm-up run, and the best of `attempts` ratios is kept.
 */
export function doublingRatio(prepare: (size: number) => () => unknown, size: number, options: { runs?: number; attempts?: number } = {}): Doubling {
  const { runs = 5, attempts = 5 } = options;
  const small = prepare(size);
  const large = prepare(2 * size);
  small();
  large();
  let best: Doubling = { smallMs: Infinity, largeMs: Infinity, ratio: Infinity };
  for (let attempt = 0; attempt < attempts && best.ratio >= MAX_DOUBLING_RATIO; attempt++) {
    const smallMs = medianMs(small, runs);
    const largeMs = medianMs(large, runs);
    const ratio = Math.max(largeMs, FLOOR_MS) / Math.max(smallMs, FLOOR_MS);
    if (ratio < best.ratio) best = { smallMs, largeMs, ratio };
  }
  return best;
}

/** Text of exactly `length` UTF-16 units made of `unit` repeated. */
export function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

function medianMs(work: () => unknown, runs: number): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    work();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

export function describeDoubling({ smallMs, largeMs, ratio }: Doubling, size: number): string {
  return `${size} units took ${smallMs.toFixed(2)} ms, ${2 * size} took ${largeMs.toFixed(2)} ms (ratio ${ratio.toFixed(2)})`;
}
