import { Pool } from 'undici';

export interface LoadSpec {
  /** Origin of the server under load, e.g. http://127.0.0.1:8402 */
  origin: string;
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** Extra headers for the i-th request (pre-signed payments, one each). */
  headersAt?: (i: number) => Record<string, string>;
  /** Requests per second, sent at fixed intervals whatever the server does (open loop). */
  rate: number;
  durationMs: number;
  /** Keep-alive connections to spread requests over; more than the expected concurrency. */
  connections?: number;
  /** For streams: also time the first byte. */
  firstByte?: boolean;
  /** The status a successful answer has (default 200); any other counts as an error. */
  expectStatus?: number;
}

export interface LoadResult {
  sent: number;
  errors: number;
  achievedRate: number;
  /** Milliseconds from each request's intended send time to its last byte (to its first with `firstByte`). */
  latenciesMs: Float64Array;
  firstByteMs: Float64Array | null;
}

/**
 * An open-loop, fixed-rate load generator on undici. Each request has an intended send time
 * (start + i / rate) and its latency is measured from that time, not from when it actually went
 * out, so a server that stalls is charged for the queue it causes (no coordinated omission).
 * Hand-written: autocannon and similar tools are closed-loop even when given a rate.
 */
export async function runOpenLoop(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.connections ?? 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const total = Math.round((spec.rate * spec.durationMs) / 1000);
  const latencies = new Float64Array(total);
  const firstBytes = spec.firstByte ? new Float64Array(total) : null;
  const intervalMs = 1000 / spec.rate;
  const headers = { 'content-type': 'application/json', ...spec.headers };
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();

  const fire = (i: number, intended: number): Promise<void> =>
    pool.request({ method: 'POST', path: spec.path, headers: spec.headersAt ? { ...headers, ...spec.headersAt(i) } : headers, body: spec.body }).then(
      async (res) => {
        if (firstBytes) {
          for await (const chunk of res.body) {
            if (firstBytes[i] === 0) firstBytes[i] = performance.now() - intended;
            void chunk;
          }
        } else {
          await res.body.dump();
        }
        latencies[i] = performance.now() - intended;
        if (res.statusCode !== (spec.expectStatus ?? 200)) errors += 1;
      },
      () => {
        latencies[i] = performance.now() - intended;
        errors += 1;
      },
    );

  let next = 0;
  while (next < total) {
    const now = performance.now();
    // Send everything whose time has come; then sleep until the next intended time.
    while (next < total && start + next * intervalMs <= now) {
      inFlight.push(fire(next, start + next * intervalMs));
      next += 1;
    }
    if (next < total) await sleep(Math.max(0, start + next * intervalMs - performance.now()));
  }
  await Promise.all(inFlight);
  const elapsed = performance.now() - start;
  await pool.close();
  return { sent: total, errors, achievedRate: (total / elapsed) * 1000, latenciesMs: latencies, firstByteMs: firstBytes };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
