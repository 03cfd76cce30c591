export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
}

export function percentiles(samples: Float64Array): Percentiles {
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999) };
}
