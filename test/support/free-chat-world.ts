import OpenAI from 'openai';
import type { RunningGateway } from '../../src/gateway';
import { startTestGateway } from './gateway-harness';
import { startUpstreams, writeTestCatalog, type Upstreams } from './upstreams';

/** Fakes for every provider, a gateway on the test catalog with the free tier opened wide, and an `openai` client on it. */
export interface FreeChatWorld {
  readonly upstreams: Upstreams;
  readonly gateway: RunningGateway;
  readonly client: OpenAI;
}

/**
 * Starts the world before the enclosing block's tests, forgets the fakes' requests after each one
 * and closes everything after the block; `env` adds to or overrides the gateway's environment.
 */
export function freeChatWorld(env: Record<string, string> = {}): FreeChatWorld {
  let world: FreeChatWorld | undefined;
  const started = (): FreeChatWorld => {
    if (!world) throw new Error('the free chat world starts in beforeAll');
    return world;
  };
  beforeAll(async () => {
    const upstreams = await startUpstreams();
    const gateway = await startTestGateway({ ...upstreams.env, GW_CATALOG_FILE: writeTestCatalog(), GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', ...env });
    world = { upstreams, gateway, client: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 }) };
  });
  afterEach(() => started().upstreams.resetAll());
  afterAll(async () => {
    await started().gateway.close();
    await started().upstreams.close();
  });
  return {
    get upstreams() {
      return started().upstreams;
    },
    get gateway() {
      return started().gateway;
    },
    get client() {
      return started().client;
    },
  };
}
