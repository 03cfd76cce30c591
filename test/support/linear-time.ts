/**
 * Whether some work grows linearly with its input: the fastest time at one size against the
 * fastest at twice that size (the fastest run is the one least disturbed by garbage collection and
 * other work). Linear work doubles (2), quadratic quadruples (4); MAX_DOUBLING_RATIO sits between
 * with room for noise on a loaded machine, and a ratio spoilt by a burst of other work is measured
 * again (a quadratic one never passes).
 */
export const MAX_DOUBLING_RATIO = 3;

export interface Doubling {
  /** The smaller size measured: the one asked for, or twice it when that pair failed. */
  size: number;
  smallMs: number;
  largeMs: number;
  ratio: number;
}

/** Below this the clock and the scheduler, not the work, set the ratio. */
const FLOOR_MS = 0.5;
/** Work quicker than this once is timed over repeated runs: a collection pause would otherwise set the ratio. */
const STEADY_MS = 20;

/**
 * `prepare(size)` builds the input (untimed) and returns the work on it; the work runs `runs`
 * times per size, after one warm-up run, and the best of `attempts` ratios is kept. Quick work is
 * repeated to STEADY_MS rather than measured at larger sizes: inputs of tens of megabytes cross the
 * CPU's cache sizes, where even a linear scan slows per byte (a code-point count measured 3.2
 * between 8 M and 16 M characters, and 2.0 between 512 K and 1 M). A ratio that fails is measured
 * once more a size up: V8's cost can step once at some size (blank lines cost 3.4 times as much at
 * 1 M characters as at 512 K, then 2.3 times per doubling), which fails one pair of sizes but not
 * the next, while quadratic work fails every pair.
 */
export function doublingRatio(prepare: (size: number) => () => unknown, asked: number, options: { runs?: number; attempts?: number } = {}): Doubling {
  const small = prepare(asked);
  small();
  const repetitions = Math.min(10_000, Math.max(1, Math.ceil(STEADY_MS / Math.max(fastestMs(small, 1), 0.001))));
  const timed = (size: number): (() => void) => {
    const work = prepare(size);
    return () => {
      for (let repetition = 0; repetition < repetitions; repetition++) work();
    };
  };
  const first = bestRatio(timed(asked), timed(2 * asked), asked, options);
  return first.ratio < MAX_DOUBLING_RATIO ? first : bestRatio(timed(2 * asked), timed(4 * asked), 2 * asked, options);
}

function bestRatio(small: () => unknown, large: () => unknown, size: number, { runs = 3, attempts = 3 }: { runs?: number; attempts?: number }): Doubling {
  small();
  large();
  let best: Doubling = { size, smallMs: Infinity, largeMs: Infinity, ratio: Infinity };
  for (let attempt = 0; attempt < attempts && best.ratio >= MAX_DOUBLING_RATIO; attempt++) {
    const smallMs = fastestMs(small, runs);
    const largeMs = fastestMs(large, runs);
    const ratio = Math.max(largeMs, FLOOR_MS) / Math.max(smallMs, FLOOR_MS);
    if (ratio < best.ratio) best = { size, smallMs, largeMs, ratio };
  }
  return best;
}

/** Text of exactly `length` UTF-16 units made of `unit` repeated. */
export function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

function fastestMs(work: () => unknown, runs: number): number {
  let fastest = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    work();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return fastest;
}

export function describeDoubling({ size, smallMs, largeMs, ratio }: Doubling): string {
  return `${size} units took ${smallMs.toFixed(2)} ms, ${2 * size} took ${largeMs.toFixed(2)} ms (ratio ${ratio.toFixed(2)})`;
}
