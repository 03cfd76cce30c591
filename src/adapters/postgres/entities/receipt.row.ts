import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';
import type { Delivery, Receipt, ReceiptStatus } from '../../../modules/payments/domain/receipt';
import { bigintColumn } from './spend-log.row';

/** As bigintColumn, for a column that may hold null (an exact receipt has no escrow). */
const nullableBigintColumn: ValueTransformer = {
  to: (value: bigint | null | undefined) => (value === null || value === undefined ? value : value.toString()),
  from: (value: string | null) => (value === null ? null : BigInt(value)),
};

/** A receipt as stored: its escrow part flattened into nullable columns (src/adapters/postgres/postgres-receipt-store.ts maps it). */
@Entity({ name: 'receipts' })
export class ReceiptRow implements Omit<Receipt, 'escrow'> {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  status!: ReceiptStatus;

  @Column('text')
  scheme!: Receipt['scheme'];

  @Column('text')
  network!: string;

  @Column('varchar', { length: 44 })
  asset!: string;

  @Column('varchar', { name: 'payer_wallet', length: 44 })
  payerWallet!: string;

  @Column('varchar', { name: 'pay_to', length: 44 })
  payTo!: string;

  @Column('text', { name: 'transaction_signature' })
  transactionSignature!: string;

  @Column('bigint', { name: 'amount_quoted_atomic', transformer: bigintColumn })
  amountQuotedAtomic!: bigint;

  @Column('bigint', { name: 'amount_paid_atomic', transformer: bigintColumn })
  amountPaidAtomic!: bigint;

  @Column('bigint', { name: 'amount_charged_atomic', transformer: bigintColumn })
  amountChargedAtomic!: bigint;

  @Column('text')
  endpoint!: string;

  @Column('text', { nullable: true })
  model!: string | null;

  @Column('uuid', { name: 'request_id' })
  requestId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;

  @Column('text', { nullable: true })
  delivery!: Delivery | null;

  @Column('timestamptz', { name: 'broadcast_at', nullable: true })
  broadcastAt!: Date | null;

  @Column('text', { name: 'replay_key' })
  replayKey!: string;

  @Column('text', { name: 'signed_transaction' })
  signedTransaction!: string;

  @Column('varchar', { name: 'escrow_address', length: 44, nullable: true })
  escrowAddress!: string | null;

  @Column('bigint', { name: 'escrow_expiry_slot', nullable: true, transformer: nullableBigintColumn })
  escrowExpirySlot!: bigint | null;

  @Column('text', { name: 'escrow_claim_signature', nullable: true })
  escrowClaimSignature!: string | null;
}
