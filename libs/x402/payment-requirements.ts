import type { Network } from './network';
import type { WireObject } from './wire-object';

/**
 * One offer of a challenge as a payment echoes it back in `accepted`, normalised to camelCase
 * (the x402 v2 `PaymentRequirements`). `scheme` stays a string: which schemes are offered is the
 * gateway's decision, not the codec's.
 */
export interface PaymentRequirements {
  readonly scheme: string;
  readonly network: Network;
  /** Atomic units as a decimal string. */
  readonly amount: string;
  /** The token mint, base58. */
  readonly asset: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly escrowProgramId?: string;
  /** Scheme-defined and opaque, so its keys keep the sender's spelling. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

type Terms = Pick<PaymentRequirements, 'network' | 'amount' | 'asset' | 'payTo' | 'maxTimeoutSeconds'>;

/** The fields every offer has, whatever its scheme. */
export function readTerms(offer: WireObject): Terms {
  return {
    network: offer.network('network'),
    amount: offer.atomicAmount('amount'),
    asset: offer.publicKey('asset'),
    payTo: offer.publicKey('payTo'),
    maxTimeoutSeconds: offer.integer('maxTimeoutSeconds', 1),
  };
}

export function readRequirements(offer: WireObject): PaymentRequirements {
  return {
    scheme: offer.string('scheme'),
    ...readTerms(offer),
    escrowProgramId: offer.optionalPublicKey('escrowProgramId'),
    extra: offer.optionalRecord('extra'),
  };
}
