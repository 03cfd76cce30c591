import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodePaymentRequiredHeader } from '../../../libs/x402';
import { SOLANA_MAINNET_NETWORK, SOLANA_MAINNET_USDC_MINT } from '../../../src/config/load-config';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_RECIPIENT_WALLET } from '../../support/gateway-harness';

const CHAT = '/v1/chat/completions';
/** The repository catalog's version date (2026-11-23), in Unix seconds: every model's `created`. */
const CATALOG_RELEASED = Date.UTC(2026, 10, 23) / 1000;
/** The worked example's exact offer (src/modules/billing/domain/chat-cost.spec.ts): the fields the 402 body and header spell alike. */
const WORKED_EXAMPLE_OFFER = { scheme: 'exact', network: SOLANA_MAINNET_NETWORK, amount: '21505', asset: SOLANA_MAINNET_USDC_MINT };

async function post(gateway: RunningGateway, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}${CHAT}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const feePayer = Keypair.generate();

describe('catalog, routing and the 402 quote', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_FEE_PAYER_KEYS: bs58.encode(feePayer.secretKey) });
  });
  afterAll(() => gateway.close());

  it('GET /v1/models lists every model with every field of spec 2.6', async () => {
    const res = await fetch(`${gateway.url}/v1/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(body.object).toBe('list');
    expect(body.data.length).toBeGreaterThanOrEqual(20);
    expect(new Set(body.data.map((m) => m.provider))).toEqual(new Set(['openai', 'anthropic', 'google', 'xai', 'deepseek', 'nvidia']));
    for (const model of body.data) {
      expect(Object.keys(model).sort()).toEqual(['capabilities', 'context_window', 'created', 'display_name', 'id', 'object', 'owned_by', 'pricing', 'provider']);
      expect(model.object).toBe('model');
      expect(model.owned_by).toBe(model.provider);
      expect(Object.keys(model.capabilities as object).sort()).toEqual(['reasoning', 'streaming', 'tools', 'vision']);
      expect(model.pricing).toMatchObject({ currency: 'USDC', fee_percent: 5 });
    }
    expect(body.data.find((m) => m.id === 'google/gemini-2.5-flash')).toEqual({
      id: 'google/gemini-2.5-flash',
      object: 'model',
      created: CATALOG_RELEASED,
      owned_by: 'google',
      provider: 'google',
      display_name: 'Gemini 2.5 Flash',
      context_window: 1_000_000,
      capabilities: { streaming: true, tools: true, vision: true, reasoning: false },
      pricing: { input_per_million: 0.3, output_per_million: 2.5, currency: 'USDC', fee_percent: 5 },
    });
    expect(body.data.filter((m) => (m.pricing as { input_per_million: number }).input_per_million === 0).length).toBeGreaterThanOrEqual(3);
  });

  it('GET /v1/models/{model} answers an id, written with %2F or a raw slash, and an alias with its resolved entry', async () => {
    const listed = ((await (await fetch(`${gateway.url}/v1/models`)).json()) as { data: Array<{ id: string }> }).data;
    const entry = listed.find((model) => model.id === 'anthropic/claude-opus-4');
    for (const path of ['anthropic%2Fclaude-opus-4', 'anthropic/claude-opus-4', 'opus']) {
      const res = await fetch(`${gateway.url}/v1/models/${path}`);
      expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 200, body: entry });
    }
  });

  it('GET /v1/models/{model} is 404 model_not_found for a profile and anything else the catalog does not list as a model', async () => {
    for (const [path, name] of [
      ['auto', 'auto'],
      ['oss', 'oss'],
      ['openai%2Fgpt-none', 'openai/gpt-none'],
      ['openai/gpt-none', 'openai/gpt-none'],
      ['OPUS', 'OPUS'],
    ]) {
      const res = await fetch(`${gateway.url}/v1/models/${path}`);
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 404,
        body: { error: { type: 'model_not_found', message: `model not found: ${name}`, code: 'chat.model_not_found', param: null } },
      });
    }
  });

  it('GET /v1/models/{model} is exempt from rate limiting, like the list', async () => {
    const limited = await startTestGateway({ GW_RATE_LIMIT_MAX: '1', GW_FREE_TIER_RATE_LIMIT: '1' });
    try {
      const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${limited.url}/v1/models/${i % 2 ? 'gpt' : 'openai/gpt-4o'}`).then((res) => res.status)));
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      await limited.close();
    }
  });

  it('GET /pricing gives rates before and after the fee, an example cost, and flags free models', async () => {
    const body = (await (await fetch(`${gateway.url}/pricing`)).json()) as { example_request: object; data: Array<Record<string, unknown>> };
    expect(body.example_request).toEqual({ input_tokens: 500, output_tokens: 500 });
    expect(body.data.find((m) => m.id === 'openai/gpt-5.2')).toEqual({
      id: 'openai/gpt-5.2',
      provider: 'openai',
      display_name: 'GPT-5.2',
      free: false,
      input_per_million: { provider: '1.750000', with_fee: '1.83750000' },
      output_per_million: { provider: '14.000000', with_fee: '14.70000000' },
      // 500 x 1.75 + 500 x 14.00 per million = 0.007875 USDC; x 1.05 = 0.00826875, rounded up.
      example_cost: { provider_cost: '0.007875', platform_fee: '0.000394', total: '0.008269' },
    });
    expect(body.data.find((m) => m.id === 'nvidia/gpt-oss-120b')).toMatchObject({ free: true, example_cost: { total: '0.000000' } });
  });

  it('answers a request without PAYMENT-SIGNATURE with the 402 body and header, amounts computed by hand', async () => {
    // 1 input token ("a"), 8,192 output tokens at 0.30 / 2.50: the worked example of chat-cost.spec.ts, 21,505 atomic units.
    const res = await post(gateway, { model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'a' }] });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      x402_version: 2,
      resource: { url: CHAT, method: 'POST' },
      accepts: [{ ...WORKED_EXAMPLE_OFFER, pay_to: TEST_RECIPIENT_WALLET, max_timeout_seconds: 300 }],
      cost_breakdown: { provider_cost: '0.020481', platform_fee: '0.001024', total: '0.021505', currency: 'USDC', fee_percent: 5 },
      error: 'Payment required',
      extensions: { bazaar: expect.objectContaining({ info: expect.any(Object), schema: expect.any(Object) }) },
    });
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') as string)).toEqual({
      x402Version: 2,
      error: 'Payment required',
      resource: { url: CHAT, method: 'POST' },
      accepts: [{ ...WORKED_EXAMPLE_OFFER, payTo: TEST_RECIPIENT_WALLET, maxTimeoutSeconds: 300, extra: { decimals: 6, feePayer: feePayer.publicKey.toBase58() } }],
    });
    const raw = JSON.parse(Buffer.from(res.headers.get('payment-required') as string, 'base64').toString('utf8')) as Record<string, unknown>;
    expect(raw).not.toHaveProperty('extensions');
    expect(raw).not.toHaveProperty('cost_breakdown');
  });

  it('prices input by code points and clamps max_tokens to the model', async () => {
    // "Hello there" = 11 code points = 3 tokens; 100 output tokens at 3.00 / 15.00:
    // (3 x 3,000,000 + 100 x 15,000,000) x 105 / 10^8 = 1,584.45 -> 1,585.
    const sonnet = await post(gateway, { model: 'sonnet', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 100 });
    expect(sonnet.body.cost_breakdown).toEqual({ provider_cost: '0.001509', platform_fee: '0.000076', total: '0.001585', currency: 'USDC', fee_percent: 5 });
    // 8 emoji = 8 code points (16 UTF-16 units) = 2 tokens; max_tokens far above the limit bills 8,192:
    // (2 x 150,000 + 8,192 x 600,000) x 105 / 10^8 = 5,161.275 -> 5,162.
    const mini = await post(gateway, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: '😀😀😀😀😀😀😀😀' }], max_tokens: 1_000_000 });
    expect((mini.body.accepts as Array<{ amount: string }>)[0].amount).toBe('5162');
  });

  it('bazaar describes the request schema the gateway validates with, and an example output', async () => {
    const res = await post(gateway, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
    const bazaar = (res.body.extensions as { bazaar: { info: Record<string, any>; schema: Record<string, any> } }).bazaar;
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' });
    expect(bazaar.info.output.example.object).toBe('chat.completion');
    expect(bazaar.schema.properties.input.properties.body.required).toEqual(['model', 'messages']);
    expect(bazaar.schema.properties.input.properties.body.properties.messages.maxItems).toBe(256);
  });

  it.each([
    ['gpt', 'openai/gpt-5.2'],
    ['sonnet', 'anthropic/claude-sonnet-4'],
    ['opus', 'anthropic/claude-opus-4'],
    ['haiku', 'anthropic/claude-haiku-4-5'],
    ['gemini', 'google/gemini-3.1-pro'],
    ['grok', 'xai/grok-3'],
    ['deepseek', 'deepseek/deepseek-chat'],
    ['openai/o3', 'openai/o3'],
  ])('resolves %s to %s (debug header)', async (name, model) => {
    const res = await post(gateway, { model: name, messages: [{ role: 'user', content: 'hello' }] }, { 'x-gw-debug': 'true' });
    expect(res.status).toBe(402);
    expect(res.headers.get('x-gw-model')).toBe(model);
    expect(res.headers.get('x-gw-profile')).toBeNull();
  });

  it.each([
    ['auto', 'hello', 'Simple', 'google/gemini-2.5-flash'],
    ['eco', 'hello', 'Simple', 'google/gemini-2.5-flash-lite'],
    ['premium', 'hello', 'Simple', 'anthropic/claude-haiku-4-5'],
    ['auto', 'Prove that there are infinitely many primes, step by step, with a rigorous proof by contradiction.', 'Reasoning', 'openai/o4-mini'],
    ['premium', 'Prove that the square root of 2 is irrational.', 'Reasoning', 'openai/gpt-5.2'],
  ])('routes profile %s for "%s" to the %s tier: %s', async (profile, text, tier, model) => {
    const res = await post(gateway, { model: profile, messages: [{ role: 'user', content: text }] }, { 'x-gw-debug': 'true' });
    expect(res.status).toBe(402);
    expect(res.headers.get('x-gw-profile')).toBe(profile);
    expect(res.headers.get('x-gw-tier')).toBe(tier);
    expect(res.headers.get('x-gw-model')).toBe(model);
    expect(res.headers.get('x-gw-provider')).toBe(model.split('/')[0]);
    expect(Number(res.headers.get('x-gw-score'))).not.toBeNaN();
    expect(res.headers.get('x-gw-token-estimate-in')).toBe(String(Math.ceil(text.length / 4)));
    expect(Number(res.headers.get('x-gw-latency-ms'))).toBeGreaterThanOrEqual(0);
  });

  it('skips a tier model without a needed capability: tools in the request move eco Simple past flash-lite', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const res = await post(gateway, { model: 'eco', messages: [{ role: 'user', content: 'hi' }], tools }, { 'x-gw-debug': 'true' });
    expect(res.headers.get('x-gw-model')).toBe('openai/gpt-4o-mini');
  });

  it('sends no debug headers without the flag', async () => {
    const res = await post(gateway, { model: 'auto', messages: [{ role: 'user', content: 'hello' }] });
    for (const name of ['x-gw-model', 'x-gw-profile', 'x-gw-tier', 'x-gw-score', 'x-gw-provider', 'x-gw-latency-ms']) expect(res.headers.get(name)).toBeNull();
    expect(res.headers.get('x-gw-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  const message = [{ role: 'user', content: 'hi' }];
  const many = (n: number): unknown[] => Array.from({ length: n }, () => ({ role: 'user', content: 'x' }));
  it.each([
    [{ messages: message }, 400, 'bad_request', 'model is required', 'request.invalid_body', 'model'],
    [{ model: 'auto' }, 400, 'bad_request', 'messages is required', 'request.invalid_body', 'messages'],
    [{ model: 'auto', messages: [] }, 400, 'bad_request', 'messages must NOT have fewer than 1 items', 'request.invalid_body', 'messages'],
    [{ model: 'auto', messages: many(257) }, 400, 'bad_request', 'too many messages: 257 exceeds maximum of 256', 'chat.too_many_messages', 'messages'],
    [
      { model: 'auto', messages: [{ role: 'robot', content: 'x' }] },
      400,
      'bad_request',
      'messages[0].role must be one of: system, user, assistant, tool, developer',
      'request.invalid_body',
      'messages[0].role',
    ],
    [{ model: 'auto', messages: [{ role: 'user', content: 42 }] }, 400, 'bad_request', 'messages[0].content must be string or array or null', 'request.invalid_body', 'messages[0].content'],
    [
      { model: 'auto', messages: [{ role: 'user', content: [{ type: 'audio' }] }] },
      400,
      'bad_request',
      'messages[0].content[0].type must be one of: text, image_url',
      'request.invalid_body',
      'messages[0].content[0].type',
    ],
    [
      { model: 'auto', messages: [{ role: 'user', tool_calls: [] }] },
      400,
      'bad_request',
      'messages[0].tool_calls is allowed only on assistant messages',
      'chat.invalid_tool_message',
      'messages[0].tool_calls',
    ],
    [
      { model: 'auto', messages: [{ role: 'tool', content: 'x' }] },
      400,
      'bad_request',
      'messages[0].tool_call_id is required on tool messages',
      'chat.invalid_tool_message',
      'messages[0].tool_call_id',
    ],
    [{ model: 'auto', messages: message, temperature: 2.5 }, 400, 'bad_request', 'temperature must be <= 2', 'request.invalid_body', 'temperature'],
    [{ model: 'auto', messages: message, temperature: -1 }, 400, 'bad_request', 'temperature must be >= 0', 'request.invalid_body', 'temperature'],
    [{ model: 'auto', messages: message, top_p: 1.5 }, 400, 'bad_request', 'top_p must be <= 1', 'request.invalid_body', 'top_p'],
    [{ model: 'auto', messages: message, max_tokens: 0 }, 400, 'bad_request', 'max_tokens must be >= 1', 'request.invalid_body', 'max_tokens'],
    [{ model: 'auto', messages: message, max_tokens: 1.5 }, 400, 'bad_request', 'max_tokens must be integer or null', 'request.invalid_body', 'max_tokens'],
    [{ model: 'auto', messages: message, n: 2 }, 400, 'bad_request', 'n must be 1: one quote buys one completion', 'request.invalid_body', 'n'],
    [{ model: 'auto', messages: message, stream: 'yes' }, 400, 'bad_request', 'stream must be boolean or null', 'request.invalid_body', 'stream'],
    [{ model: 'auto', messages: message, tools: [{ type: 'function' }] }, 400, 'bad_request', 'tools[0].function is required', 'request.invalid_body', 'tools[0].function'],
    [
      { model: 'auto', messages: message, tool_choice: 'sometimes' },
      400,
      'bad_request',
      'tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}',
      'request.invalid_body',
      'tool_choice',
    ],
    [{ model: 'gpt-99', messages: message }, 404, 'model_not_found', 'model not found: gpt-99', 'chat.model_not_found', null],
    [
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] },
      415,
      'unsupported_media_type',
      'model openai/gpt-4o-mini does not accept image input; see GET /v1/models for capabilities',
      'chat.vision_unsupported',
      null,
    ],
    [
      { model: 'google/gemini-2.5-flash-lite', messages: message, tools: [{ type: 'function', function: { name: 'f' } }] },
      400,
      'bad_request',
      'model google/gemini-2.5-flash-lite does not accept tools; see GET /v1/models for capabilities',
      'chat.tools_unsupported',
      null,
    ],
  ])('refuses invalid body #%# with its status, type and message, never a 402', async (body, status, type, messageText, code, param) => {
    const res = await post(gateway, body);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error: { type, message: messageText, code, param } } });
    expect(res.headers.get('payment-required')).toBeNull();
  });

  it('accepts an image part for a vision model and quotes it', async () => {
    const res = await post(gateway, {
      model: 'openai/gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      max_tokens: 10,
    });
    // 13 code points = 4 tokens + 1,600 for the image; (1,604 x 2,500,000 + 10 x 10,000,000) x 105 / 10^8 = 4,315.5 -> 4,316.
    expect((res.body.accepts as Array<{ amount: string }>)[0].amount).toBe('4316');
  });
});
