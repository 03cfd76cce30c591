import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  MessageV0,
  PublicKey,
  SendTransactionError,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { MAINNET_USDC_MINT, startLocalnet, type Localnet } from './index';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

describe('solana localnet through web3.js', () => {
  let localnet: Localnet;
  let connection: Connection;
  let payer: Keypair;
  let recipient: Keypair;

  beforeEach(async () => {
    localnet = await startLocalnet();
    connection = new Connection(localnet.url, 'confirmed');
    localnet.createUsdcMint();
    payer = Keypair.generate();
    recipient = Keypair.generate();
    localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
    localnet.fundUsdc(payer.publicKey, 5_000_000n);
    localnet.createTokenAccount(recipient.publicKey);
  });

  afterEach(() => localnet.close());
  // web3.js's confirmTransaction leaves its one-second block-height poll sleeping after it
  // resolves; let the last one finish so the worker exits promptly.
  afterAll(() => new Promise((resolve) => setTimeout(resolve, 1000)));

  const usdc = new PublicKey(MAINNET_USDC_MINT);
  const ata = (owner: PublicKey): PublicKey => getAssociatedTokenAddressSync(usdc, owner);
  const transferChecked = (amount: bigint, authority = payer.publicKey): TransactionInstruction =>
    createTransferCheckedInstruction(ata(authority), usdc, ata(recipient.publicKey), authority, amount, 6);

  async function signedV0(instructions: TransactionInstruction[], signers: Keypair[]): Promise<VersionedTransaction> {
    const { blockhash } = await connection.getLatestBlockhash();
    const message = MessageV0.compile({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions });
    const transaction = new VersionedTransaction(message);
    transaction.sign(signers);
    return transaction;
  }

  it('listens on loopback and answers the node-info methods', async () => {
    expect(localnet.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(localnet.wsUrl).port).toBe(String(Number(new URL(localnet.url).port) + 1));
    expect(await connection.getVersion()).toEqual(expect.objectContaining({ 'solana-core': expect.any(String) }));
    expect(await connection.getGenesisHash()).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    expect(await connection.getSlot()).toBe(0);
    expect((await connection.getEpochInfo()).epoch).toBe(0);
  });

  it('moves exactly the transferred USDC with a confirmed TransferChecked', async () => {
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(transferChecked(1_234_567n)), [payer]);

    expect(localnet.usdcBalance(payer.publicKey)).toBe(5_000_000n - 1_234_567n);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(1_234_567n);
    expect((await connection.getTokenAccountBalance(ata(recipient.publicKey))).value).toEqual({
      amount: '1234567',
      decimals: 6,
      uiAmount: 1.234567,
      uiAmountString: '1.234567',
    });
    expect(localnet.sentTransactions()).toEqual([{ signature, slot: 0, err: null }]);

    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const recipientIndex = landed?.transaction.message.staticAccountKeys.findIndex((key) => key.equals(ata(recipient.publicKey)));
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.preTokenBalances?.find((entry) => entry.accountIndex === recipientIndex)?.uiTokenAmount.amount).toBe('0');
    expect(landed?.meta?.postTokenBalances?.find((entry) => entry.accountIndex === recipientIndex)?.uiTokenAmount.amount).toBe('1234567');
    expect(landed?.meta?.fee).toBe(5000);
    expect(localnet.solBalance(payer.publicKey)).toBe(BigInt(LAMPORTS_PER_SOL - 5000));
  });

  it('confirms over the websocket with the blockhash strategy', async () => {
    const transaction = await signedV0([transferChecked(10n)], [payer]);
    const signature = await connection.sendTransaction(transaction);
    const { blockhash, lastValidBlockHeight } = localnet.latestBlockhash();
    const confirmation = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
    expect(confirmation.value.err).toBeNull();
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(10n);
  });

  it('executes a v0 transaction and reports it with its version', async () => {
    const transaction = await signedV0([transferChecked(500n)], [payer]);
    const signature = await connection.sendRawTransaction(transaction.serialize());

    const [status] = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value;
    expect(status).toEqual(expect.objectContaining({ err: null, confirmationStatus: 'finalized', slot: 0 }));
    expect((await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.version).toBe(0);
    await expect(connection.getTransaction(signature)).rejects.toThrow(/maxSupportedTransactionVersion/);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(500n);
  });

  it('simulates a transaction missing a signature when sigVerify is off, but refuses to send it', async () => {
    const owner = Keypair.generate();
    localnet.fundUsdc(owner.publicKey, 1_000n);
    const transaction = await signedV0([transferChecked(1_000n, owner.publicKey)], [payer]); // owner never signs

    const simulation = await connection.simulateTransaction(transaction, { sigVerify: false });
    expect(simulation.value.err).toBeNull();
    expect(simulation.value.logs).toContain('Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success');
    await expect(connection.simulateTransaction(transaction, { sigVerify: true })).rejects.toThrow(/signature verification failure/);

    await expect(connection.sendRawTransaction(transaction.serialize())).rejects.toThrow(/signature verification failure/);
    await expect(connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true })).rejects.toThrow(/signature verification failure/);
    expect(localnet.usdcBalance(owner.publicKey)).toBe(1_000n);
    expect(localnet.sentTransactions()).toEqual([]);
  });

  it('replaces the blockhash in simulation when asked', async () => {
    const transaction = await signedV0([transferChecked(1n)], [payer]);
    localnet.expireBlockhash();
    const stale = await connection.simulateTransaction(transaction, { sigVerify: false });
    expect(stale.value.err).toBe('BlockhashNotFound');
    const replaced = await connection.simulateTransaction(transaction, { replaceRecentBlockhash: true });
    expect(replaced.value.err).toBeNull();
  });

  it('keeps the blockhash until told, then rejects transactions signed with the expired one', async () => {
    const transaction = await signedV0([transferChecked(1n)], [payer]);
    const { blockhash: old } = localnet.latestBlockhash();
    localnet.advanceSlots(10);
    expect(await connection.isBlockhashValid(old)).toEqual(expect.objectContaining({ value: true }));
    expect(await connection.getBlockHeight()).toBe(10);

    localnet.expireBlockhash();
    expect((await connection.isBlockhashValid(old)).value).toBe(false);
    expect((await connection.isBlockhashValid(localnet.latestBlockhash().blockhash)).value).toBe(true);
    expect((await connection.getFeeForMessage(transaction.message)).value).toBeNull();

    const failure = await connection.sendRawTransaction(transaction.serialize()).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SendTransactionError);
    expect((failure as SendTransactionError).message).toMatch(/Blockhash not found/);
    await expect(connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true })).rejects.toThrow(/Blockhash not found/);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(0n);
  });

  it('expires a blockhash that falls more than 150 blocks behind', async () => {
    const { blockhash, lastValidBlockHeight } = localnet.latestBlockhash();
    localnet.advanceSlots(lastValidBlockHeight);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    localnet.advanceSlots(1);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);
  });

  it('rejects a replayed transaction as already processed', async () => {
    const wire = (await signedV0([transferChecked(7n)], [payer])).serialize();
    await connection.sendRawTransaction(wire);
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow(/already been processed/);
    await expect(connection.sendRawTransaction(wire, { skipPreflight: true })).rejects.toThrow(/already been processed/);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(7n);
    expect(localnet.sentTransactions()).toHaveLength(1);
  });

  it('lands a durable-nonce transaction while its account holds the nonce, advances it, and refuses the nonce once advanced', async () => {
    const nonceAccount = localnet.createNonceAccount(payer.publicKey);
    const nonce = localnet.nonceOf(nonceAccount);
    const nonceTransfer = (amount: bigint): VersionedTransaction => {
      const message = MessageV0.compile({
        payerKey: payer.publicKey,
        recentBlockhash: nonce,
        instructions: [SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: payer.publicKey }), transferChecked(amount)],
      });
      const transaction = new VersionedTransaction(message);
      transaction.sign([payer]);
      return transaction;
    };
    const first = nonceTransfer(5n);
    const other = nonceTransfer(6n);
    // Not the chain's blockhash, yet valid: simulated and landed as a cluster would.
    expect((await connection.simulateTransaction(first, { sigVerify: true })).value.err).toBeNull();
    const signature = await connection.sendRawTransaction(first.serialize());
    expect((await connection.getSignatureStatuses([signature])).value[0]?.err).toBeNull();
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(5n);
    expect(localnet.nonceOf(nonceAccount)).not.toBe(nonce);
    // The nonce moved on: another transaction naming it can never land.
    await expect(connection.sendRawTransaction(other.serialize())).rejects.toThrow(/Blockhash not found/);
    await expect(connection.sendRawTransaction(other.serialize(), { skipPreflight: true })).rejects.toThrow(/Blockhash not found/);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(5n);
  });

  it('lands a failing transaction sent without preflight, charging its fee', async () => {
    const wire = (await signedV0([transferChecked(6_000_000n)], [payer])).serialize();
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow(/custom program error: 0x1/);
    expect(localnet.sentTransactions()).toEqual([]);

    const signature = await connection.sendRawTransaction(wire, { skipPreflight: true });
    const [status] = (await connection.getSignatureStatuses([signature])).value;
    expect(status?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(localnet.sentTransactions()).toEqual([{ signature, slot: 0, err: { InstructionError: [0, { Custom: 1 }] } }]);
    expect(localnet.solBalance(payer.publicKey)).toBe(BigInt(LAMPORTS_PER_SOL - 5000));
  });

  it('charges the fee getFeeForMessage quotes, priority fee included', async () => {
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from('fee check') });
    const priced = new Transaction().add(
      // 1,000,000 micro-lamports per unit on 50,000 units: 50,000 lamports on top of the signature fee.
      ComputeBudgetProgram.setComputeUnitLimit({ units: 50_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient.publicKey, lamports: 1_000_000 }),
      memo,
    );
    priced.recentBlockhash = localnet.latestBlockhash().blockhash;
    priced.feePayer = payer.publicKey;
    const quoted = (await connection.getFeeForMessage(priced.compileMessage())).value;
    expect(quoted).toBe(55_000);

    const before = localnet.solBalance(payer.publicKey);
    await sendAndConfirmTransaction(connection, priced, [payer]);
    expect(before - localnet.solBalance(payer.publicKey)).toBe(BigInt(quoted ?? 0) + 1_000_000n);
  });

  it('airdrops on request, confirmable by signature', async () => {
    const wallet = Keypair.generate().publicKey;
    const signature = await connection.requestAirdrop(wallet, 2 * LAMPORTS_PER_SOL);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    expect((await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    expect(await connection.getBalance(wallet)).toBe(2 * LAMPORTS_PER_SOL);
    expect(localnet.sentTransactions()).toEqual([]);
  });

  it('reports the inner instructions of a cross-program call', async () => {
    const owner = Keypair.generate().publicKey;
    const createAta = createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata(owner), owner, usdc);
    const transaction = await signedV0([createAta], [payer]);

    const simulation = await connection.simulateTransaction(transaction, { sigVerify: false, innerInstructions: true });
    const simulated = simulation.value.innerInstructions?.[0].instructions.map((instruction) => instruction.programId.toBase58());
    expect(simulated).toEqual(expect.arrayContaining([SystemProgram.programId.toBase58(), 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']));

    const signature = await connection.sendRawTransaction(transaction.serialize());
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.innerInstructions?.[0].instructions).toHaveLength(simulated?.length ?? -1);
    expect(localnet.usdcBalance(owner)).toBe(0n);
    expect(await connection.getAccountInfo(ata(owner))).not.toBeNull();
  });

  it('renders accounts as base64 and jsonParsed', async () => {
    const recipientAta = ata(recipient.publicKey);
    const raw = await connection.getAccountInfo(recipientAta);
    expect(raw?.owner.toBase58()).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(raw?.data).toHaveLength(165);

    const parsed = await connection.getParsedAccountInfo(recipientAta);
    expect(parsed.value?.data).toEqual({
      program: 'spl-token',
      space: 165,
      parsed: {
        type: 'account',
        info: {
          isNative: false,
          mint: MAINNET_USDC_MINT,
          owner: recipient.publicKey.toBase58(),
          state: 'initialized',
          tokenAmount: { amount: '0', decimals: 6, uiAmount: 0, uiAmountString: '0' },
        },
      },
    });
    const mint = await connection.getParsedAccountInfo(usdc);
    expect(mint.value?.data).toEqual(expect.objectContaining({ parsed: expect.objectContaining({ type: 'mint' }) }));

    const [missing, mintRaw] = await connection.getMultipleAccountsInfo([Keypair.generate().publicKey, usdc]);
    expect(missing).toBeNull();
    expect(mintRaw?.data).toHaveLength(82);
  });

  it('leaves the host process sound after programs ran on the JIT (see jit-fpu-guard.ts)', async () => {
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from('fpu') });
    await sendAndConfirmTransaction(connection, new Transaction().add(transferChecked(1n), memo), [payer]);
    const operands = [5.5, 2];
    expect(operands[0] % operands[1]).toBe(1.5);
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    collectGarbage(); // a full GC after JIT use aborted the process before the guard
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(1n);
  });
});
