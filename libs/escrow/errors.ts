/** The escrow program's own errors: Anchor numbers `#[error_code]` variants from 6000 in declaration order. */
export const ESCROW_ERRORS = {
  ExpiryTooSoon: 6000,
  ExpiryTooFar: 6001,
  ClaimExceedsDeposit: 6002,
  EscrowExpired: 6003,
  EscrowNotExpired: 6004,
  Unauthorized: 6005,
  InvalidAmount: 6006,
} as const;

export type EscrowErrorName = keyof typeof ESCROW_ERRORS;

export const ESCROW_ERROR_MESSAGES: Record<EscrowErrorName, string> = {
  ExpiryTooSoon: 'The expiry slot is too close to the current slot',
  ExpiryTooFar: 'The expiry slot is too far from the current slot',
  ClaimExceedsDeposit: 'The claimed amount exceeds the deposit',
  EscrowExpired: 'The escrow has expired and can no longer be claimed',
  EscrowNotExpired: 'The escrow has not expired yet',
  Unauthorized: 'The signer is not allowed to act on this escrow',
  InvalidAmount: 'The amount must be greater than zero',
};

/** The Anchor framework errors the escrow's account validation raises (anchor-lang's `ErrorCode`). */
export const ANCHOR_ERRORS = {
  InstructionMissing: 100,
  InstructionFallbackNotFound: 101,
  InstructionDidNotDeserialize: 102,
  ConstraintMut: 2000,
  ConstraintHasOne: 2001,
  ConstraintSeeds: 2006,
  ConstraintTokenMint: 2014,
  ConstraintTokenOwner: 2015,
  AccountDiscriminatorNotFound: 3001,
  AccountDiscriminatorMismatch: 3002,
  AccountDidNotDeserialize: 3003,
  AccountNotEnoughKeys: 3005,
  AccountOwnedByWrongProgram: 3007,
  InvalidProgramId: 3008,
  AccountNotSigner: 3010,
  AccountNotInitialized: 3012,
  AccountNotAssociatedTokenAccount: 3014,
} as const;

export type AnchorErrorName = keyof typeof ANCHOR_ERRORS;

export const ANCHOR_ERROR_MESSAGES: Record<AnchorErrorName, string> = {
  InstructionMissing: '8 byte instruction identifier not provided',
  InstructionFallbackNotFound: 'Fallback functions are not supported',
  InstructionDidNotDeserialize: 'The program could not deserialize the given instruction',
  ConstraintMut: 'A mut constraint was violated',
  ConstraintHasOne: 'A has one constraint was violated',
  ConstraintSeeds: 'A seeds constraint was violated',
  ConstraintTokenMint: 'A token mint constraint was violated',
  ConstraintTokenOwner: 'A token owner constraint was violated',
  AccountDiscriminatorNotFound: 'No 8 byte discriminator was found on the account',
  AccountDiscriminatorMismatch: '8 byte discriminator did not match what was expected',
  AccountDidNotDeserialize: 'Failed to deserialize the account',
  AccountNotEnoughKeys: 'Not enough account keys given to the instruction',
  AccountOwnedByWrongProgram: 'The given account is owned by a different program than expected',
  InvalidProgramId: 'Program ID was not as expected',
  AccountNotSigner: 'The given account did not sign',
  AccountNotInitialized: 'The program expected this account to be already initialized',
  AccountNotAssociatedTokenAccount: 'The given account is not the associated token account',
};

/**
 * Errors of the programs the escrow calls, as they surface in `{ Custom: code }`: the system
 * program's `AccountAlreadyInUse` (a reused service id) and the token program's `InsufficientFunds`.
 */
export const SYSTEM_ERRORS = { AccountAlreadyInUse: 0, ResultWithNegativeLamports: 1 } as const;
export const TOKEN_ERRORS = { InsufficientFunds: 1, NonNativeHasBalance: 11, AccountFrozen: 17 } as const;

/** The escrow or Anchor error name of a custom program error code, or null for any other code. */
export function escrowErrorName(code: number): EscrowErrorName | AnchorErrorName | null {
  const table: Record<string, number> = { ...ESCROW_ERRORS, ...ANCHOR_ERRORS };
  return (Object.keys(table).find((name) => table[name] === code) as EscrowErrorName | AnchorErrorName | undefined) ?? null;
}
