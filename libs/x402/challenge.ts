import { decodeBase64Json, encodeBase64Json } from './base64-json';
import { X402DecodeError } from './errors';
import type { Network } from './network';
import { readTerms, type PaymentRequirements } from './payment-requirements';
import { WireObject } from './wire-object';

export const X402_VERSION = 2;
/** USDC's decimals, which the x402 client reads from `extra` of each offer. */
export const USDC_DECIMALS = 6;

export type Scheme = 'exact' | 'escrow';

/** The endpoint a challenge is for. x402's `ResourceInfo` requires only `url`; `method` is ours. */
export interface PaymentResource {
  readonly url: string;
  readonly method: string;
}

/** An `accepts[]` entry of the 402 body (spec 2.4). */
export interface PaymentRequirementsSnake {
  readonly scheme: Scheme;
  readonly network: Network;
  /** Atomic USDC as a decimal string. */
  readonly amount: string;
  readonly asset: string;
  readonly pay_to: string;
  readonly max_timeout_seconds: number;
  /** Only on `escrow` entries, and only when an escrow program is configured. */
  readonly escrow_program_id?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** USDC decimal strings with exactly 6 places. */
export interface CostBreakdown {
  readonly provider_cost: string;
  readonly platform_fee: string;
  readonly total: string;
  readonly currency: 'USDC';
  readonly fee_percent: 5;
}

/** The 402 quote body, snake_case (spec 2.4). Plain JSON: it needs no codec. */
export interface PaymentRequiredBody {
  readonly x402_version: typeof X402_VERSION;
  readonly resource: PaymentResource;
  readonly accepts: PaymentRequirementsSnake[];
  readonly cost_breakdown: CostBreakdown;
  readonly error: 'Payment required';
  /** Discovery metadata of the chat body only; never in the header form. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * `extra` of a header offer. The official SVM client reads the mint's decimals from the chain, but
 * refuses to pay without `feePayer`: it makes that key the transaction's fee payer (the gateway
 * co-signs at settlement), so only a gateway holding a fee payer key can serve that client.
 */
export type ExactExtra = {
  readonly decimals: typeof USDC_DECIMALS;
  readonly feePayer?: string;
};

/** An offer of the header form: `exact` only. */
export interface HeaderPaymentRequirements extends Omit<PaymentRequirements, 'scheme' | 'escrowProgramId' | 'extra'> {
  readonly scheme: 'exact';
  readonly extra: ExactExtra;
}

/** The `PAYMENT-REQUIRED` header, the x402 v2 `PaymentRequired` in camelCase. */
export interface PaymentRequiredHeader {
  readonly x402Version: typeof X402_VERSION;
  readonly error?: string;
  readonly resource: PaymentResource;
  readonly accepts: HeaderPaymentRequirements[];
}

/**
 * The header form of a body: its `exact` offers, with `extra`; no cost breakdown, no extensions.
 * `error` replaces the body's (a refused payment's reason, as the x402 clients name it).
 */
export function toHeaderForm(body: PaymentRequiredBody, options: { feePayer?: string; error?: string } = {}): PaymentRequiredHeader {
  const extra: ExactExtra = { decimals: USDC_DECIMALS, feePayer: options.feePayer };
  return {
    x402Version: X402_VERSION,
    error: options.error ?? body.error,
    resource: { url: body.resource.url, method: body.resource.method },
    accepts: body.accepts
      .filter((offer) => offer.scheme === 'exact')
      .map((offer) => ({
        scheme: 'exact',
        network: offer.network,
        amount: offer.amount,
        asset: offer.asset,
        payTo: offer.pay_to,
        maxTimeoutSeconds: offer.max_timeout_seconds,
        extra,
      })),
  };
}

export function encodePaymentRequiredHeader(header: PaymentRequiredHeader): string {
  return encodeBase64Json(header);
}

/** For clients and tests; throws X402DecodeError. */
export function decodePaymentRequiredHeader(value: string): PaymentRequiredHeader {
  const root = WireObject.root(decodeBase64Json(value, 'PAYMENT-REQUIRED', X402DecodeError), 'PAYMENT-REQUIRED', X402DecodeError, 'camel');
  const resource = root.object('resource');
  return {
    x402Version: root.oneOf('x402Version', [X402_VERSION]),
    error: root.optionalString('error'),
    resource: { url: resource.string('url'), method: resource.string('method') },
    accepts: root.objects('accepts').map(readHeaderOffer),
  };
}

function readHeaderOffer(offer: WireObject): HeaderPaymentRequirements {
  const extra = offer.object('extra');
  return {
    scheme: offer.oneOf('scheme', ['exact']),
    ...readTerms(offer),
    extra: { decimals: extra.oneOf('decimals', [USDC_DECIMALS]), feePayer: extra.optionalPublicKey('feePayer') },
  };
}
