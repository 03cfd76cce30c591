import { createPublicKey, verify } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { Secret } from '../../config/secret';
import { FEE_PAYER_COOLDOWN_MS, KeypairFeePayers } from './keypair-fee-payers';

describe('KeypairFeePayers', () => {
  const keys = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  const addresses = keys.map((key) => key.publicKey.toBase58());
  let now = 1_000_000;
  const pool = (): KeypairFeePayers =>
    new KeypairFeePayers(
      keys.map((key) => new Secret(key.secretKey)),
      () => now,
    );

  it('advertises the keys in turn', () => {
    const payers = pool();
    expect([payers.advertise(), payers.advertise(), payers.advertise(), payers.advertise()]).toEqual([...addresses, addresses[0]]);
  });

  it('skips a key for 60 s after it failed, then uses it again', () => {
    const payers = pool();
    payers.markFailed(addresses[1]);
    expect([payers.advertise(), payers.advertise(), payers.advertise()]).toEqual([addresses[0], addresses[2], addresses[0]]);
    now += FEE_PAYER_COOLDOWN_MS;
    expect([payers.advertise(), payers.advertise()]).toContain(addresses[1]);
  });

  it('still advertises the least recently failed key when all are resting', () => {
    const payers = pool();
    payers.markFailed(addresses[2]);
    now += 10;
    payers.markFailed(addresses[0]);
    payers.markFailed(addresses[1]);
    expect(payers.advertise()).toBe(addresses[2]);
  });

  it('knows its own keys and signs only with them, with signatures that verify', () => {
    const payers = pool();
    const message = Buffer.from('a message to sign');
    expect(payers.owns(addresses[0])).toBe(true);
    expect(payers.owns(Keypair.generate().publicKey.toBase58())).toBe(false);
    expect(payers.sign(Keypair.generate().publicKey.toBase58(), message)).toBeNull();
    const signature = payers.sign(addresses[0], message) as Uint8Array;
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), keys[0].publicKey.toBuffer()]);
    expect(verify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature)).toBe(true);
  });

  it('has nothing to advertise without keys', () => {
    expect(new KeypairFeePayers([]).advertise()).toBeNull();
  });
});
