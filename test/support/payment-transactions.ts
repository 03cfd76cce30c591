import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { ComputeBudgetProgram, TransactionMessage, VersionedTransaction, type AddressLookupTableAccount, type Keypair, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import type { ExactLayout } from '../../src/modules/payments/domain/exact-payment';

/** Who takes part in a test payment, and the blockhash it is signed against. */
export interface PaymentParties {
  mint: PublicKey;
  payTo: PublicKey;
  payer: Keypair;
  /** The gateway's fee payer, account 0 of the sponsored layout. */
  gatewayFeePayer: Keypair;
  recentBlockhash: string;
}

export interface TransferOverrides {
  amount?: bigint;
  mint?: PublicKey;
  source?: PublicKey;
  destination?: PublicKey;
  authority?: PublicKey;
  decimals?: number;
}

/** A TransferChecked from the payer's associated token account to payTo's, of `amount` (1,000 by default). */
export function transferChecked(parties: PaymentParties, overrides: TransferOverrides = {}): TransactionInstruction {
  const mint = overrides.mint ?? parties.mint;
  const authority = overrides.authority ?? parties.payer.publicKey;
  return createTransferCheckedInstruction(
    overrides.source ?? getAssociatedTokenAddressSync(mint, authority, true),
    mint,
    overrides.destination ?? getAssociatedTokenAddressSync(mint, parties.payTo, true),
    authority,
    overrides.amount ?? 1_000n,
    overrides.decimals ?? 6,
  );
}

/** What the official x402 client sends, without its memo: compute limit, compute price, the transfer. */
export function paymentInstructions(transfer: TransactionInstruction, computeUnitPrice = 1n): TransactionInstruction[] {
  return [ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: computeUnitPrice }), transfer];
}

export interface PaymentTransactionOptions {
  layout?: ExactLayout;
  version?: 'legacy' | 0;
  instructions?: TransactionInstruction[];
  /** Overrides the layout's fee payer. */
  feePayer?: PublicKey;
  /** Who signs (the payer by default); the sponsored fee payer's slot stays empty unless listed. */
  signers?: Keypair[];
  lookupTables?: AddressLookupTableAccount[];
}

/** A signed payment transaction, v0 and client-paid unless told otherwise. */
export function paymentTransaction(parties: PaymentParties, options: PaymentTransactionOptions = {}): VersionedTransaction {
  const sponsored = options.layout === 'sponsored';
  const message = new TransactionMessage({
    payerKey: options.feePayer ?? (sponsored ? parties.gatewayFeePayer.publicKey : parties.payer.publicKey),
    recentBlockhash: parties.recentBlockhash,
    instructions: options.instructions ?? paymentInstructions(transferChecked(parties)),
  });
  const compiled = options.version === 'legacy' ? message.compileToLegacyMessage() : message.compileToV0Message(options.lookupTables);
  const transaction = new VersionedTransaction(compiled);
  transaction.sign(options.signers ?? [parties.payer]);
  return transaction;
}

export function toBase64(transaction: VersionedTransaction): string {
  return Buffer.from(transaction.serialize()).toString('base64');
}
