import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { depositInstruction, escrowPda, ESCROW_ERRORS } from '../../../libs/escrow';
import { AGENT_USDC, startEscrowFixture, type EscrowDeposit, type EscrowFixture } from '../../../libs/solana-localnet/testing/escrow-fixture';
import { Secret } from '../../config/secret';
import type { ClaimOrder } from '../../modules/payments/ports/escrow-chain';
import { KeypairFeePayers } from './keypair-fee-payers';
import { SolanaEscrowChain } from './solana-escrow-chain';
import { SolanaPaymentChain } from './solana-payment-chain';

describe('SolanaEscrowChain against the localnet', () => {
  let f: EscrowFixture;
  let feePayers: KeypairFeePayers;
  let chain: SolanaEscrowChain;
  let payments: SolanaPaymentChain;

  beforeEach(async () => {
    f = await startEscrowFixture();
    feePayers = new KeypairFeePayers([new Secret(f.feePayer.secretKey)]);
    chain = new SolanaEscrowChain(f.localnet.url, f.programId.toBase58(), f.mint.toBase58(), f.provider.secretKey, feePayers, 2_000);
    payments = new SolanaPaymentChain(f.localnet.url, feePayers, { rpcTimeoutMs: 2_000, pollIntervalMs: 50 });
  });

  afterEach(() => f.localnet.close());

  const feePayer = () => f.feePayer.publicKey.toBase58();
  const orderFor = (deposit: EscrowDeposit, claimAtomic: bigint): ClaimOrder => ({
    escrow: deposit.escrow.toBase58(),
    agent: f.agent.publicKey.toBase58(),
    serviceId: Buffer.from(deposit.serviceId).toString('base64'),
    claimAtomic,
  });
  const depositTransaction = async (amount = 1_000_000n): Promise<string> => {
    const instruction = depositInstruction({
      programId: f.programId,
      agent: f.agent.publicKey,
      provider: f.provider.publicKey,
      mint: f.mint,
      serviceId: new Uint8Array(randomBytes(32)),
      amount,
      expirySlot: BigInt(f.localnet.slot + 100),
    });
    return Buffer.from((await f.sign([instruction], [f.agent])).serialize()).toString('base64');
  };
  const claim = async (order: ClaimOrder) => {
    const prepared = await chain.claimTransaction(order, feePayer());
    if (!prepared) throw new Error('our fee payer could not sign');
    return prepared;
  };

  it('names the provider of its key', () => {
    expect(chain.provider).toBe(f.provider.publicKey.toBase58());
  });

  it('reads the slot', async () => {
    const before = await payments.slot();
    f.localnet.advanceSlots(3);
    expect(typeof before).toBe('bigint');
    expect(await payments.slot()).toBe(before + 3n);
  });

  it('sees an escrow once its deposit landed', async () => {
    const serviceId = new Uint8Array(randomBytes(32));
    const [escrow] = escrowPda(f.programId, f.agent.publicKey, serviceId);
    expect(await chain.escrowExists(escrow.toBase58())).toBe(false);

    const deposit = await f.deposit({ serviceId });
    expect(await payments.confirm(deposit.signature, 5_000)).toBe('confirmed');

    expect(await chain.escrowExists(escrow.toBase58())).toBe(true);
  });

  describe('simulateDeposit', () => {
    it('passes a funded deposit, without landing it', async () => {
      const wire = await depositTransaction();
      expect(await chain.simulateDeposit(wire)).toEqual({ ok: true, spendableAfter: null });
      expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
    });

    it('finds an agent short of tokens', async () => {
      expect(await chain.simulateDeposit(await depositTransaction(AGENT_USDC + 1n))).toMatchObject({ ok: false, reason: 'insufficient-funds' });
    });

    it('finds an expired blockhash', async () => {
      const wire = await depositTransaction();
      f.localnet.expireBlockhash();
      expect(await chain.simulateDeposit(wire)).toMatchObject({ ok: false, reason: 'blockhash-expired' });
    });

    it('checks the signature', async () => {
      const wire = Buffer.from(await depositTransaction(), 'base64');
      wire[1] ^= 1; // inside the agent's signature
      expect(await chain.simulateDeposit(wire.toString('base64'))).toMatchObject({ ok: false, reason: 'failed' });
    });
  });

  describe('claims', () => {
    it('moves exactly the claimed amount to the provider and the rest back to the agent, paid by our fee payer', async () => {
      const deposit = await f.deposit({ amount: 1_000_000n });
      const feePayerLamports = f.localnet.solBalance(f.feePayer.publicKey);
      const prepared = await claim(orderFor(deposit, 400_000n));

      expect(await chain.sendClaim(prepared)).toEqual({ kind: 'sent' });
      expect(await payments.confirm(prepared.signature, 5_000)).toBe('confirmed');

      expect(f.localnet.usdcBalance(f.provider.publicKey)).toBe(400_000n);
      expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 400_000n);
      expect(await chain.escrowExists(deposit.escrow.toBase58())).toBe(false);
      expect(f.localnet.solBalance(f.feePayer.publicKey)).toBeLessThan(feePayerLamports);
      // Sent again, the same bytes are known.
      expect(await chain.sendClaim(prepared)).toEqual({ kind: 'on-chain' });
    });

    it('reports the program refusing a claim above the deposit', async () => {
      const deposit = await f.deposit({ amount: 1_000_000n });
      expect(await chain.sendClaim(await claim(orderFor(deposit, 1_000_001n)))).toMatchObject({ kind: 'program-error', code: ESCROW_ERRORS.ClaimExceedsDeposit });
    });

    it('reports the program refusing the claim of an expired escrow', async () => {
      const deposit = await f.deposit({ amount: 1_000_000n, expiresIn: 60 });
      f.localnet.advanceSlots(61);
      expect(await chain.sendClaim(await claim(orderFor(deposit, 1n)))).toMatchObject({ kind: 'program-error', code: ESCROW_ERRORS.EscrowExpired });
    });

    it('reports a claim whose blockhash expired as rejected', async () => {
      const deposit = await f.deposit();
      const prepared = await claim(orderFor(deposit, 1n));
      f.localnet.expireBlockhash();
      expect(await chain.sendClaim(prepared)).toMatchObject({ kind: 'rejected' });
      expect(await chain.escrowExists(deposit.escrow.toBase58())).toBe(true);
    });

    it('rests a fee payer that cannot pay the fee', async () => {
      const broke = Keypair.generate();
      const brokeFeePayers = new KeypairFeePayers([new Secret(broke.secretKey)]);
      const brokeChain = new SolanaEscrowChain(f.localnet.url, f.programId.toBase58(), f.mint.toBase58(), f.provider.secretKey, brokeFeePayers, 2_000);
      const markFailed = jest.spyOn(brokeFeePayers, 'markFailed');
      const prepared = await brokeChain.claimTransaction(orderFor(await f.deposit(), 1n), broke.publicKey.toBase58());

      expect(await brokeChain.sendClaim(prepared!)).toMatchObject({ kind: 'rejected' });
      expect(markFailed).toHaveBeenCalledWith(broke.publicKey.toBase58());
    });

    it('builds nothing for a fee payer that is not ours', async () => {
      expect(await chain.claimTransaction(orderFor(await f.deposit(), 1n), Keypair.generate().publicKey.toBase58())).toBeNull();
    });

    it('tells an unreachable node apart from a refusal', async () => {
      const deposit = await f.deposit();
      const prepared = await claim(orderFor(deposit, 1n));
      await f.localnet.close();
      expect(await chain.sendClaim(prepared)).toMatchObject({ kind: 'unknown' });
      await expect(payments.slot()).rejects.toThrow();
    });
  });
});
