import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, NONCE_ACCOUNT_LENGTH, PublicKey, SystemProgram } from '@solana/web3.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';
import { startLocalnet, type Localnet } from '../../../libs/solana-localnet';
import { fundSponsoredPayment } from '../../../libs/solana-localnet/testing/sponsored-payment';
import { Secret } from '../../config/secret';
import type { ExactExpectations } from '../../modules/payments/domain/exact-payment';
import { KeypairFeePayers } from './keypair-fee-payers';
import { SolanaPaymentChain } from './solana-payment-chain';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked, type PaymentParties } from '../../../test/support/payment-transactions';

describe('SolanaPaymentChain against the localnet', () => {
  let localnet: Localnet;
  let parties: PaymentParties;
  let chain: SolanaPaymentChain;
  let expectations: ExactExpectations;

  beforeEach(async () => {
    localnet = await startLocalnet();
    const { mint, payer, recipient, feePayer } = fundSponsoredPayment(localnet, 10_000n);
    parties = { mint, payTo: recipient.publicKey, payer, gatewayFeePayer: feePayer, recentBlockhash: localnet.latestBlockhash().blockhash };
    const feePayers = new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]);
    chain = new SolanaPaymentChain(localnet.url, feePayers, { rpcTimeoutMs: 2_000, confirmationTimeoutMs: 5_000, pollIntervalMs: 50 });
    expectations = { payTo: parties.payTo.toBase58(), mint: parties.mint.toBase58(), minimumAmount: 1_000n, allowDurableNonce: false };
  });

  afterEach(() => localnet.close());

  const sponsored = () => toBase64(paymentTransaction(parties, { layout: 'sponsored' }));

  describe('blockhashValid', () => {
    it('holds for the current blockhash and no longer once it expired', async () => {
      const transfer = chain.verifyTransfer(sponsored(), expectations);
      expect(await chain.blockhashValid(transfer)).toBe(true);

      localnet.expireBlockhash();

      expect(await chain.blockhashValid(transfer)).toBe(false);
    });

    it("holds for a durable nonce while the nonce account stores it, and not for an uninitialised or missing account", async () => {
      const nonceAccount = Keypair.generate().publicKey;
      const storedNonce = Keypair.generate().publicKey;
      writeNonceAccount(nonceAccount, storedNonce, true);
      const named = (recentBlockhash: string, account = nonceAccount) => ({ recentBlockhash, nonceAccount: account.toBase58() });

      expect(await chain.blockhashValid(named(storedNonce.toBase58()))).toBe(true);
      expect(await chain.blockhashValid(named(parties.recentBlockhash))).toBe(false);
      expect(await chain.blockhashValid(named(storedNonce.toBase58(), Keypair.generate().publicKey))).toBe(false);

      writeNonceAccount(nonceAccount, PublicKey.default, false);
      expect(await chain.blockhashValid(named(PublicKey.default.toBase58()))).toBe(false);
    });
  });

  describe('simulate', () => {
    it("passes a funded payer's sponsored payment, its fee payer slot still empty", async () => {
      expect(await chain.simulate(sponsored())).toEqual({ ok: true });
    });

    it('reports insufficient funds when the payer holds less than the transfer', async () => {
      const tooMuch = paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });

      expect(await chain.simulate(toBase64(tooMuch))).toEqual({ ok: false, reason: 'insufficient-funds', detail: expect.stringContaining('"Custom":1') });
    });

    it('reports a payer without a token account as a failure', async () => {
      const stranger = paymentTransaction({ ...parties, payer: Keypair.generate() }, { layout: 'sponsored' });

      expect(await chain.simulate(toBase64(stranger))).toEqual({ ok: false, reason: 'failed', detail: '{"InstructionError":[2,"InvalidAccountData"]}' });
    });
  });

  describe('broadcast', () => {
    it('rests a fee payer that cannot pay the fee, so the next challenges advertise another key', async () => {
      const broke = Keypair.generate(); // never funded
      const feePayers = new KeypairFeePayers([new Secret(broke.secretKey), new Secret(parties.gatewayFeePayer.secretKey)]);
      const pool = new SolanaPaymentChain(localnet.url, feePayers, { rpcTimeoutMs: 2_000, confirmationTimeoutMs: 5_000, pollIntervalMs: 50 });
      const unpayable = toBase64(paymentTransaction({ ...parties, gatewayFeePayer: broke }, { layout: 'sponsored' }));

      expect(await pool.broadcast(unpayable)).toMatchObject({ ok: false, reason: 'rejected' });
      expect([feePayers.advertise(), feePayers.advertise()]).toEqual([parties.gatewayFeePayer.publicKey.toBase58(), parties.gatewayFeePayer.publicKey.toBase58()]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('co-signs a sponsored payment and moves exactly the amount to the recipient token account', async () => {
      const feePayerLamports = localnet.solBalance(parties.gatewayFeePayer.publicKey);

      const outcome = await chain.broadcast(sponsored());

      expect(outcome).toEqual({ ok: true, signature: expect.any(String) });
      expect(localnet.sentTransactions()).toEqual([{ signature: outcome.signature, slot: 0, err: null }]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.usdcBalance(parties.payer.publicKey)).toBe(9_000n);
      expect(localnet.solBalance(parties.gatewayFeePayer.publicKey)).toBeLessThan(feePayerLamports);
    });

    it('does not send a transaction twice: a second broadcast reports the first landing, and funds move once', async () => {
      const payment = sponsored();
      const first = await chain.broadcast(payment);
      expect(first).toEqual(expect.objectContaining({ ok: true }));

      expect(await chain.broadcast(payment)).toEqual(first);

      expect(localnet.sentTransactions()).toHaveLength(1);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.usdcBalance(parties.payer.publicKey)).toBe(9_000n);
    });

    it('reports a payment whose blockhash expired as rejected', async () => {
      const payment = sponsored();
      localnet.expireBlockhash();

      expect(await chain.broadcast(payment)).toEqual(expect.objectContaining({ ok: false, reason: 'rejected' }));
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it("sends a client-paid payment as signed, the payer paying the fee", async () => {
      localnet.airdrop(parties.payer.publicKey, LAMPORTS_PER_SOL);
      const transaction = paymentTransaction(parties, { version: 'legacy' });

      const outcome = await chain.broadcast(toBase64(transaction));

      expect(outcome).toEqual({ ok: true, signature: bs58.encode(transaction.signatures[0]) });
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.solBalance(parties.payer.publicKey)).toBeLessThan(BigInt(LAMPORTS_PER_SOL));
    });

    it('reports a transaction that already landed with an error as failed, never as paid', async () => {
      localnet.airdrop(parties.payer.publicKey, LAMPORTS_PER_SOL);
      const overdraft = paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });
      // The payer broadcasts it first (skipPreflight lets it land, failed), then the gateway settles.
      const sent = await fetch(localnet.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [toBase64(overdraft), { encoding: 'base64', skipPreflight: true }] }),
      });
      expect(((await sent.json()) as { result?: string }).result).toEqual(expect.any(String));

      expect(await chain.broadcast(toBase64(overdraft))).toEqual(expect.objectContaining({ ok: false, reason: 'failed' }));
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('reports a payment that landed with an error as failed', async () => {
      const tooMuch = paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });

      const outcome = await chain.broadcast(toBase64(tooMuch));

      expect(outcome).toEqual({ ok: false, reason: 'failed', signature: expect.any(String), detail: expect.stringContaining('InstructionError') });
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('answers a failure, never an exception, when the RPC cannot be reached', async () => {
      const unreachable = new SolanaPaymentChain(localnet.url, new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]), { rpcTimeoutMs: 500 });
      await localnet.close();

      expect(await unreachable.broadcast(sponsored())).toEqual(expect.objectContaining({ ok: false, reason: 'rejected' }));
      await expect(unreachable.simulate(sponsored())).rejects.toThrow(/solana rpc request failed/);
    });
  });

  it('checks, simulates and settles a payment built by the official x402 client', async () => {
    const signer = await createKeyPairSignerFromBytes(parties.payer.secretKey);
    const payment = await new ExactSvmScheme(signer, { rpcUrl: localnet.url }).createPaymentPayload(2, {
      scheme: 'exact',
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      amount: '1000',
      asset: parties.mint.toBase58(),
      payTo: parties.payTo.toBase58(),
      maxTimeoutSeconds: 300,
      extra: { decimals: 6, feePayer: parties.gatewayFeePayer.publicKey.toBase58() },
    });
    const transaction = String(payment.payload.transaction);

    const transfer = chain.verifyTransfer(transaction, expectations);
    expect(transfer).toEqual(expect.objectContaining({ layout: 'sponsored', amount: 1_000n }));
    expect(await chain.blockhashValid(transfer)).toBe(true);
    expect(await chain.simulate(transaction)).toEqual({ ok: true });
    expect(await chain.broadcast(transaction)).toEqual(expect.objectContaining({ ok: true }));

    expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
    const payToAta = getAssociatedTokenAddressSync(parties.mint, parties.payTo);
    expect(transfer.destination).toBe(payToAta.toBase58());
  });

  /** A System-owned nonce account (version 1), initialised or not, storing `nonce`. */
  function writeNonceAccount(address: PublicKey, nonce: PublicKey, initialized: boolean): void {
    const data = Buffer.alloc(NONCE_ACCOUNT_LENGTH);
    data.writeUInt32LE(1, 0);
    data.writeUInt32LE(initialized ? 1 : 0, 4);
    parties.payer.publicKey.toBuffer().copy(data, 8);
    nonce.toBuffer().copy(data, 40);
    data.writeBigUInt64LE(5_000n, 72);
    localnet.svm.setAccount(address, { lamports: LAMPORTS_PER_SOL, data, owner: SystemProgram.programId, executable: false, rentEpoch: 0 });
  }
});
