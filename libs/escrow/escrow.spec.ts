import { createHash } from 'node:crypto';
import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import {
  claimInstruction,
  decodeEscrowAccount,
  decodeEscrowInstruction,
  depositInstruction,
  encodeEscrowAccount,
  ESCROW_ACCOUNT_DISCRIMINATOR,
  ESCROW_ACCOUNT_SIZE,
  ESCROW_ERRORS,
  escrowErrorName,
  escrowPda,
  INSTRUCTION_DISCRIMINATORS,
  refundInstruction,
  vaultAddress,
  type EscrowAccount,
} from './index';

const sha256Prefix = (text: string): Uint8Array => new Uint8Array(createHash('sha256').update(text).digest().subarray(0, 8));
const flags = (instruction: TransactionInstruction): Array<[string, boolean, boolean]> => instruction.keys.map((key) => [key.pubkey.toBase58(), key.isSigner, key.isWritable]);

describe('escrow program client', () => {
  const programId = Keypair.generate().publicKey;
  const agent = Keypair.generate().publicKey;
  const provider = Keypair.generate().publicKey;
  const mint = Keypair.generate().publicKey;
  const serviceId = new Uint8Array(32).fill(7);
  const [escrow, bump] = escrowPda(programId, agent, serviceId);
  const vault = getAssociatedTokenAddressSync(mint, escrow, true);
  const ata = (owner: PublicKey): string => getAssociatedTokenAddressSync(mint, owner, true).toBase58();
  const programs: Array<[string, boolean, boolean]> = [
    [TOKEN_PROGRAM_ID.toBase58(), false, false],
    [ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(), false, false],
    [SystemProgram.programId.toBase58(), false, false],
  ];

  it("uses Anchor's discriminators: the first 8 bytes of sha256", () => {
    expect(INSTRUCTION_DISCRIMINATORS.deposit).toEqual(sha256Prefix('global:deposit'));
    expect(INSTRUCTION_DISCRIMINATORS.claim).toEqual(sha256Prefix('global:claim'));
    expect(INSTRUCTION_DISCRIMINATORS.refund).toEqual(sha256Prefix('global:refund'));
    expect(ESCROW_ACCOUNT_DISCRIMINATOR).toEqual(sha256Prefix('account:Escrow'));
  });

  it('derives the escrow from ["escrow", agent, service_id] with the canonical bump, and the vault as its ATA', () => {
    const [expected, expectedBump] = PublicKey.findProgramAddressSync([Buffer.from('escrow'), agent.toBuffer(), Buffer.from(serviceId)], programId);
    expect(escrow.equals(expected)).toBe(true);
    expect(bump).toBe(expectedBump);
    expect(vaultAddress(programId, agent, serviceId, mint).equals(vault)).toBe(true);
    expect(escrowPda(programId, agent, new Uint8Array(32).fill(8))[0].equals(escrow)).toBe(false);
    expect(() => escrowPda(programId, agent, new Uint8Array(31))).toThrow(RangeError);
  });

  it('round-trips the 153-byte escrow account and refuses anything else', () => {
    const account: EscrowAccount = { agent, provider, mint, amount: 18_446_744_073_709_551_615n, serviceId, expirySlot: 1_234_567n, bump };
    const data = encodeEscrowAccount(account);
    expect(data).toHaveLength(ESCROW_ACCOUNT_SIZE);
    expect(data.subarray(0, 8)).toEqual(ESCROW_ACCOUNT_DISCRIMINATOR);
    expect(Buffer.from(data.subarray(104, 112)).readBigUInt64LE()).toBe(account.amount);
    expect(data[152]).toBe(bump);
    expect(decodeEscrowAccount(data)).toEqual(account);

    expect(() => decodeEscrowAccount(data.subarray(0, 152))).toThrow(/153 bytes/);
    const wrong = new Uint8Array(data);
    wrong[0] ^= 1;
    expect(() => decodeEscrowAccount(wrong)).toThrow(/discriminator/);
    expect(() => encodeEscrowAccount({ ...account, amount: -1n })).toThrow(RangeError);
  });

  it('builds deposit with its accounts in order, the agent signing', () => {
    const instruction = depositInstruction({ programId, agent, provider, mint, serviceId, amount: 1_500_000n, expirySlot: 900n });
    expect(instruction.programId.equals(programId)).toBe(true);
    expect(flags(instruction)).toEqual([
      [agent.toBase58(), true, true],
      [provider.toBase58(), false, false],
      [mint.toBase58(), false, false],
      [escrow.toBase58(), false, true],
      [ata(agent), false, true],
      [vault.toBase58(), false, true],
      ...programs,
    ]);
    expect(instruction.data).toHaveLength(56);
    expect(decodeEscrowInstruction(instruction)).toEqual({ kind: 'deposit', amount: 1_500_000n, serviceId, expirySlot: 900n });
  });

  it('builds claim with a signing provider, by escrow address or service id alike', () => {
    const bySeed = claimInstruction({ programId, agent, provider, mint, serviceId, actualAmount: 42n });
    const byAddress = claimInstruction({ programId, escrow, agent, provider, mint, actualAmount: 42n });
    expect(flags(bySeed)).toEqual(flags(byAddress));
    expect(flags(bySeed)).toEqual([
      [escrow.toBase58(), false, true],
      [agent.toBase58(), false, true],
      [provider.toBase58(), true, true],
      [mint.toBase58(), false, false],
      [vault.toBase58(), false, true],
      [ata(provider), false, true],
      [ata(agent), false, true],
      ...programs,
    ]);
    expect(decodeEscrowInstruction(bySeed)).toEqual({ kind: 'claim', actualAmount: 42n });
  });

  it('builds refund with a signing agent', () => {
    const instruction = refundInstruction({ programId, agent, mint, serviceId });
    expect(flags(instruction)).toEqual([
      [escrow.toBase58(), false, true],
      [agent.toBase58(), true, true],
      [mint.toBase58(), false, false],
      [vault.toBase58(), false, true],
      [ata(agent), false, true],
      ...programs,
    ]);
    expect(instruction.data).toEqual(Buffer.from(INSTRUCTION_DISCRIMINATORS.refund));
    expect(decodeEscrowInstruction(instruction)).toEqual({ kind: 'refund' });
  });

  it('decodes nothing it does not recognise', () => {
    const claim = claimInstruction({ programId, agent, provider, mint, serviceId, actualAmount: 1n });
    expect(decodeEscrowInstruction(claim, Keypair.generate().publicKey)).toBeNull();
    expect(decodeEscrowInstruction(claim, programId)).toEqual({ kind: 'claim', actualAmount: 1n });
    expect(decodeEscrowInstruction({ data: claim.data.subarray(0, 12) })).toBeNull();
    expect(decodeEscrowInstruction({ data: new Uint8Array(16) })).toBeNull();
  });

  it('names its error codes', () => {
    expect(ESCROW_ERRORS).toEqual({ ExpiryTooSoon: 6000, ExpiryTooFar: 6001, ClaimExceedsDeposit: 6002, EscrowExpired: 6003, EscrowNotExpired: 6004, Unauthorized: 6005, InvalidAmount: 6006 });
    expect(escrowErrorName(6002)).toBe('ClaimExceedsDeposit');
    expect(escrowErrorName(2006)).toBe('ConstraintSeeds');
    expect(escrowErrorName(42)).toBeNull();
  });
});
