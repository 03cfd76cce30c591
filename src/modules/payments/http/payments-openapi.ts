import { ATOMIC_USDC, BOOLEAN, INTEGER, nullable, object, STRING, TIMESTAMP, USDC, type JsonSchema } from '../../../http/openapi/wire-schemas';

/** The receipt and the escrow routes' shapes, for the OpenAPI document. */
const NULLABLE_ATOMIC: JsonSchema = nullable(ATOMIC_USDC);

export const RECEIPT: JsonSchema = object(
  {
    id: { type: 'string', format: 'uuid' },
    object: { const: 'receipt' },
    status: { enum: ['pending', 'settled', 'failed', 'not_charged'] },
    scheme: { enum: ['exact', 'escrow', 'channel'] },
    network: STRING,
    asset: STRING,
    payer_wallet: STRING,
    pay_to: STRING,
    transaction_signature: STRING,
    amount_quoted_atomic: ATOMIC_USDC,
    amount_paid_atomic: ATOMIC_USDC,
    amount_charged_atomic: ATOMIC_USDC,
    amount_charged_usdc: USDC,
    endpoint: STRING,
    model: nullable(STRING),
    request_id: STRING,
    created_at: TIMESTAMP,
    settled_at: nullable(TIMESTAMP),
    delivery: { enum: ['complete', 'partial', 'client_disconnected', null], description: 'what the payer received; null until the request ended' },
    broadcast_at: nullable(TIMESTAMP),
    escrow: object({ address: STRING, expiry_slot: ATOMIC_USDC, deposit_atomic: ATOMIC_USDC, claimed_atomic: NULLABLE_ATOMIC, refunded_atomic: NULLABLE_ATOMIC, claim_signature: nullable(STRING) }),
  },
  ['escrow'],
);

const NULLABLE_INTEGER = nullable(INTEGER);

export const ESCROW_CONFIG: JsonSchema = object({
  enabled: { type: 'boolean' },
  offered: { type: 'boolean', description: 'whether new escrow deposits are taken now (false while escrow is off, or while its claim fees have reached their hourly bound)' },
  min_atomic: { ...ATOMIC_USDC, description: 'the smallest quote escrow is offered and accepted for' },
  program_id: nullable(STRING),
  provider: nullable(STRING),
  mint: STRING,
  network: STRING,
  current_slot: NULLABLE_INTEGER,
  slot_ms: INTEGER,
  expiry: {
    ...object({ min_slots_ahead: INTEGER, max_slots_ahead: INTEGER, min_slot: INTEGER, max_slot: INTEGER }),
    type: ['object', 'null'],
    description: 'the expiry_slot window a deposit must fall in now',
  },
});

export const ESCROW_HEALTH: JsonSchema = object({
  status: { enum: ['ok', 'degraded', 'down'] },
  claims: object({ failed: INTEGER, pending_in_queue: { type: 'integer', description: 'above 50: claims are falling behind' }, completed: INTEGER }),
  fee_payer_wallets: INTEGER,
  breaker: object({ state: { enum: ['closed', 'open'] }, open_until: nullable(TIMESTAMP), samples: INTEGER, failures: INTEGER }),
});

export const CHANNEL: JsonSchema = object(
  {
    channel_id: { ...STRING, description: '32 random bytes, base58; knowing it is the capability to read the channel' },
    agent_wallet: STRING,
    session_key: { ...STRING, description: 'signs vouchers and the close' },
    deposited: ATOMIC_USDC,
    last_cumulative: { ...ATOMIC_USDC, description: 'drawn so far: the next voucher is this plus the quote' },
    refund: { ...ATOMIC_USDC, description: 'what the close pays back to the agent: deposited - last_cumulative' },
    payout: { ...ATOMIC_USDC, description: 'what the close pays the recipient: last_cumulative' },
    status: { enum: ['opening', 'open', 'closing', 'closed'] },
    funding_signature: STRING,
    custody: STRING,
    network: STRING,
    close_signature: { ...nullable(STRING), description: 'the settlement transaction, once closed' },
  },
  ['close_signature'],
);

export const CHANNEL_CONFIG: JsonSchema = object({
  enabled: BOOLEAN,
  custody: nullable(STRING),
  recipient: STRING,
  mint: STRING,
  network: STRING,
  min_deposit: ATOMIC_USDC,
  current_slot: NULLABLE_INTEGER,
  min_expiry_slots: INTEGER,
});
