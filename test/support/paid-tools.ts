import { expectOfficialX402Headers } from './x402-conformance';
import { decodePaymentRequiredHeader, type PaymentRequiredHeader } from '../../libs/x402';
import type { RunningGateway } from '../../src/gateway';

export const SEARCH_PATH = '/v1/search';
export const PRICE_PATH = '/v1/solana/price';

/** Spec 4.6, 4.7: the flat prices, fee included, in atomic USDC. */
export const SEARCH_PRICE = 10_500n;
export const TOKEN_PRICE_PRICE = 1_050n;

/** A POST of `body` to a paid route; its x402 headers, if any, are held to the official schemas. `signal` lets the client leave. */
export async function postJson(gateway: RunningGateway, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  expectOfficialX402Headers(res.headers);
  return res;
}

/** The 402 of a paid route for `body`, in its header form. */
export async function routeQuote(gateway: RunningGateway, path: string, body: unknown): Promise<PaymentRequiredHeader> {
  const res = await postJson(gateway, path, body);
  if (res.status !== 402) throw new Error(`expected a 402 quote from ${path}, got ${res.status}: ${await res.text()}`);
  return decodePaymentRequiredHeader(res.headers.get('payment-required') as string);
}
