import type { Casing } from './casing';
import { PaymentPayloadError } from './errors';
import { decodePaymentSignature, encodePaymentSignature, type SchemePayload } from './payment-payload';
import { CHANNEL, ESCROW, EXACT, samplePayment } from './testing/samples';

/** A payment as JSON on the wire, open to mutation by the malformed-input cases. */
interface Wire {
  [field: string]: unknown;
  resource: Record<string, unknown>;
  accepted: Record<string, unknown>;
  payload: Record<string, unknown>;
}

function rawJson(payload: SchemePayload, casing: Casing): string {
  return Buffer.from(encodePaymentSignature(samplePayment(payload), casing), 'base64').toString();
}

function wire(casing: Casing, payload: SchemePayload = EXACT): Wire {
  return JSON.parse(rawJson(payload, casing)) as Wire;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const casings: Casing[] = ['snake', 'camel'];
const kinds = [EXACT, ESCROW, CHANNEL];

describe('the PAYMENT-SIGNATURE payload', () => {
  it.each(casings.flatMap((casing) => kinds.map((payload) => [payload.kind, casing, payload] as const)))(
    'decodes a %s payment in %s case, base64 or raw JSON, to the same normalised value',
    (_, casing, payload) => {
      const payment = samplePayment(payload);
      expect(decodePaymentSignature(encodePaymentSignature(payment, casing))).toEqual(payment);
      expect(decodePaymentSignature(rawJson(payload, casing))).toEqual(payment);
    },
  );

  it('writes the spec form in snake_case and the x402 form in camelCase', () => {
    expect(wire('snake', ESCROW)).toEqual({
      x402_version: 2,
      resource: { url: '/v1/chat/completions', method: 'POST' },
      accepted: expect.objectContaining({ pay_to: expect.any(String), max_timeout_seconds: 300 }),
      payload: { deposit_tx: expect.any(String), service_id: expect.any(String), agent_pubkey: expect.any(String) },
    });
    expect(wire('camel', CHANNEL).payload).toEqual(expect.objectContaining({ requestDigest: expect.any(String), expirySlot: 350_000_000 }));
  });

  it('keeps extra as sent: it is scheme data, not an x402 field', () => {
    expect(wire('snake').accepted.extra).toEqual({ decimals: 6, feePayer: expect.any(String) });
  });

  it('reports the payload kind from its fields, whatever accepted.scheme claims', () => {
    const escrowInExact = { ...wire('snake', ESCROW), accepted: wire('snake').accepted };
    const decoded = decodePaymentSignature(JSON.stringify(escrowInExact));
    expect([decoded.accepted.scheme, decoded.payload.kind]).toEqual(['exact', 'escrow']);
  });

  it('ignores unknown fields, such as the extensions the official client may echo', () => {
    expect(decodePaymentSignature(JSON.stringify({ ...wire('camel'), extensions: {} }))).toEqual(samplePayment(EXACT));
  });

  const snake = wire('snake');
  const camel = wire('camel');
  const snakeEscrow = wire('snake', ESCROW);
  const camelChannel = wire('camel', CHANNEL);
  const json = (value: unknown) => JSON.stringify(value);
  const withAccepted = (payment: Wire, fields: object) => json({ ...payment, accepted: { ...payment.accepted, ...fields } });
  const withPayload = (payment: Wire, fields: object) => json({ ...payment, payload: { ...payment.payload, ...fields } });
  const notDigits = 'must be a string of digits within u64';
  it.each<[string, string, string]>([
    ['an empty header', '', 'PAYMENT-SIGNATURE is empty'],
    ['text that is neither JSON nor base64', 'x402 please', 'PAYMENT-SIGNATURE is not base64'],
    ['base64 of something else', base64('\u0000\u0001 not JSON'), 'PAYMENT-SIGNATURE is base64 but not of JSON'],
    ['broken raw JSON', '{"x402_version": 2,', 'PAYMENT-SIGNATURE is not valid JSON'],
    ['a JSON array', '[2]', 'PAYMENT-SIGNATURE is not a JSON object'],
    ['no version', json({ ...snake, x402_version: undefined }), 'missing field x402Version (or x402_version)'],
    ['version 1', json({ ...snake, x402_version: 1 }), 'x402_version must be 2'],
    ['the version as a string', json({ ...camel, x402Version: '2' }), 'x402Version must be 2'],
    ['both version spellings', json({ ...snake, x402Version: 2 }), 'PAYMENT-SIGNATURE has both x402_version and x402Version'],
    ['both pay_to and payTo', withAccepted(snake, { payTo: snake.accepted.pay_to }), 'accepted mixes camelCase field names into a snake_case message'],
    ['a snake_case accepted in a camelCase payment', json({ ...camel, accepted: snake.accepted }), 'accepted mixes snake_case field names into a camelCase message'],
    ['a camelCase payload in a snake_case payment', json({ ...snakeEscrow, payload: wire('camel', ESCROW).payload }), 'payload mixes camelCase field names into a snake_case message'],
    ['no resource', json({ ...snake, resource: undefined }), 'missing field resource'],
    ['a numeric resource url', json({ ...snake, resource: { url: 5 } }), 'resource.url must be a string'],
    ['accepted as a string', json({ ...snake, accepted: 'exact' }), 'accepted must be an object'],
    ['a numeric amount', withAccepted(snake, { amount: 21505 }), `accepted.amount ${notDigits}`],
    ['a decimal amount', withAccepted(camel, { amount: '0.021505' }), `accepted.amount ${notDigits}`],
    ['an amount beyond u64', withAccepted(snake, { amount: '18446744073709551616' }), `accepted.amount ${notDigits}`],
    ['a symbolic network', withAccepted(snake, { network: 'solana-mainnet' }), 'accepted.network must be a CAIP-2 network id'],
    ['a symbolic asset', withAccepted(snake, { asset: 'USDC-SPL' }), 'accepted.asset must be a base58 public key'],
    ['no recipient', withAccepted(snake, { pay_to: undefined }), 'missing field accepted.pay_to'],
    ['a zero timeout', withAccepted(camel, { maxTimeoutSeconds: 0 }), 'accepted.maxTimeoutSeconds must be an integer of at least 1'],
    ['extra as a string', withAccepted(snake, { extra: 'decimals=6' }), 'accepted.extra must be an object'],
    ['an empty payload', json({ ...snake, payload: {} }), 'payload has an unknown shape: expected a transaction, an escrow deposit or a channel voucher'],
    ['fields of two schemes', withPayload(snake, { deposit_tx: snake.payload.transaction }), 'payload mixes fields of the exact and escrow schemes'],
    ['a transaction that is not base64', withPayload(snake, { transaction: 'AQID!' }), 'payload.transaction must be base64'],
    ['a short escrow service id', withPayload(snakeEscrow, { service_id: base64('x'.repeat(31)) }), 'payload.service_id must be base64 of 32 bytes'],
    ['an escrow payment without its agent', withPayload(snakeEscrow, { agent_pubkey: undefined }), 'missing field payload.agent_pubkey'],
    ['a negative channel cumulative', withPayload(camelChannel, { cumulative: '-1' }), `payload.cumulative ${notDigits}`],
  ])('refuses %s with a PaymentPayloadError that says what is wrong', (_, header, message) => {
    const decode = () => decodePaymentSignature(header);
    expect(decode).toThrow(PaymentPayloadError);
    expect(decode).toThrow(new Error(message));
  });

  it('never echoes the input in its messages', () => {
    const secret = `-${'X'.repeat(63)}`;
    for (const bad of [withAccepted(snake, { pay_to: secret }), withPayload(snake, { transaction: secret })]) {
      for (const header of [bad, base64(bad)]) {
        expect(() => decodePaymentSignature(header)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('XXXX') }));
      }
    }
  });
});
