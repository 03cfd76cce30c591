import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodePaymentSignature } from '../x402';
import { CHAT, MAINNET, PAY_TO, USDC_MINT } from '../x402/testing/samples';
import { voucherMessage } from './messages';
import { channelPaymentSignature } from './payment-header';
import { ChannelSigner, verifySignature } from './signer';

const signer = new ChannelSigner(Keypair.generate());
const fields = {
  channelId: new Uint8Array(32).fill(0x11),
  cumulative: 2625n,
  expirySlot: 1_000_750n,
  nonce: 42n,
  requestDigest: new Uint8Array(32).fill(0x22),
};
const voucher = { ...fields, signature: signer.signVoucher(fields) };
const offer = { scheme: 'exact', network: MAINNET, amount: '21505', asset: USDC_MINT, payTo: PAY_TO, maxTimeoutSeconds: 300 } as const;

describe('channelPaymentSignature', () => {
  const quote = { resource: CHAT, offer, amount: 21505n };

  it('is a PaymentPayload that libs/x402 decodes as a channel voucher', () => {
    const payment = decodePaymentSignature(channelPaymentSignature(quote, voucher));
    expect(payment.resource).toEqual(CHAT);
    expect(payment.accepted).toEqual({ ...offer, scheme: 'channel', amount: '21505', escrowProgramId: undefined, extra: undefined });
    expect(payment.payload).toEqual({
      kind: 'channel',
      voucher: {
        channelId: bs58.encode(fields.channelId),
        cumulative: '2625',
        expirySlot: 1_000_750,
        nonce: 42,
        requestDigest: Buffer.alloc(32, 0x22).toString('base64'),
        signature: Buffer.from(voucher.signature).toString('base64'),
      },
    });
  });

  it('is written in snake_case, the spec form', () => {
    const json = JSON.parse(Buffer.from(channelPaymentSignature(quote, voucher), 'base64').toString('utf8'));
    expect(Object.keys(json.payload).sort()).toEqual(['channel_id', 'cumulative', 'expiry_slot', 'nonce', 'request_digest', 'signature']);
    expect(json.accepted).toMatchObject({ pay_to: PAY_TO, max_timeout_seconds: 300 });
  });

  it('carries a signature that verifies over the voucher rebuilt from the payload', () => {
    const { voucher: sent } = decodePaymentSignature(channelPaymentSignature(quote, voucher)).payload as { voucher: Record<string, unknown> };
    const rebuilt = voucherMessage({
      channelId: bs58.decode(sent.channelId as string),
      cumulative: BigInt(sent.cumulative as string),
      expirySlot: BigInt(sent.expirySlot as number),
      nonce: BigInt(sent.nonce as number),
      requestDigest: Buffer.from(sent.requestDigest as string, 'base64'),
    });
    expect(verifySignature(rebuilt, Buffer.from(sent.signature as string, 'base64'), signer.publicKey)).toBe(true);
  });

  it.each([{ expirySlot: 1n << 53n }, { nonce: 1n << 53n }])('refuses %o, which JSON cannot carry exactly', (tooLarge) => {
    expect(() => channelPaymentSignature(quote, { ...voucher, ...tooLarge })).toThrow(RangeError);
  });
});
