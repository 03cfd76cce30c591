import { join } from 'node:path';
import type { LoadSpec } from './open-loop';
import { startPinned, type Started } from './processes';

/** The compiled tree (dist/) and the repository, from dist/bench/harness. */
export const DIST = join(__dirname, '../..');
export const REPO = join(__dirname, '../../..');

/**
 * The node flags `npm start` and the Docker image run the gateway with (package.json, docker/Dockerfile),
 * docs/performance.md, "The CPU floor": a 32 MB semi-space, so that young collections come half as
 * often and copy fewer requests in flight; and an old generation let grow by half its live size
 * between full collections, not up to four times, so that what requests leave behind there is
 * collected before it holds a hundred megabytes.
 */
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=32', '--heap-growing-percent=50'];

/** The prompt of every chat scenario, so that the bench, the overhead loop and the profile measure the same request. */
export const BENCH_MESSAGES = [{ role: 'user', content: 'Benchmark prompt: say hello.' }];

/** That chat request sent to the fake directly (the control, with the fake's key) and to the gateway's free path. */
export function chatSpecs(fakePort: number, gatewayPort: number): { direct: ChatSpec; free: ChatSpec } {
  return {
    direct: {
      origin: `http://127.0.0.1:${fakePort}`,
      path: '/v1/chat/completions',
      body: JSON.stringify({ model: 'openai/gpt-oss-120b', messages: BENCH_MESSAGES }),
      headers: { authorization: 'Bearer bench' },
    },
    free: { origin: `http://127.0.0.1:${gatewayPort}`, path: '/v1/chat/completions', body: JSON.stringify({ model: 'nvidia/gpt-oss-120b', messages: BENCH_MESSAGES }) },
  };
}

type ChatSpec = Pick<LoadSpec, 'origin' | 'path' | 'body' | 'headers'>;

/** The fake OpenAI-compatible provider as its own pinned process, answering at once. */
export function startFakeProvider(port: number, cpu: number | null): Promise<Started> {
  return startPinned(join(DIST, 'test/fakes/main.js'), { FAKE_KIND: 'openai', PORT: String(port) }, cpu, `http://127.0.0.1:${port}/`);
}

/**
 * The gateway's built entry point as a process on `port` (pinned to `cpu`, or free to use every
 * core with null), its OpenAI and NVIDIA providers pointed at the fake and every rate limit raised
 * for the run. Storage is off unless `env` carries a DATABASE_URL (GW_WORKERS above 1 needs one) or
 * a GW_DATA_DIR (the embedded PGlite there).
 */
export function startBenchGateway(port: number, fakePort: number, cpu: number | null, env: Record<string, string>, nodeArgs: string[] = []): Promise<Started> {
  const fake = `http://127.0.0.1:${fakePort}/v1`;
  return startPinned(
    join(DIST, 'src/main.js'),
    {
      GW_RECIPIENT_WALLET: '11111111111111111111111111111111',
      OPENAI_API_KEY: 'bench',
      NVIDIA_API_KEY: 'bench',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(env.DATABASE_URL || env.GW_DATA_DIR ? {} : { GW_STORAGE: 'none' }),
      GW_OPENAI_BASE_URL: fake,
      GW_NVIDIA_BASE_URL: fake,
      GW_FREE_TIER_RATE_LIMIT: '100000000',
      GW_FREE_TIER_GLOBAL_RPM: '100000000',
      GW_RATE_LIMIT_MAX: '100000000',
      // One load generator is one client: the per-client bounds of the open edge would refuse its load.
      GW_MAX_CONNECTIONS_PER_CLIENT: '0',
      GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT: '0',
      GW_UNPAID_BODY_BYTES_PER_MIN: '0',
    },
    cpu,
    `http://127.0.0.1:${port}/health/live`,
    [],
    [...GATEWAY_NODE_FLAGS, ...nodeArgs],
  );
}

/** The bench's floor (bench/floor/floor-proxy.ts): bare Nest on Express proxying chat to the fake with undici. */
export function startFloorProxy(port: number, fakePort: number, cpu: number | null): Promise<Started> {
  return startPinned(join(DIST, 'bench/floor/floor-proxy.js'), { PORT: String(port), UPSTREAM: `http://127.0.0.1:${fakePort}` }, cpu, `http://127.0.0.1:${port}/`);
}
