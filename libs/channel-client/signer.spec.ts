import { createPublicKey, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { closeMessage, voucherMessage } from './messages';
import { ChannelSigner, verifySignature } from './signer';
import { GOLDEN_VOUCHER as voucher } from './testing/golden-voucher';

describe('ChannelSigner', () => {
  const keypair = Keypair.generate();

  it('takes a web3.js Keypair or its 64-byte secret key, and names the public key in base58', () => {
    expect(new ChannelSigner(keypair).publicKey).toBe(keypair.publicKey.toBase58());
    expect(new ChannelSigner(keypair.secretKey).publicKey).toBe(keypair.publicKey.toBase58());
  });

  it('signs the voucher and close messages, as verifySignature checks', () => {
    const signer = new ChannelSigner(keypair);
    const signature = signer.signVoucher(voucher);
    expect(signature).toHaveLength(64);
    expect(verifySignature(voucherMessage(voucher), signature, signer.publicKey)).toBe(true);
    expect(verifySignature(closeMessage(voucher.channelId), signer.signClose(voucher.channelId), signer.publicKey)).toBe(true);
    expect(verifySignature(voucherMessage({ ...voucher, cumulative: 2626n }), signature, signer.publicKey)).toBe(false);
    expect(verifySignature(voucherMessage(voucher), signature, Keypair.generate().publicKey.toBase58())).toBe(false);
  });

  it('refuses a secret key of the wrong size, or whose public half is not its seed’s', () => {
    expect(() => new ChannelSigner(keypair.secretKey.subarray(0, 32))).toThrow('a secret key must be 64 bytes (got 32)');
    const mismatched = Uint8Array.from([...keypair.secretKey.subarray(0, 32), ...Keypair.generate().publicKey.toBytes()]);
    expect(() => new ChannelSigner(mismatched)).toThrow('the secret key does not hold the public key of its seed');
  });
});

describe('verifySignature', () => {
  const signer = new ChannelSigner(Keypair.generate());
  const message = voucherMessage(voucher);
  const signature = signer.signVoucher(voucher);

  it.each([
    ['a signature of 63 bytes', message, signature.subarray(0, 63), signer.publicKey],
    ['a key that is not base58', message, signature, '0OIl'],
    ['a key of 31 bytes', message, signature, bs58.encode(new Uint8Array(31).fill(1))],
    ['a flipped signature bit', message, Uint8Array.from(signature, (byte, index) => (index === 0 ? byte ^ 1 : byte)), signer.publicKey],
  ])('answers false, without throwing, on %s', (_, checked, checkedSignature, key) => {
    expect(verifySignature(checked, checkedSignature, key)).toBe(false);
  });
});

describe('verifySignature on keys of small order', () => {
  const { ExtendedPoint } = ed25519;
  const order8 = ExtendedPoint.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
  const torsion = Array.from({ length: 8 }, (_, multiple) => (multiple === 0 ? ExtendedPoint.ZERO : order8.multiply(BigInt(multiple))));
  // R = the identity and S = 0 satisfy [S]B = R + [k]A whenever [k]A is the identity: one message in at most 8.
  const forged = Uint8Array.from([...ExtendedPoint.ZERO.toRawBytes(), ...new Uint8Array(32)]);

  it.each(torsion.map((point) => [Buffer.from(point.toRawBytes()).toString('hex'), point]))('refuses %s, of small order as noble reckons, where OpenSSL accepts a forgery', (_, point) => {
    expect(point.isSmallOrder()).toBe(true);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), point.toRawBytes()]);
    const messages = Array.from({ length: 64 }, (_, nonce) => voucherMessage({ ...voucher, nonce: BigInt(nonce) }));
    const accepted = messages.find((message) => verify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), forged));
    expect(accepted).toBeDefined();
    expect(verifySignature(accepted!, forged, bs58.encode(point.toRawBytes()))).toBe(false);
  });
});

/** An independent ed25519 (@noble/curves) holds node:crypto's signing and verifying to RFC 8032. */
describe('against @noble/curves', () => {
  it('verifies what noble signed', () => {
    const seed = ed25519.utils.randomPrivateKey();
    const publicKey = bs58.encode(ed25519.getPublicKey(seed));
    const message = voucherMessage(voucher);
    expect(verifySignature(message, ed25519.sign(message, seed), publicKey)).toBe(true);
  });

  it('signs what noble verifies, byte for byte as noble signs it (ed25519 is deterministic)', () => {
    const seed = ed25519.utils.randomPrivateKey();
    const signer = new ChannelSigner(Uint8Array.from([...seed, ...ed25519.getPublicKey(seed)]));
    const message = voucherMessage(voucher);
    const signature = signer.signVoucher(voucher);
    expect(ed25519.verify(signature, message, bs58.decode(signer.publicKey))).toBe(true);
    expect(signature).toEqual(ed25519.sign(message, seed));
  });
});
