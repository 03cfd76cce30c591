/**
 * The gateway's fee payer keys (spec 5.10, 8): the one to advertise in a 402 (rotating across
 * healthy keys), and the pool settlement co-signs with. Empty when GW_FEE_PAYER_KEYS is unset.
 */
export abstract class FeePayers {
  /** The public key to put in the next challenge's `extra.feePayer`, or null without keys. */
  abstract advertise(): string | null;

  /** Every fee payer's public key (their balances are watched). */
  abstract addresses(): readonly string[];

  /** Whether `address` is one of the gateway's fee payers (it may then never be a transfer's source or authority). */
  abstract owns(address: string): boolean;

  /** Signs `message` with the fee payer `address`; null when it is not ours. */
  abstract sign(address: string, message: Uint8Array): Uint8Array | null;

  /** A broadcast paid by `address` failed: rest it for the cooldown (spec 8: 60 s). */
  abstract markFailed(address: string): void;
}
