import { AccountLayout, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, NONCE_ACCOUNT_LENGTH, PublicKey, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';
import { startLocalnet, type Localnet } from '../../../libs/solana-localnet';
import { fundSponsoredPayment } from '../../../libs/solana-localnet/testing/sponsored-payment';
import { Secret } from '../../config/secret';
import type { ExactExpectations } from '../../modules/payments/domain/exact-payment';
import { KeypairFeePayers } from './keypair-fee-payers';
import { createRpcConnection } from './rpc-connection';
import { SolanaPaymentChain } from './solana-payment-chain';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked, type PaymentParties } from '../../../test/support/payment-transactions';
import { startRpcFaultProxy } from '../../../test/support/rpc-fault-proxy';

const TIMING = { rpcTimeoutMs: 2_000, pollIntervalMs: 50 };

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
    chain = new SolanaPaymentChain(localnet.url, feePayers, TIMING);
    expectations = { payTo: parties.payTo.toBase58(), mint: parties.mint.toBase58(), minimumAmount: 1_000n, allowDurableNonce: false };
  });

  afterEach(() => localnet.close());

  const sponsored = () => toBase64(paymentTransaction(parties, { layout: 'sponsored' }));
  const payerTokenAccount = () => getAssociatedTokenAddressSync(parties.mint, parties.payer.publicKey).toBase58();
  const payerSource = (authority = parties.payer.publicKey) => ({ tokenAccount: payerTokenAccount(), authority: authority.toBase58() });

  describe('blockhashValid', () => {
    it('holds for the current blockhash and no longer once it expired', async () => {
      const transfer = chain.verifyTransfer(sponsored(), expectations);
      expect(await chain.blockhashValid(transfer)).toBe(true);

      localnet.expireBlockhash();

      expect(await chain.blockhashValid(transfer)).toBe(false);
    });

    it('holds for a durable nonce while the nonce account stores it, and not for an uninitialised or missing account', async () => {
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
    it("passes a funded payer's sponsored payment, its fee payer slot still empty, and reads the balance it would leave", async () => {
      expect(await chain.simulate(sponsored(), payerSource())).toEqual({ ok: true, spendableAfter: 9_000n });
    });

    it("reads a delegate's remaining allowance, not the owner's balance, and nothing for a stranger", async () => {
      const delegate = Keypair.generate().publicKey;
      approve(delegate, 500n);
      expect(await chain.simulate(sponsored(), payerSource(delegate))).toEqual({ ok: true, spendableAfter: 500n });
      approve(delegate, 50_000n);
      expect(await chain.simulate(sponsored(), payerSource(delegate))).toEqual({ ok: true, spendableAfter: 9_000n });
      expect(await chain.simulate(sponsored(), payerSource(Keypair.generate().publicKey))).toEqual({ ok: true, spendableAfter: 0n });
    });

    it('reads no balance from an account that is not a token account', async () => {
      expect(await chain.simulate(sponsored(), { tokenAccount: Keypair.generate().publicKey.toBase58(), authority: parties.payer.publicKey.toBase58() })).toEqual({ ok: true, spendableAfter: null });
    });

    it('reports insufficient funds when the payer holds less than the transfer', async () => {
      const tooMuch = paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });

      expect(await chain.simulate(toBase64(tooMuch), payerSource())).toEqual({ ok: false, reason: 'insufficient-funds', detail: expect.stringContaining('"Custom":1') });
    });

    it('reports a payer without a token account as a failure', async () => {
      const stranger = paymentTransaction({ ...parties, payer: Keypair.generate() }, { layout: 'sponsored' });

      expect(await chain.simulate(toBase64(stranger), payerSource())).toEqual({ ok: false, reason: 'failed', detail: '{"InstructionError":[2,"InvalidAccountData"]}' });
    });
  });

  it("reads the latest blockhash with its last valid height and the block height, and a fee payer's lamports", async () => {
    localnet.advanceSlots(7);
    const { blockhash, lastValidBlockHeight } = localnet.latestBlockhash();

    expect(await chain.latestBlockhash()).toEqual({ blockhash, lastValidBlockHeight, blockHeight: 7 });
    expect(await chain.blockHeight()).toBe(7);
    // fundSponsoredPayment gives the fee payer 1 SOL.
    expect(await chain.lamports(parties.gatewayFeePayer.publicKey.toBase58())).toBe(BigInt(LAMPORTS_PER_SOL));
  });

  describe('prepare', () => {
    it('co-signs a sponsored payment with our fee payer, the same bytes every time, its id our signature', () => {
      const payment = sponsored();

      const prepared = chain.prepare(payment);

      expect(prepared).not.toBeNull();
      const signed = VersionedTransaction.deserialize(Buffer.from(prepared!.signedTransaction, 'base64'));
      expect(signed.message.staticAccountKeys[0].equals(parties.gatewayFeePayer.publicKey)).toBe(true);
      expect(signed.signatures[0].some((byte) => byte !== 0)).toBe(true);
      expect(prepared!.signature).toBe(bs58.encode(signed.signatures[0]));
      expect(chain.prepare(payment)).toEqual(prepared);
    });

    it('leaves a client-paid payment as the payer signed it', () => {
      const transaction = paymentTransaction(parties);

      expect(chain.prepare(toBase64(transaction))).toEqual({ signedTransaction: toBase64(transaction), signature: bs58.encode(transaction.signatures[0]) });
    });

    it('answers null when the fee payer it names is one of ours but can no longer sign', () => {
      const keyGone = new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]);
      jest.spyOn(keyGone, 'sign').mockReturnValue(null);
      const pool = new SolanaPaymentChain(localnet.url, keyGone, TIMING);

      expect(pool.prepare(sponsored())).toBeNull();
    });
  });

  describe('send and confirm', () => {
    it('lands a co-signed sponsored payment and moves exactly the amount to the recipient token account', async () => {
      const feePayerLamports = localnet.solBalance(parties.gatewayFeePayer.publicKey);
      const prepared = chain.prepare(sponsored())!;

      expect(await chain.send(prepared)).toEqual({ kind: 'sent' });
      expect(await chain.confirm(prepared.signature, 5_000)).toBe('confirmed');

      expect(localnet.sentTransactions()).toEqual([{ signature: prepared.signature, slot: 0, err: null }]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.usdcBalance(parties.payer.publicKey)).toBe(9_000n);
      expect(localnet.solBalance(parties.gatewayFeePayer.publicKey)).toBeLessThan(feePayerLamports);
    });

    it('lands a client-paid payment as signed, the payer paying the fee', async () => {
      localnet.airdrop(parties.payer.publicKey, LAMPORTS_PER_SOL);
      const feePayerLamports = localnet.solBalance(parties.gatewayFeePayer.publicKey);
      const transaction = paymentTransaction(parties, { version: 'legacy' });
      const prepared = chain.prepare(toBase64(transaction))!;

      expect(await chain.send(prepared)).toEqual({ kind: 'sent' });
      expect(await chain.confirm(prepared.signature, 5_000)).toBe('confirmed');

      expect(localnet.sentTransactions()).toEqual([{ signature: bs58.encode(transaction.signatures[0]), slot: 0, err: null }]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.solBalance(parties.payer.publicKey)).toBeLessThan(BigInt(LAMPORTS_PER_SOL));
      expect(localnet.solBalance(parties.gatewayFeePayer.publicKey)).toBe(feePayerLamports);
    });

    it('refuses, with preflight, a payment the payer can no longer fund: nothing lands and the fee payer pays nothing', async () => {
      // Two keys, so a fee payer wrongly rested would drop out of the rotation.
      const spare = Keypair.generate();
      const feePayers = new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey), new Secret(spare.secretKey)]);
      const pool = new SolanaPaymentChain(localnet.url, feePayers, TIMING);
      const prepared = pool.prepare(sponsored())!;
      // Accepted and co-signed; then the payer moves its whole balance elsewhere.
      const drain = await drainPayer();
      const feePayerLamports = localnet.solBalance(parties.gatewayFeePayer.publicKey);

      expect(await pool.send(prepared)).toEqual({ kind: 'rejected', detail: expect.stringMatching(/custom program error: 0x1|insufficient funds/i) });

      expect(localnet.sentTransactions()).toEqual([{ signature: drain, slot: 0, err: null }]);
      expect(localnet.solBalance(parties.gatewayFeePayer.publicKey)).toBe(feePayerLamports);
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
      expect(await pool.status(prepared.signature)).toBe('absent');
      // The payer's fault, not the fee payer's: both keys stay in the rotation.
      expect(new Set([feePayers.advertise(), feePayers.advertise()])).toEqual(new Set([parties.gatewayFeePayer.publicKey.toBase58(), spare.publicKey.toBase58()]));
    });

    it('rests a fee payer that cannot pay the fee, so the next challenges advertise another key', async () => {
      const broke = Keypair.generate(); // never funded
      const feePayers = new KeypairFeePayers([new Secret(broke.secretKey), new Secret(parties.gatewayFeePayer.secretKey)]);
      const pool = new SolanaPaymentChain(localnet.url, feePayers, TIMING);
      const prepared = pool.prepare(toBase64(paymentTransaction({ ...parties, gatewayFeePayer: broke }, { layout: 'sponsored' })))!;

      expect(await pool.send(prepared)).toEqual({ kind: 'rejected', detail: expect.any(String) });

      expect([feePayers.advertise(), feePayers.advertise()]).toEqual([parties.gatewayFeePayer.publicKey.toBase58(), parties.gatewayFeePayer.publicKey.toBase58()]);
      expect(localnet.sentTransactions()).toEqual([]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('refuses a payment whose blockhash expired', async () => {
      const prepared = chain.prepare(sponsored())!;
      localnet.expireBlockhash();

      expect(await chain.send(prepared)).toEqual({ kind: 'rejected', detail: expect.any(String) });
      expect(localnet.sentTransactions()).toEqual([]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('does not send the same bytes twice: the second send finds the first on chain, and funds move once', async () => {
      const prepared = chain.prepare(sponsored())!;
      expect(await chain.send(prepared)).toEqual({ kind: 'sent' });

      expect(await chain.send(prepared)).toEqual({ kind: 'on-chain' });

      expect(await chain.confirm(prepared.signature, 5_000)).toBe('confirmed');
      expect(localnet.sentTransactions()).toHaveLength(1);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
      expect(localnet.usdcBalance(parties.payer.publicKey)).toBe(9_000n);
    });

    it('reports a payment the payer broadcast itself as on chain, without sending it again', async () => {
      localnet.airdrop(parties.payer.publicKey, LAMPORTS_PER_SOL);
      const payment = toBase64(paymentTransaction(parties));
      await rawSend(payment, false);
      const prepared = chain.prepare(payment)!;

      expect(await chain.send(prepared)).toEqual({ kind: 'on-chain' });

      expect(await chain.confirm(prepared.signature, 5_000)).toBe('confirmed');
      expect(localnet.sentTransactions()).toHaveLength(1);
      expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
    });

    it('reports a payment that landed with an error as failed, and as on chain to a later send', async () => {
      const tooMuch = paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });
      const prepared = chain.prepare(toBase64(tooMuch))!;
      // Preflight would refuse it; skipping it lets it land with its error, the fee paid.
      await rawSend(prepared.signedTransaction, true);

      expect(await chain.confirm(prepared.signature, 5_000)).toBe('failed');
      expect(await chain.send(prepared)).toEqual({ kind: 'on-chain' });
      expect(localnet.sentTransactions()).toEqual([{ signature: prepared.signature, slot: 0, err: expect.objectContaining({ InstructionError: expect.anything() }) }]);
      expect(localnet.usdcBalance(parties.payTo)).toBe(0n);
    });

    it('answers unconfirmed, within the timeout, for a transaction the chain never saw', async () => {
      const prepared = chain.prepare(sponsored())!;
      const started = Date.now();

      expect(await chain.confirm(prepared.signature, 300)).toBe('unconfirmed');

      expect(Date.now() - started).toBeLessThan(1_000);
    });
  });

  describe('status', () => {
    it('is absent before the payment lands and confirmed once it did', async () => {
      const prepared = chain.prepare(sponsored())!;
      expect(await chain.status(prepared.signature)).toBe('absent');

      await chain.send(prepared);

      expect(await chain.status(prepared.signature)).toBe('confirmed');
    });

    it('is failed for a payment that landed with an error', async () => {
      const tooMuch = paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) });
      const prepared = chain.prepare(toBase64(tooMuch))!;
      await rawSend(prepared.signedTransaction, true);

      expect(await chain.status(prepared.signature)).toBe('failed');
    });

    it('looks up several transactions at once, in their order, whatever became of each', async () => {
      const landed = chain.prepare(sponsored())!;
      const never = chain.prepare(toBase64(paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 7n })) })))!;
      const tooMuch = chain.prepare(toBase64(paymentTransaction(parties, { layout: 'sponsored', instructions: paymentInstructions(transferChecked(parties, { amount: 10_001n })) })))!;
      await chain.send(landed);
      await rawSend(tooMuch.signedTransaction, true);

      expect(await chain.statuses([never.signature, landed.signature, tooMuch.signature])).toEqual(['absent', 'confirmed', 'failed']);
      expect(await chain.statuses([])).toEqual([]);
    });
  });

  describe('life', () => {
    it('reads back the id and blockhash of prepared bytes, without a nonce account', () => {
      const prepared = chain.prepare(sponsored())!;

      expect(chain.life(prepared.signedTransaction)).toEqual({ signature: prepared.signature, recentBlockhash: parties.recentBlockhash, nonceAccount: null });
    });

    it('names the nonce account of a durable-nonce payment', () => {
      const nonceAccount = Keypair.generate().publicKey;
      const storedNonce = Keypair.generate().publicKey.toBase58();
      const advance = SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: parties.payer.publicKey });
      const durable = paymentTransaction({ ...parties, recentBlockhash: storedNonce }, { layout: 'sponsored', instructions: [advance, ...paymentInstructions(transferChecked(parties))] });
      const prepared = chain.prepare(toBase64(durable))!;

      expect(chain.life(prepared.signedTransaction)).toEqual({ signature: prepared.signature, recentBlockhash: storedNonce, nonceAccount: nonceAccount.toBase58() });
    });
  });

  describe('when the RPC fails', () => {
    it('counts a send whose answer was lost as unknown, confirms nothing within the timeout, and rejects a status look-up', async () => {
      const unreachable = new SolanaPaymentChain(localnet.url, new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]), { rpcTimeoutMs: 500, pollIntervalMs: 50 });
      const prepared = unreachable.prepare(sponsored())!;
      await localnet.close();

      expect(await unreachable.send(prepared)).toEqual({ kind: 'unknown', detail: expect.stringMatching(/solana rpc request failed/) });
      const started = Date.now();
      expect(await unreachable.confirm(prepared.signature, 300)).toBe('unconfirmed');
      expect(Date.now() - started).toBeLessThan(1_500);
      await expect(unreachable.status(prepared.signature)).rejects.toThrow(/solana rpc request failed/);
      await expect(unreachable.simulate(sponsored(), payerSource())).rejects.toThrow(/solana rpc request failed/);
      await expect(unreachable.latestBlockhash()).rejects.toThrow(/solana rpc request failed/);
    });

    it('sends while the status look-up fails; a node that already processed it says so, which counts as on chain', async () => {
      const proxy = await startRpcFaultProxy(localnet.url);
      try {
        const feePayers = new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey), new Secret(Keypair.generate().secretKey)]);
        const behindProxy = new SolanaPaymentChain(proxy.url, feePayers, TIMING);
        const prepared = behindProxy.prepare(sponsored())!;
        proxy.mode({ kind: 'flaky', every: 1, methods: ['getSignatureStatuses'] });

        expect(await behindProxy.send(prepared)).toEqual({ kind: 'sent' });
        // Again: the node refuses what it already processed.
        expect(await behindProxy.send(prepared)).toEqual({ kind: 'on-chain' });

        expect(localnet.sentTransactions()).toHaveLength(1);
        expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
        expect(new Set([feePayers.advertise(), feePayers.advertise()])).toContain(parties.gatewayFeePayer.publicKey.toBase58());
        proxy.mode({ kind: 'pass' });
        expect(await behindProxy.status(prepared.signature)).toBe('confirmed');
      } finally {
        await proxy.close();
      }
    });

    it('answers unconfirmed within the timeout while the status look-up stalls', async () => {
      const proxy = await startRpcFaultProxy(localnet.url);
      try {
        const behindProxy = new SolanaPaymentChain(proxy.url, new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]), TIMING);
        const prepared = behindProxy.prepare(sponsored())!;
        proxy.mode({ kind: 'silent', methods: ['getSignatureStatuses'] });
        const started = Date.now();

        expect(await behindProxy.confirm(prepared.signature, 300)).toBe('unconfirmed');

        expect(Date.now() - started).toBeLessThan(1_000);
      } finally {
        await proxy.close();
      }
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
    expect(await chain.simulate(transaction, { tokenAccount: transfer.source, authority: transfer.payer })).toEqual({ ok: true, spendableAfter: expect.any(BigInt) });
    const prepared = chain.prepare(transaction)!;
    expect(chain.life(prepared.signedTransaction)).toEqual({ signature: prepared.signature, recentBlockhash: transfer.recentBlockhash, nonceAccount: null });
    expect(await chain.send(prepared)).toEqual({ kind: 'sent' });
    expect(await chain.confirm(prepared.signature, 5_000)).toBe('confirmed');

    expect(localnet.usdcBalance(parties.payTo)).toBe(1_000n);
    const payToAta = getAssociatedTokenAddressSync(parties.mint, parties.payTo);
    expect(transfer.destination).toBe(payToAta.toBase58());
  });

  /** Sends bytes straight to the localnet, as the payer's own wallet would; answers the signature. */
  function rawSend(transactionBase64: string, skipPreflight: boolean): Promise<string> {
    return createRpcConnection(localnet.url, 2_000).sendRawTransaction(Buffer.from(transactionBase64, 'base64'), { skipPreflight, maxRetries: 0 });
  }

  /** The payer moves its whole USDC balance to a token account of its own choosing, paying the fee itself. */
  async function drainPayer(): Promise<string> {
    localnet.airdrop(parties.payer.publicKey, LAMPORTS_PER_SOL);
    const elsewhere = localnet.createTokenAccount(Keypair.generate().publicKey);
    const drain = paymentTransaction(parties, { instructions: [transferChecked(parties, { destination: elsewhere, amount: localnet.usdcBalance(parties.payer.publicKey) })] });
    const signature = await rawSend(toBase64(drain), false);
    expect(localnet.usdcBalance(parties.payer.publicKey)).toBe(0n);
    return signature;
  }

  /** A System-owned nonce account (version 1), initialised or not, storing `nonce`. */
  /** What an SPL Approve leaves in the payer's token account: `delegate` may move `allowance`. */
  function approve(delegate: PublicKey, allowance: bigint): void {
    const address = new PublicKey(payerTokenAccount());
    const stored = localnet.svm.getAccount(address)!;
    const account = AccountLayout.decode(Buffer.from(stored.data));
    const data = Buffer.alloc(AccountLayout.span);
    AccountLayout.encode({ ...account, delegateOption: 1, delegate, delegatedAmount: allowance }, data);
    localnet.svm.setAccount(address, { ...stored, data });
  }

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
