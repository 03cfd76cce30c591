/**
 * The escrow program's client side, framework-free: addresses, instruction builders and decoders,
 * the account layout and the error codes. libs/solana-localnet emulates the program with these.
 */
export { escrowPda, vaultAddress, ESCROW_SEED, SERVICE_ID_SIZE } from './addresses';
export { ESCROW_ACCOUNT_DISCRIMINATOR, INSTRUCTION_DISCRIMINATORS, DISCRIMINATOR_SIZE } from './discriminators';
export { ESCROW_ACCOUNT_SIZE, ESCROW_LIMITS, decodeEscrowAccount, encodeEscrowAccount, type EscrowAccount } from './escrow-account';
export { ANCHOR_ERRORS, ANCHOR_ERROR_MESSAGES, ESCROW_ERRORS, ESCROW_ERROR_MESSAGES, SYSTEM_ERRORS, TOKEN_ERRORS, escrowErrorName, type AnchorErrorName, type EscrowErrorName } from './errors';
export {
  CLAIM_DATA_SIZE,
  DEPOSIT_DATA_SIZE,
  REFUND_DATA_SIZE,
  claimInstruction,
  decodeEscrowInstruction,
  depositInstruction,
  refundInstruction,
  type ClaimParams,
  type DepositParams,
  type EscrowInstruction,
  type EscrowRef,
  type RefundParams,
} from './instructions';
