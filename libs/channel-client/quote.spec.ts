import { encodePaymentRequiredHeader, toHeaderForm } from '../x402';
import { CHAT, MAINNET, PAY_TO, sampleBody, USDC_MINT } from '../x402/testing/samples';
import { readQuote } from './quote';

const offer = { scheme: 'exact', network: MAINNET, amount: '21505', asset: USDC_MINT, payTo: PAY_TO, maxTimeoutSeconds: 300 } as const;

describe('readQuote', () => {
  it('reads the exact offer of the PAYMENT-REQUIRED header', async () => {
    const header = encodePaymentRequiredHeader(toHeaderForm(sampleBody()));
    const response = new Response('not json', { status: 402, headers: { 'PAYMENT-REQUIRED': header } });
    expect(await readQuote(response)).toEqual({ resource: CHAT, offer, amount: 21505n });
  });

  it('reads the snake_case body when there is no header, and leaves the response readable', async () => {
    const response = Response.json(sampleBody(), { status: 402 });
    expect(await readQuote(response)).toEqual({ resource: CHAT, offer, amount: 21505n });
    expect(response.bodyUsed).toBe(false);
  });

  it.each([
    ['no challenge', { error: { code: 'payment.required' } }],
    ['no exact offer', { ...sampleBody(), accepts: sampleBody().accepts.filter((entry) => entry.scheme !== 'exact') }],
    ['an amount that is not digits', { ...sampleBody(), accepts: [{ ...sampleBody().accepts[0], amount: '0.021505' }] }],
  ])('answers null on %s', async (_, body) => {
    expect(await readQuote(Response.json(body, { status: 402 }))).toBeNull();
  });
});
