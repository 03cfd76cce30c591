import type { PreparedTransaction, SendOutcome, SimulationOutcome } from './payment-chain';

/** What an escrow deposit must be to pay for a request (docs/decisions.md, "Escrow"). */
export interface DepositExpectations {
  programId: string;
  /** The gateway's escrow provider key (the entry's `pay_to`). */
  provider: string;
  mint: string;
  /** The payload's `agent_pubkey`: the deposit's agent, its fee payer and its only signer. */
  agent: string;
  /** The payload's `service_id`, base64 of 32 bytes: the instruction's must be the same. */
  serviceId: string;
  /** The quote, in atomic units. */
  minimumAmount: bigint;
}

/** A deposit transaction that passed every check that needs no chain. */
export interface VerifiedDeposit {
  agent: string;
  /** The escrow account, the PDA `["escrow", agent, service_id]`, base58. */
  escrow: string;
  /** Base64 of 32 bytes. */
  serviceId: string;
  amount: bigint;
  expirySlot: bigint;
  /** The agent's signature (base58): the transaction's id. */
  signature: string;
  /** What replay protection keys on: a hash of the signed message (as for `exact`). */
  replayKey: string;
  recentBlockhash: string;
  /** The bytes to send, as signed. */
  prepared: PreparedTransaction;
}

/** The claim of one escrow, as the claim queue holds it. */
export interface ClaimOrder {
  escrow: string;
  agent: string;
  serviceId: string;
  claimAtomic: bigint;
}

/** How a claim's send ended: as a payment's, or refused by the escrow program itself (a deterministic rejection, with its error code). */
export type ClaimSendOutcome = SendOutcome | { kind: 'program-error'; code: number; detail: string };

/**
 * The escrow program on the chain (spec 1.5, 2.5, 3.2). `verifyDeposit` is pure and throws
 * PaymentRejection; the others reject only when the RPC cannot be reached. Confirmations and
 * statuses go through PaymentChain, which knows any transaction.
 */
export abstract class EscrowChain {
  /** The provider public key (base58) whose escrows the gateway claims. */
  abstract readonly provider: string;

  abstract verifyDeposit(transactionBase64: string, expectations: DepositExpectations): VerifiedDeposit;

  /** Whether the escrow account exists (a reused service id, or a deposit already landed). */
  abstract escrowExists(escrow: string): Promise<boolean>;

  /** Runs the deposit (signatures checked) without landing it. */
  abstract simulateDeposit(transactionBase64: string): Promise<SimulationOutcome>;

  /** A claim transaction signed by the provider and by the fee payer `feePayer`; null when that fee payer cannot sign. */
  abstract claimTransaction(order: ClaimOrder, feePayer: string): Promise<PreparedTransaction | null>;

  /** Sends a claim once, with preflight. */
  abstract sendClaim(prepared: PreparedTransaction): Promise<ClaimSendOutcome>;
}
