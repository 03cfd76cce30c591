import { ACCOUNT_SIZE, AccountLayout } from '@solana/spl-token';
import { Keypair, SendTransactionError, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { claimInstruction, decodeEscrowAccount, depositInstruction, ESCROW_ACCOUNT_SIZE, refundInstruction } from '../escrow';
import { AGENT_USDC, startEscrowFixture, type EscrowFixture } from './testing/escrow-fixture';

const ESCROW_RENT = 1_955_760n; // rent-exempt minimum for 153 bytes
const TOKEN_ACCOUNT_RENT = 2_039_280n; // for 165 bytes

describe('escrow program emulation: deposit, claim, refund', () => {
  let f: EscrowFixture;

  beforeEach(async () => {
    f = await startEscrowFixture();
  });
  afterEach(() => f.localnet.close());
  // web3.js's confirmTransaction leaves a block-height poll sleeping after it resolves.
  afterAll(() => new Promise((resolve) => setTimeout(resolve, 1000)));

  const claim = (escrowServiceId: Uint8Array, actualAmount: bigint, provider = f.provider.publicKey): TransactionInstruction =>
    claimInstruction({ programId: f.programId, agent: f.agent.publicKey, provider, mint: f.mint, serviceId: escrowServiceId, actualAmount });
  const refund = (serviceId: Uint8Array, agent = f.agent.publicKey): TransactionInstruction => refundInstruction({ programId: f.programId, agent, mint: f.mint, serviceId });

  async function rejection(promise: Promise<unknown>): Promise<string> {
    const failure = await promise.then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(SendTransactionError);
    return (failure as SendTransactionError).message;
  }

  it('moves the deposit into the vault and creates the escrow account, paid by the agent', async () => {
    const lamportsBefore = f.localnet.solBalance(f.agent.publicKey);
    const deposit = await f.deposit({ amount: 1_250_000n });

    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 1_250_000n);
    expect((await f.connection.getTokenAccountBalance(deposit.vault)).value.amount).toBe('1250000');
    expect(f.localnet.solBalance(f.agent.publicKey)).toBe(lamportsBefore - 5000n - ESCROW_RENT - TOKEN_ACCOUNT_RENT);

    const [escrowInfo, vaultInfo] = await f.connection.getMultipleAccountsInfo([deposit.escrow, deposit.vault]);
    expect(escrowInfo?.owner.equals(f.programId)).toBe(true);
    expect(escrowInfo?.data).toHaveLength(ESCROW_ACCOUNT_SIZE);
    expect(BigInt(escrowInfo?.lamports ?? 0)).toBe(ESCROW_RENT);
    const escrow = decodeEscrowAccount(escrowInfo?.data ?? new Uint8Array());
    expect(escrow).toEqual(f.localnet.escrowAccount(deposit.escrow));
    expect(escrow).toEqual(expect.objectContaining({ amount: 1_250_000n, expirySlot: deposit.expirySlot, serviceId: deposit.serviceId }));
    expect(escrow.agent.equals(f.agent.publicKey) && escrow.provider.equals(f.provider.publicKey) && escrow.mint.equals(f.mint)).toBe(true);
    expect(AccountLayout.decode(vaultInfo?.data ?? Buffer.alloc(ACCOUNT_SIZE)).owner.equals(deposit.escrow)).toBe(true);

    const landed = await f.connection.getTransaction(deposit.signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.fee).toBe(5000);
    expect(landed?.meta?.logMessages).toEqual(
      expect.arrayContaining([`Program ${f.programId.toBase58()} invoke [1]`, 'Program log: Instruction: Deposit', `Program ${f.programId.toBase58()} success`]),
    );
    const keys = landed?.transaction.message.staticAccountKeys ?? [];
    const vaultIndex = keys.findIndex((key) => key.equals(deposit.vault));
    expect(landed?.meta?.preTokenBalances?.some((balance) => balance.accountIndex === vaultIndex)).toBe(false);
    expect(landed?.meta?.postTokenBalances?.find((balance) => balance.accountIndex === vaultIndex)?.uiTokenAmount.amount).toBe('1250000');
    expect(f.localnet.sentTransactions()).toEqual([{ signature: deposit.signature, slot: 0, err: null }]);
  });

  it("claims part with the gateway's fee payer: the provider is paid exactly, the agent gets the rest and both rents back", async () => {
    const deposit = await f.deposit({ amount: 1_000_000n });
    const agentLamports = f.localnet.solBalance(f.agent.publicKey);
    const providerLamports = f.localnet.solBalance(f.provider.publicKey);
    const feePayerLamports = f.localnet.solBalance(f.feePayer.publicKey);

    const transaction = await f.sign([claim(deposit.serviceId, 400_000n)], [f.feePayer, f.provider]);
    const signature = await f.connection.sendRawTransaction(transaction.serialize());
    const { blockhash, lastValidBlockHeight } = f.localnet.latestBlockhash();
    expect((await f.connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();

    expect(f.localnet.usdcBalance(f.provider.publicKey)).toBe(400_000n);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 400_000n);
    expect(f.localnet.solBalance(f.feePayer.publicKey)).toBe(feePayerLamports - 10_000n);
    expect(f.localnet.solBalance(f.provider.publicKey)).toBe(providerLamports - TOKEN_ACCOUNT_RENT); // init_if_needed: the provider's new token account
    expect(f.localnet.solBalance(f.agent.publicKey)).toBe(agentLamports + ESCROW_RENT + TOKEN_ACCOUNT_RENT);
    expect(await f.connection.getMultipleAccountsInfo([deposit.escrow, deposit.vault])).toEqual([null, null]);
    expect(f.localnet.escrowAccount(deposit.escrow)).toBeNull();

    const landed = await f.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.fee).toBe(10_000);
    expect(landed?.meta?.logMessages).toContain('Program log: Instruction: Claim');
    const providerIndex = landed?.transaction.message.staticAccountKeys.findIndex((key) => key.equals(f.ata(f.provider.publicKey)));
    expect(landed?.meta?.postTokenBalances?.find((balance) => balance.accountIndex === providerIndex)?.uiTokenAmount.amount).toBe('400000');
  });

  it('claims 0 as a full refund, the provider paying the fee into its existing token account', async () => {
    f.localnet.createTokenAccount(f.provider.publicKey);
    const deposit = await f.deposit({ amount: 700_000n });
    await f.send([claim(deposit.serviceId, 0n)], [f.provider]);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
    expect(f.localnet.usdcBalance(f.provider.publicKey)).toBe(0n);
    expect(f.localnet.escrowAccount(deposit.escrow)).toBeNull();
  });

  it('refuses a claim above the deposit (6002) and moves nothing', async () => {
    const deposit = await f.deposit({ amount: 500_000n });
    const message = await rejection(f.send([claim(deposit.serviceId, 500_001n)], [f.feePayer, f.provider]));
    expect(message).toMatch(/custom program error: 0x1772/);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 500_000n);
    expect(f.localnet.escrowAccount(deposit.escrow)?.amount).toBe(500_000n);
    expect(f.localnet.sentTransactions()).toHaveLength(1);
  });

  it('refuses a claim signed by anyone but the provider (6005)', async () => {
    const deposit = await f.deposit();
    const intruder = Keypair.generate();
    f.localnet.airdrop(intruder.publicKey, 100_000_000);
    expect(await rejection(f.send([claim(deposit.serviceId, 1n, intruder.publicKey)], [intruder]))).toMatch(/custom program error: 0x1775/);
    expect(f.localnet.usdcBalance(intruder.publicKey)).toBe(0n);
  });

  it('refuses a claim once the escrow expired (6003), then lets the agent refund everything', async () => {
    const deposit = await f.deposit({ amount: 300_000n, expiresIn: 60 });
    expect(await rejection(f.send([refund(deposit.serviceId)], [f.agent]))).toMatch(/custom program error: 0x1774/);

    f.localnet.advanceSlots(60);
    expect(await rejection(f.send([claim(deposit.serviceId, 1n)], [f.feePayer, f.provider]))).toMatch(/custom program error: 0x1773/);

    const intruder = Keypair.generate();
    f.localnet.airdrop(intruder.publicKey, 100_000_000);
    f.localnet.createTokenAccount(intruder.publicKey);
    const stolen = refundInstruction({ programId: f.programId, escrow: deposit.escrow, agent: intruder.publicKey, mint: f.mint });
    expect(await rejection(f.send([stolen], [intruder]))).toMatch(/custom program error: 0x1775/);

    const lamports = f.localnet.solBalance(f.agent.publicKey);
    await f.send([refund(deposit.serviceId)], [f.agent]);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
    expect(f.localnet.solBalance(f.agent.publicKey)).toBe(lamports - 5000n + ESCROW_RENT + TOKEN_ACCOUNT_RENT);
    expect(await f.connection.getAccountInfo(deposit.vault)).toBeNull();
  });

  it('refuses a reused service id with the system program\'s "already in use" (Custom 0)', async () => {
    const first = await f.deposit({ amount: 100_000n });
    const message = await rejection(f.deposit({ amount: 200_000n, serviceId: first.serviceId }));
    expect(message).toMatch(/custom program error: 0x0/);
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 100_000n);
  });

  it('bounds the expiry to 50..216,000 slots ahead and refuses a zero amount', async () => {
    f.localnet.advanceSlots(10);
    expect(await rejection(f.deposit({ expiresIn: 49 }))).toMatch(/0x1770/);
    expect(await rejection(f.deposit({ expiresIn: 216_001 }))).toMatch(/0x1771/);
    expect(await rejection(f.deposit({ amount: 0n }))).toMatch(/0x1776/);
    await f.deposit({ expiresIn: 50 });
    await f.deposit({ expiresIn: 216_000 });
    expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC - 2_000_000n);
  });

  it("refuses a deposit beyond the agent's balance with the token program's InsufficientFunds", async () => {
    expect(await rejection(f.deposit({ amount: AGENT_USDC + 1n }))).toMatch(/custom program error: 0x1\b/);
  });

  describe('refuses accounts that do not match', () => {
    const serviceId = new Uint8Array(32).fill(3);
    const depositWith = (index: number, replacement: PublicKey): TransactionInstruction => {
      const instruction = depositInstruction({ programId: f.programId, agent: f.agent.publicKey, provider: f.provider.publicKey, mint: f.mint, serviceId, amount: 10n, expirySlot: 100n });
      instruction.keys[index] = { ...instruction.keys[index], pubkey: replacement };
      return instruction;
    };

    it("a wrong escrow PDA (2006) or vault (3014), another wallet's token account as the agent's (2015), a mint with no account (3012), a wrong program (3008)", async () => {
      const other = Keypair.generate().publicKey;
      const otherAta = f.localnet.fundUsdc(other, 10n);
      expect(await rejection(f.send([depositWith(3, other)], [f.agent]))).toMatch(/0x7d6/);
      expect(await rejection(f.send([depositWith(5, f.ata(f.agent.publicKey))], [f.agent]))).toMatch(/0xbc6/);
      expect(await rejection(f.send([depositWith(4, otherAta)], [f.agent]))).toMatch(/0x7df/);
      expect(await rejection(f.send([depositWith(2, other)], [f.agent]))).toMatch(/0xbc4/);
      expect(await rejection(f.send([depositWith(6, other)], [f.agent]))).toMatch(/0xbc0/);
      expect(f.localnet.usdcBalance(f.agent.publicKey)).toBe(AGENT_USDC);
    });

    it("a claim naming another agent (2001), a mint with no account (3012), or the agent's token account as the vault (2015)", async () => {
      const deposit = await f.deposit();
      const withKey = (index: number, replacement: PublicKey): TransactionInstruction => {
        const instruction = claim(deposit.serviceId, 1n);
        instruction.keys[index] = { ...instruction.keys[index], pubkey: replacement };
        return instruction;
      };
      const otherMint = Keypair.generate().publicKey;
      expect(await rejection(f.send([withKey(1, f.feePayer.publicKey)], [f.feePayer, f.provider]))).toMatch(/0x7d1/);
      expect(await rejection(f.send([withKey(3, otherMint)], [f.feePayer, f.provider]))).toMatch(/0xbc4/);
      expect(await rejection(f.send([withKey(4, f.ata(f.agent.publicKey))], [f.feePayer, f.provider]))).toMatch(/0x7df/);
      expect(f.localnet.escrowAccount(deposit.escrow)?.amount).toBe(1_000_000n);
    });
  });
});
