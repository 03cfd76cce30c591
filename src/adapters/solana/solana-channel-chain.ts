import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync, unpackAccount } from '@solana/spl-token';
import { Keypair, MessageV0, PublicKey, TransactionInstruction, VersionedTransaction, type AccountInfo, type Commitment, type Connection } from '@solana/web3.js';
import { CLOSE_DOMAIN } from '../../../libs/channel-client/messages';
import bs58 from 'bs58';
import { USDC_DECIMALS } from '../../../libs/x402';
import { ChannelChain, type SettlementLeg } from '../../modules/payments/ports/channel-chain';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import type { PreparedTransaction } from '../../modules/payments/ports/payment-chain';
import { createRpcConnection } from './rpc-connection';

// A funding counts once `confirmed` (PaymentChain.confirm), so custody's balance is read there too.
const COMMITMENT: Commitment = 'confirmed';
const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** ChannelChain over a Solana JSON-RPC endpoint: settlements are signed by the custody key, their fee paid by a pool fee payer or by custody. */
export class SolanaChannelChain extends ChannelChain {
  readonly custody: string;
  private readonly connection: Connection;
  private readonly mint: PublicKey;
  private readonly custodyKey: Keypair;
  private readonly custodyTokenAccount: PublicKey;

  constructor(
    rpcUrl: string,
    mint: string,
    custodySecretKey: Uint8Array,
    private readonly feePayers: FeePayers,
    rpcTimeoutMs = 5_000,
  ) {
    super();
    this.connection = createRpcConnection(rpcUrl, rpcTimeoutMs);
    this.mint = new PublicKey(mint);
    this.custodyKey = Keypair.fromSecretKey(custodySecretKey);
    this.custody = this.custodyKey.publicKey.toBase58();
    this.custodyTokenAccount = this.tokenAccountOf(this.custodyKey.publicKey);
  }

  async custodyAccountExists(): Promise<boolean> {
    return (await this.custodyAccount()) !== null;
  }

  async custodyBalance(): Promise<bigint> {
    const account = await this.custodyAccount();
    return account === null ? 0n : unpackAccount(this.custodyTokenAccount, account).amount;
  }

  async refundable(agent: string): Promise<boolean> {
    const owner = new PublicKey(agent);
    const address = this.tokenAccountOf(owner);
    const info = await this.connection.getAccountInfo(address, COMMITMENT);
    if (info === null) return false;
    try {
      const account = unpackAccount(address, info);
      return account.owner.equals(owner) && account.mint.equals(this.mint) && account.isInitialized && !account.isFrozen;
    } catch {
      // Not a token account at that address (it cannot be, for an associated one; but nothing is paid into what cannot be read).
      return false;
    }
  }

  async settlementTransaction(legs: readonly SettlementLeg[], feePayer: string | null): Promise<PreparedTransaction | null> {
    // The close worker never settles an empty leg on chain: reaching here is its bug, not a chain state.
    if (legs.length === 0 || legs.some((leg) => leg.amount <= 0n)) throw new Error('a settlement with nothing to move');
    if (feePayer !== null && !this.feePayers.owns(feePayer)) return null;
    const payer = feePayer === null ? this.custodyKey.publicKey : new PublicKey(feePayer);
    const instructions = legs.flatMap((leg) => this.pay(leg, payer));
    // The channel and the legs named on chain: settlements of equal amounts are then never one transaction.
    instructions.push(new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`${CLOSE_DOMAIN}:${legs[0].channelId}:${legs.map((leg) => leg.kind).join('+')}`, 'utf8') }));
    const { blockhash } = await this.connection.getLatestBlockhash(COMMITMENT);
    const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: payer, recentBlockhash: blockhash, instructions }));
    if (feePayer !== null) {
      const feePayerSignature = this.feePayers.sign(feePayer, transaction.message.serialize());
      if (!feePayerSignature) return null;
      transaction.addSignature(payer, feePayerSignature);
    }
    transaction.sign([this.custodyKey]);
    return { signedTransaction: Buffer.from(transaction.serialize()).toString('base64'), signature: bs58.encode(transaction.signatures[0]) };
  }

  private pay(leg: SettlementLeg, payer: PublicKey): TransactionInstruction[] {
    const owner = new PublicKey(leg.owner);
    const destination = this.tokenAccountOf(owner);
    const transfer = createTransferCheckedInstruction(this.custodyTokenAccount, this.mint, destination, this.custodyKey.publicKey, leg.amount, USDC_DECIMALS);
    // Only the recipient's account, the gateway's own, is created at the gateway's cost: an agent's could be closed again for its rent.
    return leg.kind === 'payout' ? [createAssociatedTokenAccountIdempotentInstruction(payer, destination, owner, this.mint), transfer] : [transfer];
  }

  // Off-curve owners allowed: an agent or recipient wallet may be a program-derived address (a multisig vault).
  private tokenAccountOf(owner: PublicKey): PublicKey {
    return getAssociatedTokenAddressSync(this.mint, owner, true);
  }

  private custodyAccount(): Promise<AccountInfo<Buffer> | null> {
    return this.connection.getAccountInfo(this.custodyTokenAccount, COMMITMENT);
  }
}
