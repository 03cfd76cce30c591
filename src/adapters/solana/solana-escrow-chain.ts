import { Keypair, MessageV0, PublicKey, SendTransactionError, VersionedTransaction, type Commitment, type Connection } from '@solana/web3.js';
import bs58 from 'bs58';
import { claimInstruction } from '../../../libs/escrow';
import { EscrowChain, type ClaimOrder, type ClaimSendOutcome, type DepositExpectations, type VerifiedDeposit } from '../../modules/payments/ports/escrow-chain';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import type { PreparedTransaction, SimulationOutcome } from '../../modules/payments/ports/payment-chain';
import { verifyEscrowDeposit } from './escrow-deposit-verifier';
import { createRpcConnection } from './rpc-connection';
import { ALREADY_PROCESSED, customInstructionError, errorMessage, failedSimulation, restIfFeePayerAtFault, simulatePayment } from './rpc-outcomes';

// As for `exact`: agents take their blockhash at `confirmed`.
const COMMITMENT: Commitment = 'confirmed';
/** SPL Token's InsufficientFunds (too few tokens) and the system program's ResultWithNegativeLamports (too few lamports for the rents), as a deposit's CPIs surface them. */
const DEPOSIT_INSUFFICIENT_FUNDS = 1;
// How the runtime words a program's error in a refused preflight and in the logs.
const CUSTOM_PROGRAM_ERROR = /custom program error: 0x([0-9a-f]+)/i;

/** EscrowChain over a Solana JSON-RPC endpoint: claims are signed by the provider key and paid by one of the gateway's fee payers. */
export class SolanaEscrowChain extends EscrowChain {
  readonly provider: string;
  private readonly connection: Connection;
  private readonly programId: PublicKey;
  private readonly mint: PublicKey;
  private readonly providerKey: Keypair;

  constructor(
    rpcUrl: string,
    programId: string,
    mint: string,
    providerSecretKey: Uint8Array,
    private readonly feePayers: FeePayers,
    rpcTimeoutMs = 5_000,
  ) {
    super();
    this.connection = createRpcConnection(rpcUrl, rpcTimeoutMs);
    this.programId = new PublicKey(programId);
    this.mint = new PublicKey(mint);
    this.providerKey = Keypair.fromSecretKey(providerSecretKey);
    this.provider = this.providerKey.publicKey.toBase58();
  }

  verifyDeposit(transactionBase64: string, expectations: DepositExpectations): VerifiedDeposit {
    return verifyEscrowDeposit(transactionBase64, expectations, this.programId);
  }

  async escrowExists(escrow: string): Promise<boolean> {
    return (await this.connection.getAccountInfo(new PublicKey(escrow), COMMITMENT)) !== null;
  }

  async simulateDeposit(transactionBase64: string): Promise<SimulationOutcome> {
    // The agent's signature is all the deposit needs: checked here, it cannot fail at the send.
    const simulation = await simulatePayment(this.connection, transactionBase64, { sigVerify: true, replaceRecentBlockhash: false, commitment: COMMITMENT });
    if ('ok' in simulation) return simulation;
    const { err, logs } = simulation.value;
    if (err === null) return { ok: true, spendableAfter: null };
    // The deposit is the only instruction that moves anything, so its code 1 is the agent short of tokens or of lamports.
    const fundsError = customInstructionError(err)?.code === DEPOSIT_INSUFFICIENT_FUNDS || err === 'InsufficientFundsForFee' || err === 'InsufficientFundsForRent';
    return failedSimulation(err, logs, fundsError);
  }

  async claimTransaction(order: ClaimOrder, feePayer: string): Promise<PreparedTransaction | null> {
    if (!this.feePayers.owns(feePayer)) return null;
    const { blockhash } = await this.connection.getLatestBlockhash(COMMITMENT);
    const instruction = claimInstruction({
      programId: this.programId,
      agent: new PublicKey(order.agent),
      provider: this.providerKey.publicKey,
      mint: this.mint,
      escrow: new PublicKey(order.escrow),
      actualAmount: order.claimAtomic,
    });
    const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: new PublicKey(feePayer), recentBlockhash: blockhash, instructions: [instruction] }));
    const feePayerSignature = this.feePayers.sign(feePayer, transaction.message.serialize());
    if (!feePayerSignature) return null;
    transaction.addSignature(new PublicKey(feePayer), feePayerSignature);
    transaction.sign([this.providerKey]);
    return { signedTransaction: Buffer.from(transaction.serialize()).toString('base64'), signature: bs58.encode(transaction.signatures[0]) };
  }

  async sendClaim({ signedTransaction, signature }: PreparedTransaction): Promise<ClaimSendOutcome> {
    try {
      // With preflight: a claim the program refuses is refused here, and the fee payer pays nothing.
      await this.connection.sendRawTransaction(Buffer.from(signedTransaction, 'base64'), { skipPreflight: false, preflightCommitment: COMMITMENT, maxRetries: 0 });
      return { kind: 'sent' };
    } catch (err) {
      if (!(err instanceof SendTransactionError)) return { kind: 'unknown', detail: errorMessage(err) };
      if (ALREADY_PROCESSED.test(err.message)) return { kind: 'on-chain' };
      const code = customProgramError(err);
      if (code !== null) return { kind: 'program-error', code, detail: err.message };
      // A copy sent before may have landed and left the recent statuses (its blockhash expired since):
      // then this refusal proves nothing, and only the history tells.
      const landed = await this.onChain(signature).catch(() => null);
      if (landed === true) return { kind: 'on-chain' };
      if (landed === null) return { kind: 'unknown', detail: err.message };
      restIfFeePayerAtFault(this.feePayers, signedTransaction, err.message);
      return { kind: 'rejected', detail: err.message };
    }
  }

  private async onChain(signature: string): Promise<boolean> {
    const [status] = (await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value;
    return status !== null;
  }
}

/**
 * The custom program error a refused preflight reports. web3.js 1.x keeps only the node's message
 * and logs, not the structured error: the message names the failing instruction's error, the logs
 * the same as the program's last words.
 */
function customProgramError(err: SendTransactionError): number | null {
  const { message, logs } = err.transactionError;
  const match = CUSTOM_PROGRAM_ERROR.exec(message) ?? [...(logs ?? [])].reverse().reduce<RegExpExecArray | null>((found, line) => found ?? CUSTOM_PROGRAM_ERROR.exec(line), null);
  return match ? Number.parseInt(match[1], 16) : null;
}
