import type { PaymentRequiredHeader } from '../../../libs/x402';
import { startTestGateway } from '../../support/gateway-harness';
import { paidGatewayOnPglite } from '../../support/paid-gateway-hooks';
import { specPaymentHeader } from '../../support/paid-gateway';
import { postJson } from '../../support/paid-tools';

interface DiscoveredResource {
  resource: string;
  method: string;
  accepts?: Array<{ scheme: string; network: string; asset: string; payTo: string }>;
  price?: { kind: 'flat' | 'per-token'; amount?: string };
  input?: { example?: unknown; schema?: unknown };
  output?: { example?: unknown };
}

describe('GET /.well-known/x402: every paid resource, enough to pay it (spec 4.10)', () => {
  const live = paidGatewayOnPglite();

  const discover = async (): Promise<DiscoveredResource[]> => ((await (await fetch(`${live.gateway.url}/.well-known/x402`)).json()) as { resources: DiscoveredResource[] }).resources;
  /** What a client needs to sign, built from the discovery entry alone (and, for a per-token price, the amount of the 402). */
  const offerOf = (entry: DiscoveredResource, amount: string): PaymentRequiredHeader => {
    const exact = entry.accepts?.find((accept) => accept.scheme === 'exact');
    if (!exact) throw new Error(`${entry.resource} accepts no exact payment`);
    return {
      x402Version: 2,
      error: 'Payment required',
      resource: { url: entry.resource, method: 'POST' },
      accepts: [{ scheme: 'exact', network: exact.network as `${string}:${string}`, amount, asset: exact.asset, payTo: exact.payTo, maxTimeoutSeconds: 300, extra: { decimals: 6 } }],
    };
  };

  it('lists chat, Anthropic Messages, search and prices with schemes, network, asset, recipient, price, input schema and output example', async () => {
    const resources = await discover();
    expect(resources.map((entry) => entry.resource)).toEqual(['/v1/chat/completions', '/v1/messages', '/v1/solana/price', '/v1/search']);
    expect(resources[1]).toMatchObject({ method: 'POST', price: { kind: 'per-token' }, accepts: resources[0].accepts, input: { example: { max_tokens: 256 } } });
    const search = resources.find((entry) => entry.resource === '/v1/search');
    expect(search).toMatchObject({
      method: 'POST',
      price: { kind: 'flat', amount: '10500' },
      accepts: [{ scheme: 'exact', payTo: live.world.recipient.publicKey.toBase58(), asset: live.world.mint.toBase58() }],
    });
    expect(search?.input?.schema).toBeDefined();
    expect(search?.output?.example).toBeDefined();
    expect(resources[0]).toMatchObject({ price: { kind: 'per-token' } });
  });

  it('a client built only from it pays for a search (flat price), a chat completion and an Anthropic message (the 402 says how much)', async () => {
    const resources = await discover();
    const recipient = () => live.world.localnet.usdcBalance(live.world.recipient.publicKey);
    const search = resources.find((entry) => entry.resource === '/v1/search') as DiscoveredResource;
    let before = recipient();
    const searched = await postJson(live.gateway, search.resource, search.input?.example, { 'payment-signature': specPaymentHeader(live.world, offerOf(search, search.price?.amount as string)) });
    expect(searched.status).toBe(200);
    expect(recipient() - before).toBe(10_500n);

    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      const completion = resources.find((entry) => entry.resource === path) as DiscoveredResource;
      const body = { ...(completion.input?.example as Record<string, unknown>), model: 'openai/gpt-4o-mini' };
      const quote = (await (await postJson(live.gateway, completion.resource, body)).json()) as { accepts: Array<{ amount: string }> };
      before = recipient();
      const answered = await postJson(live.gateway, completion.resource, body, { 'payment-signature': specPaymentHeader(live.world, offerOf(completion, quote.accepts[0].amount)) });
      expect(answered.status).toBe(200);
      expect(recipient() - before).toBe(BigInt(quote.accepts[0].amount));
    }
  });
});

describe('discovery lists only what answers', () => {
  const services = async (url: string): Promise<Record<string, boolean>> => {
    const { data } = (await (await fetch(`${url}/v1/services`)).json()) as { data: Array<{ id: string; available: boolean }> };
    return Object.fromEntries(data.map(({ id, available }) => [id, available]));
  };
  const resources = async (url: string): Promise<string[]> => ((await (await fetch(`${url}/.well-known/x402`)).json()) as { resources: DiscoveredResource[] }).resources.map((entry) => entry.resource);

  it('leaves search out of /.well-known/x402 and marks it unavailable in /v1/services while no search key is configured', async () => {
    const gateway = await startTestGateway();
    try {
      expect(await resources(gateway.url)).toEqual(['/v1/chat/completions', '/v1/messages', '/v1/solana/price']);
      expect(await services(gateway.url)).toEqual({ 'token-price': true, 'web-search': false });
      expect((await fetch(`${gateway.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"q"}' })).status).toBe(503);
    } finally {
      await gateway.close();
    }
  });

  it('lists it, available, once the key is set', async () => {
    const gateway = await startTestGateway({ GW_SEARCH_API_KEY: 'tvly-some-key' });
    try {
      expect(await resources(gateway.url)).toEqual(['/v1/chat/completions', '/v1/messages', '/v1/solana/price', '/v1/search']);
      expect(await services(gateway.url)).toEqual({ 'token-price': true, 'web-search': true });
    } finally {
      await gateway.close();
    }
  });
});
