import { randomBytes } from 'node:crypto';
import { type Keypair, MessageV0, PublicKey, type TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { depositInstruction, refundInstruction } from '../../libs/escrow';
import { encodePaymentSignature } from '../../libs/x402';
import type { RunningGateway } from '../../src/gateway';
import type { PaidWorld } from './paid-gateway';

/** What `GET /v1/escrow/config` says, as the tests read it. */
export interface EscrowConfigView {
  enabled: boolean;
  program_id: string;
  provider: string;
  current_slot: number;
  expiry: { min_slots_ahead: number; max_slots_ahead: number; min_slot: number; max_slot: number };
}

export async function escrowConfig(gateway: RunningGateway): Promise<EscrowConfigView> {
  return (await (await fetch(`${gateway.url}/v1/escrow/config`)).json()) as EscrowConfigView;
}

export interface DepositOptions {
  agent?: Keypair;
  amount: bigint;
  /** Default: the window's minimum plus 100 slots. */
  expirySlot?: bigint;
  serviceId?: Uint8Array;
  /** The service id the payload claims (default: the deposit's). */
  payloadServiceId?: Uint8Array;
  /** Replaces what the deposit instruction names. */
  provider?: string;
  mint?: string;
  /** Changes the instruction list (extra instructions, another program's account...). */
  instructions?: (deposit: TransactionInstruction) => TransactionInstruction[];
  /** Another key that pays the fee and signs beside the agent. */
  feePayer?: Keypair;
  /** The `accepted.pay_to` sent (default: the provider the gateway advertises). */
  payTo?: string;
  resourceUrl?: string;
  /** The gateway's escrow config, read once by a caller that signs many deposits (the route is rate limited); default: read now. */
  config?: EscrowConfigView;
}

/** A spec-form escrow PAYMENT-SIGNATURE (spec 2.5): a signed deposit transaction, its service id and the agent. */
export async function escrowPaymentHeader(world: PaidWorld, gateway: RunningGateway, options: DepositOptions): Promise<{ header: string; serviceId: Uint8Array; expirySlot: bigint }> {
  const escrow = world.escrow;
  if (!escrow) throw new Error('startPaidWorld({ escrow: true }) first');
  const config = options.config ?? (await escrowConfig(gateway));
  const agent = options.agent ?? world.payer;
  const serviceId = options.serviceId ?? new Uint8Array(randomBytes(32));
  const expirySlot = options.expirySlot ?? BigInt(config.expiry.min_slot + 100);
  const deposit = depositInstruction({
    programId: escrow.programId,
    agent: agent.publicKey,
    provider: new PublicKey(options.provider ?? config.provider),
    mint: new PublicKey(options.mint ?? world.mint.toBase58()),
    serviceId,
    amount: options.amount,
    expirySlot,
  });
  const signers = options.feePayer ? [options.feePayer, agent] : [agent];
  const { blockhash } = world.localnet.latestBlockhash();
  const transaction = new VersionedTransaction(
    MessageV0.compile({ payerKey: signers[0].publicKey, recentBlockhash: blockhash, instructions: options.instructions ? options.instructions(deposit) : [deposit] }),
  );
  transaction.sign(signers);
  const header = encodePaymentSignature(
    {
      x402Version: 2,
      resource: { url: options.resourceUrl ?? '/v1/chat/completions', method: 'POST' },
      accepted: {
        scheme: 'escrow',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: options.amount.toString(),
        asset: world.mint.toBase58(),
        payTo: options.payTo ?? config.provider,
        maxTimeoutSeconds: 300,
        escrowProgramId: config.program_id,
      },
      payload: {
        kind: 'escrow',
        depositTx: Buffer.from(transaction.serialize()).toString('base64'),
        serviceId: Buffer.from(options.payloadServiceId ?? serviceId).toString('base64'),
        agentPubkey: agent.publicKey.toBase58(),
      },
    },
    'snake',
  );
  return { header, serviceId, expirySlot };
}

/** An escrow receipt as `GET /v1/receipts/{id}` shows it, as far as the tests read it. */
export interface EscrowReceiptBody {
  status: string;
  scheme: string;
  amount_quoted_atomic: string;
  amount_paid_atomic: string;
  amount_charged_atomic: string;
  escrow?: { address: string; deposit_atomic: string; claimed_atomic: string | null; refunded_atomic: string | null; claim_signature: string | null };
}

/** Reads until `done` accepts the value or `timeoutMs` passed; returns the last value read (claims land in the background). */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The agent takes its deposit back once the escrow has expired (the program's `refund`): the clock
 * moves past `expirySlot` and the agent sends the refund over RPC. Nothing happens to an escrow
 * already closed (claimed, or refunded before): the refund then fails and moves nothing.
 */
export async function refundAtExpiry(world: PaidWorld, agent: Keypair, serviceId: Uint8Array, expirySlot: bigint): Promise<void> {
  const escrow = world.escrow;
  if (!escrow) throw new Error('startPaidWorld({ escrow: true }) first');
  const slotsLeft = Number(expirySlot) - world.localnet.slot + 1;
  if (slotsLeft > 0) world.localnet.advanceSlots(slotsLeft);
  const refund = refundInstruction({ programId: escrow.programId, agent: agent.publicKey, mint: world.mint, serviceId });
  const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: agent.publicKey, recentBlockhash: world.localnet.latestBlockhash().blockhash, instructions: [refund] }));
  transaction.sign([agent]);
  await fetch(world.localnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [Buffer.from(transaction.serialize()).toString('base64'), { encoding: 'base64' }] }),
  });
}
