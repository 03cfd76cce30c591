import { decodePaymentRequiredHeader, inOneCasing, isNetwork, type PaidResource, type PaymentRequirements } from '../x402';
import { isJsonObject } from '../json/json-object';

const DIGITS = /^[0-9]+$/;

/** What a 402 asks for, as a channel voucher pays it: the `exact` offer's terms, its amount the quote. */
export interface ChannelQuote {
  readonly resource: PaidResource;
  /** The `exact` entry of `accepts`: a channel pays its network, asset and recipient. */
  readonly offer: PaymentRequirements;
  /** The offer's amount, atomic USDC. */
  readonly amount: bigint;
}

/**
 * The quote of a 402, from its `PAYMENT-REQUIRED` header, else from its body (read from a clone,
 * so the caller may still return the response itself); null when neither holds an `exact` offer.
 */
export async function readQuote(response: Response): Promise<ChannelQuote | null> {
  const header = response.headers.get('PAYMENT-REQUIRED');
  if (header !== null) {
    try {
      return quoteOf(decodePaymentRequiredHeader(header));
    } catch {
      // An unreadable header leaves the body, which says the same.
    }
  }
  return quoteOf(
    await response
      .clone()
      .json()
      .catch(() => null),
  );
}

/** The quote of an A2A task awaiting payment: its status message's `x402.payment.required`; null when it holds none. */
export function readTaskQuote(task: unknown): ChannelQuote | null {
  const status = isJsonObject(task) && isJsonObject(task.status) ? task.status : null;
  const metadata = status && isJsonObject(status.message) && isJsonObject(status.message.metadata) ? status.message.metadata : null;
  return metadata ? quoteOf(metadata['x402.payment.required']) : null;
}

/** The header form (camelCase) or the body form (snake_case) of a challenge. */
function quoteOf(challenge: unknown): ChannelQuote | null {
  if (!isJsonObject(challenge) || !isJsonObject(challenge.resource) || !Array.isArray(challenge.accepts)) return null;
  const { url, method } = challenge.resource;
  if (typeof url !== 'string' || (method !== undefined && typeof method !== 'string')) return null;
  const exact = challenge.accepts.find((entry) => isJsonObject(entry) && entry.scheme === 'exact');
  const offer = isJsonObject(exact) ? inOneCasing(exact, 'camel') : null;
  if (offer === null || !isTerms(offer)) return null;
  const { network, amount, asset, payTo, maxTimeoutSeconds } = offer;
  return { resource: { url, method }, offer: { scheme: 'exact', network, amount, asset, payTo, maxTimeoutSeconds }, amount: BigInt(amount) };
}

function isTerms(offer: Record<string, unknown>): offer is Record<string, unknown> & Omit<PaymentRequirements, 'scheme'> {
  return (
    isNetwork(offer.network) &&
    typeof offer.amount === 'string' &&
    DIGITS.test(offer.amount) &&
    typeof offer.asset === 'string' &&
    typeof offer.payTo === 'string' &&
    Number.isSafeInteger(offer.maxTimeoutSeconds)
  );
}
