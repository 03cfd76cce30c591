import { accessSync, constants } from 'node:fs';
import { Client } from 'pg';
import { Redis } from 'ioredis';

/** The machines' local services (README.md, "Set-up on a fresh machine"). */
export const POSTGRES_ADMIN_URL = process.env.GW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_TEST_URL = process.env.GW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Debian's Chromium, which the console's tests drive (.ci/run installs it). */
export const CHROMIUM_PATH = process.env.GW_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Set by the global setup: which services answered, visible to every test worker. */
const AVAILABLE_FLAG = { postgres: 'GW_TEST_POSTGRES_AVAILABLE', redis: 'GW_TEST_REDIS_AVAILABLE', chromium: 'GW_TEST_CHROMIUM_AVAILABLE' } as const;
export type Service = keyof typeof AVAILABLE_FLAG;

export function serviceAvailable(service: Service): boolean {
  return process.env[AVAILABLE_FLAG[service]] === '1';
}

/**
 * The URL of Redis database `db`, emptied first so that other suites' keys cannot interfere: for
 * gateways that share Redis, each suite with a database number of its own.
 */
export async function emptyRedisDatabase(db: number): Promise<string> {
  const url = `${REDIS_TEST_URL}/${db}`;
  const redis = new Redis(url);
  try {
    await redis.flushdb();
  } finally {
    await redis.quit();
  }
  return url;
}

export function markService(service: Service, available: boolean): void {
  process.env[AVAILABLE_FLAG[service]] = available ? '1' : '0';
}

export async function probePostgres(): Promise<string | null> {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function probeRedis(): Promise<string | null> {
  const redis = new Redis(REDIS_TEST_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    redis.disconnect();
  }
}

export function probeChromium(): Promise<string | null> {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return Promise.resolve(null);
  } catch (err) {
    return Promise.resolve(`no browser at ${CHROMIUM_PATH} (apt-get install -y chromium): ${(err as Error).message}`);
  }
}
