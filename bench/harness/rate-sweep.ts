import type { Percentiles } from './percentiles';

export interface SweepCrossing {
  /** The p99 bound. */
  p99LimitMs: number;
  /** Achieved rate of the last step within the bound before the first past it; null if the first step was already past it. */
  withinLimit: number | null;
  /** Offered rate of the first step past the bound; null if no step was. */
  crossedAt: number | null;
}

/**
 * Offers `rates` in increasing order, one open-loop step each (`step` runs and records it), and
 * stops after the first step whose p99 exceeds the largest of `p99LimitsMs`: past it the server
 * only queues, and the steps above would cost the run minutes without saying more
 * (docs/performance.md). Returns the steps and, for each bound, where p99 first passed it.
 */
export async function sweepRates<T extends { achieved: number; latency: Percentiles }>(
  rates: readonly number[],
  p99LimitsMs: readonly number[],
  step: (rate: number) => Promise<T>,
): Promise<{ steps: T[]; crossings: SweepCrossing[] }> {
  const steps: T[] = [];
  const stopAt = Math.max(...p99LimitsMs);
  for (const rate of rates) {
    const result = await step(rate);
    steps.push(result);
    if (result.latency.p99 > stopAt) break;
  }
  const crossings = p99LimitsMs.map((p99LimitMs) => {
    const first = steps.findIndex((result) => result.latency.p99 > p99LimitMs);
    const within = first === -1 ? steps.length : first;
    return { p99LimitMs, withinLimit: within === 0 ? null : steps[within - 1].achieved, crossedAt: first === -1 ? null : rates[first] };
  });
  return { steps, crossings };
}
