import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync, unpackAccount } from '@solana/spl-token';
import { Keypair, MessageV0, PublicKey, TransactionInstruction, VersionedTransaction, type AccountInfo, type Commitment, type Connection } from '@solana/web3.js';
import { CLOSE_DOMAIN } from '../../../libs/channel-client/messages';
import bs58 from 'bs58';
import { USDC_DECIMALS } from '../../../libs/x402';
import { ChannelChain, type CloseOrder } from '../../modules/payments/ports/channel-chain';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import type { PreparedTransaction } from '../../modules/payments/ports/payment-chain';
import { createRpcConnection } from './rpc-connection';

// A funding counts once `confirmed` (PaymentChain.confirm), so custody's balance is read there too.
const COMMITMENT: Commitment = 'confirmed';
const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** ChannelChain over a Solana JSON-RPC endpoint: closes are signed by the custody key, their fee paid by a pool fee payer or by custody. */
export class SolanaChannelChain extends ChannelChain {
  readonly custody: string;
  private readonly connection: Connection;
  private readonly mint: PublicKey;
  private readonly recipient: PublicKey;
  private readonly custodyKey: Keypair;
  private readonly custodyTokenAccount: PublicKey;

  constructor(
    rpcUrl: string,
    mint: string,
    recipientWallet: string,
    custodySecretKey: Uint8Array,
    private readonly feePayers: FeePayers,
    rpcTimeoutMs = 5_000,
  ) {
    super();
    this.connection = createRpcConnection(rpcUrl, rpcTimeoutMs);
    this.mint = new PublicKey(mint);
    this.recipient = new PublicKey(recipientWallet);
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

  async closeTransaction(order: CloseOrder, feePayer: string | null): Promise<PreparedTransaction | null> {
    if (feePayer !== null && !this.feePayers.owns(feePayer)) return null;
    const payer = feePayer === null ? this.custodyKey.publicKey : new PublicKey(feePayer);
    const instructions = [...this.payTo(new PublicKey(order.agent), order.refund, payer), ...this.payTo(this.recipient, order.payout, payer)];
    // The close worker never settles an empty channel on chain: reaching here is its bug, not a chain state.
    if (instructions.length === 0) throw new Error('a close moving nothing: refund and payout are both zero');
    // The channel named on chain: two closes of equal amounts to one agent within a blockhash's life
    // would otherwise be one transaction, and the second would seem to have landed.
    instructions.push(new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`${CLOSE_DOMAIN}:${order.channelId}`, 'utf8') }));
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

  /** The owner's token account created if absent (its rent paid by `payer`), then `amount` moved into it from custody's; nothing for a zero amount. */
  private payTo(owner: PublicKey, amount: bigint, payer: PublicKey): TransactionInstruction[] {
    if (amount === 0n) return [];
    const destination = this.tokenAccountOf(owner);
    return [
      createAssociatedTokenAccountIdempotentInstruction(payer, destination, owner, this.mint),
      createTransferCheckedInstruction(this.custodyTokenAccount, this.mint, destination, this.custodyKey.publicKey, amount, USDC_DECIMALS),
    ];
  }

  // Off-curve owners allowed: an agent or recipient wallet may be a program-derived address (a multisig vault).
  private tokenAccountOf(owner: PublicKey): PublicKey {
    return getAssociatedTokenAddressSync(this.mint, owner, true);
  }

  private custodyAccount(): Promise<AccountInfo<Buffer> | null> {
    return this.connection.getAccountInfo(this.custodyTokenAccount, COMMITMENT);
  }
}
