import { applyDecorators } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '../../../errors/error-codes';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { ref } from '../../../http/openapi/wire-schemas';

const PAYMENT_ERRORS = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => code.startsWith('payment.'));

/** The headers a paid answer carries (spec 4.1), for the success response of a paid route. */
export const PAID_ANSWER_HEADERS = {
  'X-Gw-Receipt': { description: 'path of the receipt, /v1/receipts/<uuid>, when a payment settled and receipt storage exists', schema: { type: 'string' } },
  'PAYMENT-RESPONSE': {
    description:
      'x402 settlement response, base64 JSON: on a JSON answer once the payment confirmed; on a stream, sent with its first content after the broadcast, with extra.confirmed false; on a failed settlement, success false and its errorReason',
    schema: { type: 'string' },
  },
} as const;

/**
 * What the OpenAPI document says of any paid route: it takes PAYMENT-SIGNATURE (x402), answers 402
 * with the quote (body and PAYMENT-REQUIRED header) or, for a payment it refuses, the error envelope,
 * and may answer with every payment code.
 */
export function ApiPaid(...more: ErrorCode[]): MethodDecorator {
  return applyDecorators(
    ApiSecurity('x402'),
    ApiResponse({
      status: 402,
      description: 'no PAYMENT-SIGNATURE: the quote (PaymentRequired, the top-level x402_version tells it apart); a refused payment: the error envelope',
      headers: {
        'PAYMENT-REQUIRED': {
          description: "the challenge in x402 camelCase, base64 JSON (exact entries only): on a quote, and on a refused payment with error naming @x402/svm's reason",
          schema: { type: 'string' },
        },
        'PAYMENT-RESPONSE': {
          description: 'on a settlement that failed or is still pending (payment.settlement_reverted, payment.unconfirmed: settlement_pending): success false and its errorReason',
          schema: { type: 'string' },
        },
      },
      content: { 'application/json': { schema: { oneOf: [ref('PaymentRequired'), ref('Error')] } } },
    }),
    ApiErrors(...PAYMENT_ERRORS, 'receipt.storage_unavailable', 'rate_limit.payment_in_flight', ...more),
  );
}
