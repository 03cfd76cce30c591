import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { startUpstreams, writeTestCatalog, type Upstreams } from '../../support/upstreams';

/**
 * A conversation whose turns are all blank would reach Anthropic and Gemini as no message at all,
 * which both refuse (a 502 to the client, after a paid request's money moved): the gateway answers
 * it with its own 400 before any quote (docs/decisions.md, "Blank conversations").
 */

const BODIES: ReadonlyArray<readonly [string, unknown[]]> = [
  ['a user turn with an empty parts array', [{ role: 'user', content: [] }]],
  ['only a blank assistant turn', [{ role: 'assistant', content: '' }]],
];

describe.each([['anthropic/claude-test-free'], ['google/gemini-test-free']])('%s: blank conversations', (model) => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;
  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway({ ...upstreams.env, GW_CATALOG_FILE: writeTestCatalog(), GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', GW_CACHE_TTL_SECS: '0' });
  });
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  it.each(BODIES)('%s is a 400 bad_request, and no provider is called', async (_, messages) => {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, messages }) });

    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string; message: string } }).error).toMatchObject({ type: 'bad_request', message: expect.stringMatching(/blank/), code: 'chat.blank_conversation' });
    expect(upstreams.anthropic.requests.length + upstreams.google.requests.length).toBe(0);
  });
});
