import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayOptions } from '../../src/app.module';
import type { GatewayConfig } from '../../src/config/gateway-config';
import { loadConfig } from '../../src/config/load-config';
import { startGateway, type RunningGateway } from '../../src/gateway';
import { closedPort } from './network';
import { assertConformance, checkExchanges } from './openapi-conformance';

/** A valid wallet for tests that do not care which (the System Program's id, 32 zero bytes). */
export const TEST_RECIPIENT_WALLET = '11111111111111111111111111111111';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export function tempDir(prefix = 'gw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Configuration for a gateway under test: loopback, an ephemeral port, no storage, a chain RPC
 * that refuses connections, silent logs (GW_TEST_LOG_LEVEL turns them on, to see why a test failed);
 * `env` overrides any of it.
 */
export async function testConfig(env: Record<string, string | undefined> = {}): Promise<GatewayConfig> {
  return loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    GW_STORAGE: 'none',
    GW_DATA_DIR: tempDir(),
    GW_RECIPIENT_WALLET: TEST_RECIPIENT_WALLET,
    GW_SOLANA_RPC_URL: `http://127.0.0.1:${await closedPort()}`,
    GW_LOG_LEVEL: process.env.GW_TEST_LOG_LEVEL ?? 'silent',
    ...env,
  }).config;
}

/**
 * Every response of this test file's gateways is checked against the gateway's OpenAPI document as
 * it finishes, and what the document does not describe fails the file at its end, so that the
 * document cannot drift from what is served. Only under Jest: the benchmarks and the demo start
 * gateways through here too.
 */
const problems = new Set<string>();
const { afterAll: jestAfterAll } = globalThis as { afterAll?: (hook: () => void) => void };
const underJest = jestAfterAll !== undefined;
jestAfterAll?.(() => assertConformance(problems));

export async function startTestGateway(env: Record<string, string | undefined> = {}, options: GatewayOptions = {}): Promise<RunningGateway> {
  const gateway = await startGateway(await testConfig(env), options);
  if (underJest) checkExchanges(gateway, problems);
  return gateway;
}
