import { settleResponseSchema } from '../fixtures/x402-settle-response-schema';

const coreHttp = require('@x402/core/http') as typeof import('@x402/core/dist/cjs/http');
const coreSchemas = require('@x402/core/schemas') as typeof import('@x402/core/dist/cjs/schemas');

/**
 * Holds a response's x402 headers to the official schemas, as `@x402/core` decodes them: a
 * `PAYMENT-REQUIRED` to its v2 `PaymentRequired`, a `PAYMENT-RESPONSE` to its settle answer's. The
 * suites' helpers call it on every answer they see, so a header that would trip the official
 * client fails the suite that produced it.
 */
export function expectOfficialX402Headers(headers: Headers): void {
  const required = headers.get('payment-required');
  if (required !== null) {
    const parsed = coreSchemas.PaymentRequiredV2Schema.safeParse(coreHttp.decodePaymentRequiredHeader(required));
    if (!parsed.success) throw new Error(`PAYMENT-REQUIRED does not fit @x402/core's PaymentRequired: ${parsed.error.message}`);
  }
  const response = headers.get('payment-response');
  if (response !== null) {
    const parsed = settleResponseSchema.safeParse(coreHttp.decodePaymentResponseHeader(response));
    if (!parsed.success) throw new Error(`PAYMENT-RESPONSE does not fit @x402/core's settle response: ${parsed.error.message}`);
  }
}
