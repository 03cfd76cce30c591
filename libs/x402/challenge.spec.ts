import { decodePaymentRequiredHeader, encodePaymentRequiredHeader, toHeaderForm } from './challenge';
import { X402DecodeError } from './errors';
import { CHAT, EXACT, FEE_PAYER, sampleBody, samplePayment } from './testing/samples';

const base64 = (json: string) => Buffer.from(json).toString('base64');

describe('the 402 challenge', () => {
  const header = toHeaderForm(sampleBody(), { feePayer: FEE_PAYER });
  const [offer] = header.accepts;

  it('has a header form with only the exact offers, camelCase, each with extra {decimals, feePayer}', () => {
    expect(header).toEqual({
      x402Version: 2,
      error: 'Payment required',
      resource: CHAT,
      // The offer exactly as a payment for it echoes it back.
      accepts: [samplePayment(EXACT).accepted],
    });
  });

  it('never carries the cost breakdown, the extensions, escrow offers or snake_case names in the header', () => {
    const json = Buffer.from(encodePaymentRequiredHeader(toHeaderForm(sampleBody())), 'base64').toString();
    for (const absent of ['cost_breakdown', 'extensions', 'bazaar', 'escrow', '_', 'feePayer']) expect(json).not.toContain(absent);
  });

  it.each([
    ['with a fee payer', { feePayer: FEE_PAYER }],
    ['without a fee payer', {}],
  ])('round-trips body -> header form -> base64 -> decoded header (%s)', (_, options) => {
    const headerForm = toHeaderForm(sampleBody(), options);
    expect(decodePaymentRequiredHeader(encodePaymentRequiredHeader(headerForm))).toEqual(headerForm);
  });

  const withOffer = (fields: object) => base64(JSON.stringify({ ...header, accepts: [{ ...offer, ...fields }] }));
  it.each([
    ['not base64', 'PAYMENT-REQUIRED is not base64', '{"x402Version":2}'],
    ['base64 of non-JSON', 'PAYMENT-REQUIRED is base64 but not of JSON', base64('x402')],
    ['version 1', 'x402Version must be 2', base64(JSON.stringify({ ...header, x402Version: 1 }))],
    ['the snake_case body', 'the top-level object mixes snake_case field names into a camelCase message', base64(JSON.stringify(sampleBody()))],
    ['an escrow offer', 'accepts[0].scheme must be "exact"', withOffer({ scheme: 'escrow' })],
    ['other decimals', 'accepts[0].extra.decimals must be 6', withOffer({ extra: { decimals: 9 } })],
    ['no offers', 'accepts must be a non-empty array', encodePaymentRequiredHeader({ ...header, accepts: [] })],
  ])('refuses a header with %s', (_, message, value) => {
    const decode = () => decodePaymentRequiredHeader(value);
    expect(decode).toThrow(X402DecodeError);
    expect(decode).toThrow(new Error(message));
  });
});
