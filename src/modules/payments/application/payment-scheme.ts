import type { PaymentPayload } from '../../../../libs/x402';
import type { PaidPayment } from './paid-payment';
import type { SchemeName } from '../domain/schemes';
import type { PaymentContext } from './payment-context';

/**
 * One scheme's acceptance, after PaymentAcceptance has decoded the header and checked the terms
 * every scheme shares (resource, network, asset): the scheme's own checks, the claim on the
 * payment, the pending receipt. What it returns says when it settles (`settlesAt`).
 */
export abstract class PaymentScheme {
  abstract readonly name: SchemeName;

  abstract accept(payload: PaymentPayload, context: PaymentContext): Promise<PaidPayment>;
}
