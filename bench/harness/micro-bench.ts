/**
 * A small microbenchmark harness: warm-up, then many timed calls of one function, reported as
 * percentiles of the per-call time. Calls are timed one by one (process.hrtime.bigint), so the
 * figures include the timer's own cost (about 50 ns here), which matters only below a microsecond.
 */
export interface MicroResult {
  name: string;
  iterations: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
  maxUs: number;
}

export function microBench(name: string, fn: () => unknown, options: { warmup?: number; iterations?: number } = {}): MicroResult {
  const { warmup = 2_000, iterations = 20_000 } = options;
  let sink: unknown;
  for (let i = 0; i < warmup; i++) sink = fn();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    sink = fn();
    samples[i] = Number(process.hrtime.bigint() - start) / 1_000;
  }
  if (sink === Symbol.for('never')) console.log(sink); // keeps the result observable so the call is not optimised away
  samples.sort();
  const at = (q: number): number => samples[Math.min(iterations - 1, Math.floor(q * iterations))];
  return { name, iterations, p50Us: at(0.5), p90Us: at(0.9), p99Us: at(0.99), p999Us: at(0.999), maxUs: samples[iterations - 1] };
}

export function printMicroTable(results: MicroResult[]): void {
  const rows = results.map((r) => ({
    benchmark: r.name,
    iterations: r.iterations,
    'p50 µs': r.p50Us.toFixed(2),
    'p90 µs': r.p90Us.toFixed(2),
    'p99 µs': r.p99Us.toFixed(2),
    'p99.9 µs': r.p999Us.toFixed(2),
    'max µs': r.maxUs.toFixed(1),
  }));
  console.table(rows);
}
