import { inBothCasings, inOneCasing, type Casing, type PaymentRequiredBody } from '../../../../libs/x402';
import { A2A_ERRORS, A2AError } from './a2a-errors';
import { PAYMENT_PAYLOAD } from './a2a-wire';
import type { A2ATaskRecord } from './a2a-task';

/**
 * The quote a task stores and `x402.payment.required` shows: the 402 body with, beside its
 * snake_case fields, the camelCase `PaymentRequired` fields the official x402 client signs from
 * (docs/decisions.md, "A2A quotes in both casings"). Its `exact` entries carry the header form's
 * `extra` (`decimals`, and `feePayer` when the fee is sponsored), which that client needs to build
 * the payment and which A2A has no header to carry.
 */
export function dualCasedOffer(body: PaymentRequiredBody, exactExtra: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  return {
    ...body,
    x402Version: body.x402_version,
    accepts: body.accepts.map((entry) => inBothCasings(entry.scheme === 'exact' && exactExtra ? { ...entry, extra: exactExtra } : entry)),
  };
}

/**
 * `x402.payment.payload`, a PaymentPayload as plain JSON, as the payment header would carry it. A
 * client copies `accepted` from the dual-cased quote, so it is rewritten into the casing of the
 * payload's own version field; one whose two spellings disagree is left for `checkAgainstOffer`.
 */
export function submittedPayment(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new A2AError(A2A_ERRORS.invalidParams, `${PAYMENT_PAYLOAD} must be a payment payload object`);
  const { accepted } = payload as { accepted?: unknown };
  if (typeof accepted !== 'object' || accepted === null) return JSON.stringify(payload);
  const casing: Casing = 'x402Version' in payload ? 'camel' : 'snake';
  return JSON.stringify({ ...payload, accepted: inOneCasing(accepted, casing) ?? accepted });
}

/** Spec 7: the message A2A answers a voucher with while channels are off. */
export const CHANNELS_OFF = 'channel scheme is not accepted on this endpoint';

/**
 * Spec 4.8: scheme, network, asset and pay_to equal to one of the stored offer's entries; the
 * amount at least the quote. A channel voucher, never advertised, pays the `exact` entry's
 * network, asset and pay_to with an amount equal to the quote exactly. `accepted` is read in either
 * casing; where it spells a field both ways, the two must agree.
 */
export function checkAgainstOffer(payload: unknown, task: A2ATaskRecord, channels: boolean): void {
  const submitted = (payload as { accepted?: unknown }).accepted;
  if (typeof submitted !== 'object' || submitted === null) throw new A2AError(A2A_ERRORS.invalidParams, 'the payment payload has no accepted offer');
  const accepted = inOneCasing(submitted, 'camel');
  if (accepted === null) throw mismatch('the payment names a field of accepted in both casings with different values');
  const voucher = accepted.scheme === 'channel';
  if (voucher && !channels) throw new A2AError(A2A_ERRORS.paymentFailed, CHANNELS_OFF, { retryable: false });
  const offers = ((task.offer.paymentRequired as { accepts?: unknown }).accepts ?? []) as Array<Record<string, unknown>>;
  const scheme = voucher ? 'exact' : accepted.scheme;
  const matches = offers.some((offer) => offer.scheme === scheme && offer.network === accepted.network && offer.asset === accepted.asset && offer.pay_to === accepted.payTo);
  const amount = accepted.amount;
  const quote = BigInt(task.offer.amountAtomic);
  const priced = typeof amount === 'string' && /^\d{1,20}$/.test(amount) && (voucher ? BigInt(amount) === quote : BigInt(amount) >= quote);
  if (!matches || !priced) {
    throw mismatch(`the payment does not match the offer stored with the task (scheme, network, asset, pay_to, amount${voucher ? ' equal to the quote' : ''})`);
  }
}

function mismatch(message: string): A2AError {
  return new A2AError(A2A_ERRORS.paymentFailed, message, { retryable: false });
}
