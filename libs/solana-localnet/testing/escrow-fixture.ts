import { randomBytes } from 'node:crypto';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, MessageV0, type PublicKey, type TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { depositInstruction, escrowPda, vaultAddress } from '../../escrow';
import { startLocalnet, type Localnet } from '../localnet';

export const AGENT_USDC = 5_000_000n;

export interface EscrowDeposit {
  serviceId: Uint8Array;
  escrow: PublicKey;
  vault: PublicKey;
  amount: bigint;
  expirySlot: bigint;
  signature: string;
}

/** A localnet emulating the escrow program, with an agent (SOL and USDC), a provider (SOL for its token account's rent) and the gateway's fee payer. */
export interface EscrowFixture {
  localnet: Localnet;
  connection: Connection;
  programId: PublicKey;
  mint: PublicKey;
  agent: Keypair;
  provider: Keypair;
  feePayer: Keypair;
  ata(owner: PublicKey): PublicKey;
  /** A v0 transaction on the current blockhash, paid by the first signer. */
  sign(instructions: TransactionInstruction[], signers: Keypair[], payer?: PublicKey): Promise<VersionedTransaction>;
  send(instructions: TransactionInstruction[], signers: Keypair[], options?: { skipPreflight?: boolean }): Promise<string>;
  deposit(options?: { amount?: bigint; expiresIn?: number; serviceId?: Uint8Array }): Promise<EscrowDeposit>;
}

export async function startEscrowFixture(): Promise<EscrowFixture> {
  const programId = Keypair.generate().publicKey;
  const localnet = await startLocalnet({ escrowProgramId: programId });
  const connection = new Connection(localnet.url, 'confirmed');
  const mint = localnet.createUsdcMint();
  const [agent, provider, feePayer] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
  localnet.airdrop(provider.publicKey, LAMPORTS_PER_SOL / 10);
  localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
  localnet.fundUsdc(agent.publicKey, AGENT_USDC);

  const sign = async (instructions: TransactionInstruction[], signers: Keypair[], payer = signers[0].publicKey): Promise<VersionedTransaction> => {
    const { blockhash } = await connection.getLatestBlockhash();
    const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: payer, recentBlockhash: blockhash, instructions }));
    transaction.sign(signers);
    return transaction;
  };
  const send = async (instructions: TransactionInstruction[], signers: Keypair[], options: { skipPreflight?: boolean } = {}): Promise<string> =>
    connection.sendRawTransaction((await sign(instructions, signers)).serialize(), options);

  return {
    localnet,
    connection,
    programId,
    mint,
    agent,
    provider,
    feePayer,
    ata: (owner) => getAssociatedTokenAddressSync(mint, owner, true),
    sign,
    send,
    deposit: async ({ amount = 1_000_000n, expiresIn = 100, serviceId = new Uint8Array(randomBytes(32)) } = {}) => {
      const expirySlot = BigInt(localnet.slot + expiresIn);
      const instruction = depositInstruction({ programId, agent: agent.publicKey, provider: provider.publicKey, mint, serviceId, amount, expirySlot });
      const signature = await send([instruction], [agent]);
      return { serviceId, escrow: escrowPda(programId, agent.publicKey, serviceId)[0], vault: vaultAddress(programId, agent.publicKey, serviceId, mint), amount, expirySlot, signature };
    },
  };
}
