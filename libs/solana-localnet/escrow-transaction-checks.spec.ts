import { ComputeBudgetProgram, Keypair, SendTransactionError, TransactionInstruction, PublicKey } from '@solana/web3.js';
import { claimInstruction, decodeEscrowAccount, depositInstruction, escrowPda, vaultAddress } from '../escrow';
import { AGENT_USDC, startEscrowFixture, type EscrowFixture } from './testing/escrow-fixture';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

describe('escrow program emulation: the runtime checks around its transactions', () => {
  let f: EscrowFixture;

  beforeEach(async () => {
    f = await startEscrowFixture();
  });
  afterEach(() => f.localnet.close());

  const serviceId = new Uint8Array(32).fill(9);
  const deposit = (amount = 1_000_000n): TransactionInstruction =>
    depositInstruction({ programId: f.programId, agent: f.agent.publicKey, provider: f.provider.publicKey, mint: f.mint, serviceId, amount, expirySlot: BigInt(f.localnet.slot + 100) });
  const claim = (actualAmount: bigint): TransactionInstruction =>
    claimInstruction({ programId: f.programId, agent: f.agent.publicKey, provider: f.provider.publicKey, mint: f.mint, serviceId, actualAmount });

  it('refuses a transaction missing a signature (-32003), with or without preflight, but simulates it without sigVerify', async () => {
    await f.send([deposit()], [f.agent]);
    const unsigned = await f.sign([claim(1n)], [f.feePayer], f.feePayer.publicKey); // the provider never signs
    await expect(f.connection.sendRawTransaction(unsigned.serialize())).rejects.toThrow(/signature verification failure/);
    await expect(f.connection.sendRawTransaction(unsigned.serialize(), { skipPreflight: true })).rejects.toThrow(/signature verification failure/);
    await expect(f.connection.simulateTransaction(unsigned, { sigVerify: true })).rejects.toThrow(/signature verification failure/);
    expect((await f.connection.simulateTransaction(unsigned, { sigVerify: false })).value.err).toBeNull();
    expect(f.localnet.sentTransactions()).toHaveLength(1);
  });

  it("refuses a deposit without the agent's signature: -32003 when the message wants it, AccountNotSigner (3010) when it does not", async () => {
    const unsigned = await f.sign([deposit()], [f.feePayer], f.feePayer.publicKey);
    await expect(f.connection.sendRawTransaction(unsigned.serialize(), { skipPreflight: true })).rejects.toThrow(/signature verification failure/);

    const unmarked = deposit();
    unmarked.keys[0] = { ...unmarked.keys[0], isSigner: false };
    await expect(f.send([unmarked], [f.feePayer])).rejects.toThrow(/custom program error: 0xbc2/);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
  });

  it('refuses an expired blockhash and a replay, charging nothing', async () => {
    const stale = await f.sign([deposit()], [f.agent]);
    f.localnet.expireBlockhash();
    await expect(f.connection.sendRawTransaction(stale.serialize())).rejects.toThrow(/Blockhash not found/);
    await expect(f.connection.sendRawTransaction(stale.serialize(), { skipPreflight: true })).rejects.toThrow(/Blockhash not found/);
    expect((await f.connection.simulateTransaction(stale, { replaceRecentBlockhash: true })).value.err).toBeNull();

    const lamports = f.localnet.solBalance(f.agent.publicKey);
    const wire = (await f.sign([deposit()], [f.agent])).serialize();
    await f.connection.sendRawTransaction(wire);
    await expect(f.connection.sendRawTransaction(wire)).rejects.toThrow(/already been processed/);
    await expect(f.connection.sendRawTransaction(wire, { skipPreflight: true })).rejects.toThrow(/already been processed/);
    expect(f.localnet.sentTransactions()).toHaveLength(1);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 1_000_000n);
    expect(f.localnet.solBalance(f.agent.publicKey)).toBe(lamports - 5000n - 1_955_760n - 2_039_280n);
  });

  it('simulates with the post-state of the accounts asked for, writing nothing', async () => {
    const [escrow] = escrowPda(f.programId, f.agent.publicKey, serviceId);
    const vault = vaultAddress(f.programId, f.agent.publicKey, serviceId, f.mint);
    const transaction = await f.sign([deposit(250_000n)], [f.agent]);
    const { value } = await f.connection.simulateTransaction(transaction, {
      sigVerify: true,
      accounts: { encoding: 'base64', addresses: [escrow.toBase58(), vault.toBase58(), f.ata(f.agent.publicKey).toBase58()] },
    });
    expect(value.err).toBeNull();
    expect(value.logs).toContain('Program log: Instruction: Deposit');
    expect(value.unitsConsumed).toBeGreaterThan(0);
    const [escrowAfter, vaultAfter, agentTokenAfter] = (value.accounts ?? []).map((account) => Buffer.from(account?.data[0] ?? '', 'base64'));
    expect(decodeEscrowAccount(escrowAfter).amount).toBe(250_000n);
    expect(vaultAfter.readBigUInt64LE(64)).toBe(250_000n); // the token account's amount field
    expect(agentTokenAfter.readBigUInt64LE(64)).toBe(AGENT_USDC - 250_000n);

    expect(await f.connection.getAccountInfo(escrow)).toBeNull();
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
    expect(f.localnet.sentTransactions()).toEqual([]);
  });

  it("simulates a claim: closed accounts come back with no lamports, the provider's new token account with its pay", async () => {
    await f.send([deposit(250_000n)], [f.agent]);
    const [escrow] = escrowPda(f.programId, f.agent.publicKey, serviceId);
    const transaction = await f.sign([claim(100_000n)], [f.feePayer, f.provider]);
    const addresses = [escrow, vaultAddress(f.programId, f.agent.publicKey, serviceId, f.mint), f.ata(f.provider.publicKey)].map((key) => key.toBase58());
    const { value } = await f.connection.simulateTransaction(transaction, { sigVerify: true, accounts: { encoding: 'base64', addresses } });
    expect(value.err).toBeNull();
    const [escrowAfter, vaultAfter, providerTokenAfter] = value.accounts ?? [];
    expect([escrowAfter?.lamports, vaultAfter?.lamports, escrowAfter?.data[0], vaultAfter?.data[0]]).toEqual([0, 0, '', '']);
    expect(Buffer.from(providerTokenAfter?.data[0] ?? '', 'base64').readBigUInt64LE(64)).toBe(100_000n);
    expect(f.localnet.escrowAccount(escrow)?.amount).toBe(250_000n);
    expect(await f.connection.getAccountInfo(f.ata(f.provider.publicKey))).toBeNull();
  });

  it('lands a failing claim sent without preflight: it pays its fee and nothing else moves', async () => {
    await f.send([deposit(500_000n)], [f.agent]);
    const lamports = f.localnet.solBalance(f.feePayer.publicKey);
    const signature = await f.connection.sendRawTransaction((await f.sign([claim(600_000n)], [f.feePayer, f.provider])).serialize(), { skipPreflight: true });

    const [status] = (await f.connection.getSignatureStatuses([signature])).value;
    expect(status?.err).toEqual({ InstructionError: [0, { Custom: 6002 }] });
    expect(f.localnet.solBalance(f.feePayer.publicKey)).toBe(lamports - 10_000n);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 500_000n);
    expect(f.localnet.usdcBalance(f.provider.publicKey)).toBe(0n);
    const landed = await f.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.logMessages).toContain(`Program ${f.programId.toBase58()} failed: custom program error: 0x1772`);
    expect(f.localnet.sentTransactions()[1]).toEqual({ signature, slot: 0, err: { InstructionError: [0, { Custom: 6002 }] } });
  });

  it('runs ComputeBudget instructions alongside, charging the priority fee getFeeForMessage quotes', async () => {
    const budget = [ComputeBudgetProgram.setComputeUnitLimit({ units: 60_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 })];
    const transaction = await f.sign([...budget, deposit()], [f.agent]);
    const quoted = (await f.connection.getFeeForMessage(transaction.message)).value;
    expect(quoted).toBe(65_000);
    const before = f.localnet.solBalance(f.agent.publicKey);
    await f.connection.sendRawTransaction(transaction.serialize());
    expect(before - f.localnet.solBalance(f.agent.publicKey)).toBe(65_000n + 1_955_760n + 2_039_280n);

    const starved = await f.sign([ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000 }), claim(1n)], [f.feePayer, f.provider]);
    await expect(f.connection.sendRawTransaction(starved.serialize())).rejects.toThrow(/ComputationalBudgetExceeded/);
  });

  it('refuses a transaction mixing the escrow with another program, before charging anything', async () => {
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from('note') });
    const lamports = f.localnet.solBalance(f.agent.publicKey);
    const transaction = await f.sign([deposit(), memo], [f.agent]);
    const failure = await f.connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SendTransactionError);
    expect((failure as SendTransactionError).message).toMatch(/UnsupportedProgramId/);
    expect(f.localnet.solBalance(f.agent.publicKey)).toBe(lamports);
  });

  it('fails a deposit that would leave the agent below the rent-exempt minimum, charging the fee', async () => {
    const poor = Keypair.generate();
    f.localnet.airdrop(poor.publicKey, 4_500_000);
    f.localnet.fundUsdc(poor.publicKey, 10n);
    const instruction = depositInstruction({ programId: f.programId, agent: poor.publicKey, provider: f.provider.publicKey, mint: f.mint, serviceId, amount: 10n, expirySlot: 100n });
    const signature = await f.connection.sendRawTransaction((await f.sign([instruction], [poor])).serialize(), { skipPreflight: true });
    expect((await f.connection.getSignatureStatuses([signature])).value[0]?.err).toEqual({ InsufficientFundsForRent: { account_index: 0 } });
    expect(f.localnet.solBalance(poor.publicKey)).toBe(4_500_000n - 5000n);
    expect(f.localnet.usdcBalance(poor.publicKey)).toBe(10n);
  });
});
