import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';

/** int8 arrives from pg as a string; money stays exact as bigint. */
export const bigintColumn: ValueTransformer = {
  to: (value: bigint) => value.toString(),
  from: (value: string) => BigInt(value),
};

@Entity({ name: 'spend_log' })
export class SpendLogRow {
  @PrimaryColumn('uuid', { name: 'request_id' })
  requestId!: string;

  @Column('varchar', { name: 'payer_wallet', length: 44, nullable: true })
  payerWallet!: string | null;

  @Column('text')
  model!: string;

  @Column('text')
  provider!: string;

  @Column('integer', { name: 'tokens_in' })
  tokensIn!: number;

  @Column('integer', { name: 'tokens_out' })
  tokensOut!: number;

  @Column('bigint', { name: 'amount_charged_atomic', transformer: bigintColumn })
  amountChargedAtomic!: bigint;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
