import { X402DecodeError } from './errors';
import { decodePaymentResponseHeader, encodePaymentResponseHeader, type SettleResponse } from './payment-response';
import { AGENT, MAINNET } from './testing/samples';

const settled: SettleResponse = { success: true, transaction: '5'.repeat(88), network: MAINNET, payer: AGENT };
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('the PAYMENT-RESPONSE header', () => {
  it.each<[string, SettleResponse]>([
    ['a settlement', settled],
    ['a failed settlement', { success: false, transaction: '', network: MAINNET, errorReason: 'transaction_failed' }],
  ])('round-trips %s', (_, settle) => {
    expect(decodePaymentResponseHeader(encodePaymentResponseHeader(settle))).toEqual(settle);
  });

  it.each([
    ['raw JSON', JSON.stringify(settled), 'PAYMENT-RESPONSE is not base64'],
    ['no success flag', base64({ ...settled, success: undefined }), 'missing field success'],
    ['success as a string', base64({ ...settled, success: 'true' }), 'success must be a boolean'],
    ['a symbolic network', base64({ ...settled, network: 'solana' }), 'network must be a CAIP-2 network id'],
    ['snake_case names', base64({ ...settled, error_reason: 'x' }), 'the top-level object mixes snake_case field names into a camelCase message'],
  ])('refuses %s', (_, value, message) => {
    const decode = () => decodePaymentResponseHeader(value);
    expect(decode).toThrow(X402DecodeError);
    expect(decode).toThrow(new Error(message));
  });
});
