import type { RunningGateway } from '../../src/gateway';
import { TEST_ADMIN_TOKEN } from './gateway-harness';
import { startPaidGateway, startPaidWorld, type PaidWorld } from './paid-gateway';
import { pgliteStorage } from './storage-env';

/** The paid world and its gateway for the enclosing block's tests; set in its beforeAll. */
export interface PaidGatewayUnderTest {
  readonly world: PaidWorld;
  readonly gateway: RunningGateway;
}

/** A paid world and a gateway on fresh embedded PGlite with the admin token, for the enclosing block (the fakes reset after each test). */
export function paidGatewayOnPglite(env: Record<string, string | undefined> = {}): PaidGatewayUnderTest {
  let world: PaidWorld | undefined;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env });
  });
  afterEach(() => world?.upstreams.resetAll());
  afterAll(async () => {
    await gateway?.close();
    await world?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the paid gateway starts in beforeAll');
    return value;
  };
  return {
    get world() {
      return started(world);
    },
    get gateway() {
      return started(gateway);
    },
  };
}
