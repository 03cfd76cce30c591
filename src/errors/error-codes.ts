import type { ErrorType } from './gateway-error';

interface ErrorCodeEntry {
  readonly type: ErrorType;
  /** One line for the README's table of codes, which a spec keeps equal to this catalogue. */
  readonly meaning: string;
}

/**
 * Every `error.code` the gateway answers with, and the type (so the status) each one carries.
 * A code names the failure and stays once published; messages may be reworded, codes may not
 * (docs/decisions.md, "Stable error codes"). Grouped by where the failure arises.
 */
export const ERROR_CODES = {
  'request.malformed_http': { type: 'bad_request', meaning: 'the HTTP request itself could not be parsed' },
  'request.headers_too_large': { type: 'request_header_fields_too_large', meaning: 'the request headers exceed 64 KiB' },
  'request.receive_timeout': { type: 'request_timeout', meaning: 'the request did not arrive in full within the server receive time' },
  'request.timeout': { type: 'request_timeout', meaning: 'the request exceeded GW_REQUEST_TIMEOUT_SECS before its answer began; nothing was charged' },
  'request.unsupported_content_type': { type: 'unsupported_media_type', meaning: 'the body was not sent as application/json' },
  'request.unsupported_charset': { type: 'unsupported_media_type', meaning: 'the JSON body is not UTF-8' },
  'request.unsupported_encoding': { type: 'unsupported_media_type', meaning: 'the body has a Content-Encoding the gateway does not decode' },
  'request.body_too_large': { type: 'payload_too_large', meaning: 'the body exceeds the limit of its route' },
  'request.malformed_json': { type: 'bad_request', meaning: 'the body is not valid JSON' },
  'request.body_aborted': { type: 'bad_request', meaning: 'the client stopped sending the body' },
  'request.body_length_mismatch': { type: 'bad_request', meaning: 'the body length differs from its Content-Length' },
  'request.unreadable_body': { type: 'bad_request', meaning: 'the body could not be read' },
  'request.invalid_body': { type: 'bad_request', meaning: 'the body is not a valid request for the endpoint: a field is missing, unknown where not allowed, of the wrong type or out of range' },
  'request.nesting_too_deep': { type: 'bad_request', meaning: 'objects and arrays in the body nest deeper than 64 levels' },
  'route.not_found': { type: 'not_found', meaning: 'no route for this method and path (also a hidden admin route)' },
  'cors.origin_not_allowed': { type: 'forbidden', meaning: 'the browser Origin is not among the allowed origins' },
  'http.bad_request': { type: 'bad_request', meaning: 'a client error raised by the framework that no other code names' },
  'http.unauthorized': { type: 'unauthorized', meaning: 'a 401 raised by the framework' },
  'http.forbidden': { type: 'forbidden', meaning: 'a 403 raised by the framework' },
  'http.service_unavailable': { type: 'service_unavailable', meaning: 'a 503 raised by the framework' },
  'admin.not_configured': { type: 'service_unavailable', meaning: 'an admin endpoint was called while GW_ADMIN_TOKEN is unset' },
  'admin.unauthorized': { type: 'unauthorized', meaning: 'the admin token is missing or wrong' },
  'org.unauthorized': { type: 'unauthorized', meaning: 'an enterprise route was called without the admin token or an active org API key' },
  'org.role_insufficient': { type: 'forbidden', meaning: 'the org API key has too low a role for this action' },
  'org.not_found': { type: 'not_found', meaning: 'no such org, or an org API key of another org' },
  'health.not_ready': { type: 'service_unavailable', meaning: 'a configured database or Redis is unusable (GET /health/ready)' },
  'rate_limit.exceeded': { type: 'rate_limit_exceeded', meaning: 'a rate-limit window is full; the headers say which and until when' },
  'rate_limit.payment_in_flight': { type: 'rate_limit_exceeded', meaning: 'payments in flight from this token account already commit its balance; retry once one settles' },
  'chat.model_not_found': { type: 'model_not_found', meaning: 'no model, alias or profile has this name' },
  'chat.too_many_messages': { type: 'bad_request', meaning: 'the request has more than 256 messages' },
  'chat.blank_conversation': { type: 'bad_request', meaning: 'no message carries text, an image, a tool call or a tool result' },
  'chat.invalid_tool_message': { type: 'bad_request', meaning: 'tool_calls on a message that is not the assistant, or a tool message without tool_call_id' },
  'chat.max_tokens_conflict': { type: 'bad_request', meaning: 'max_tokens and max_completion_tokens are both sent and differ' },
  'chat.vision_unsupported': { type: 'unsupported_media_type', meaning: 'image input for a model (or every model of a profile) without vision' },
  'chat.tools_unsupported': { type: 'bad_request', meaning: 'tools for a model (or every model of a profile) without tool calling' },
  'chat.context_exceeded': { type: 'bad_request', meaning: 'the messages plus the completion exceed the context window of the model (or of every model of a profile)' },
  'chat.content_blocked': { type: 'bad_request', meaning: 'the prompt guard refused the request, before any payment' },
  'chat.stream_too_long': { type: 'request_timeout', meaning: 'a started stream ran past GW_STREAM_MAX_SECS (sent as the final stream event)' },
  'upstream.unavailable': { type: 'upstream_unavailable', meaning: 'no provider could answer right now; nothing was charged' },
  'upstream.no_provider_key': { type: 'internal_error', meaning: 'no provider key is configured for any model that could answer' },
  'upstream.unusable_response': { type: 'provider_error', meaning: 'the provider refused the request or answered in a shape the gateway cannot use' },
  'upstream.malformed_stream': { type: 'provider_error', meaning: 'the provider sent a stream the gateway cannot read' },
  'upstream.stream_empty': { type: 'provider_error', meaning: 'the provider stream ended before the answer began' },
  'upstream.stream_incomplete': { type: 'provider_error', meaning: 'the provider stream ended before the answer was complete' },
  'upstream.stopped_mid_stream': { type: 'upstream_unavailable', meaning: 'the provider stopped mid-stream; a paid answer is charged for what was delivered' },
  'payment.header_too_large': { type: 'invalid_payment', meaning: 'PAYMENT-SIGNATURE exceeds its size limit (50 KB)' },
  'payment.malformed': { type: 'invalid_payment', meaning: 'PAYMENT-SIGNATURE cannot be decoded as an x402 payment' },
  'payment.resource_mismatch': { type: 'bad_request', meaning: 'the payment names another resource than this endpoint' },
  'payment.network_mismatch': { type: 'bad_request', meaning: 'the payment network differs from the one in the 402' },
  'payment.asset_mismatch': { type: 'bad_request', meaning: 'the payment asset differs from the one in the 402' },
  'payment.recipient_mismatch': { type: 'bad_request', meaning: 'the payment pay_to differs from the one in the 402' },
  'payment.amount_insufficient': { type: 'bad_request', meaning: 'the payment amount is below the quote' },
  'payment.scheme_not_accepted': { type: 'bad_request', meaning: 'the payment scheme is not accepted on this endpoint' },
  'payment.scheme_payload_mismatch': { type: 'bad_request', meaning: 'the payment scheme does not match its payload' },
  'payment.channel_unavailable': { type: 'not_found', meaning: 'a channel voucher was sent but channel payments are unavailable' },
  'payment.replayed': { type: 'invalid_payment', meaning: 'the payment transaction was already used' },
  'payment.unverifiable': { type: 'invalid_payment', meaning: 'the transaction is not a valid transfer of the quote to the gateway' },
  'payment.blockhash_expired': { type: 'invalid_payment', meaning: 'the transaction blockhash has expired' },
  'payment.blockhash_short_lived': { type: 'invalid_payment', meaning: 'the transaction blockhash has less life left than GW_MIN_BLOCKHASH_LIFE_SECS' },
  'payment.expired_before_answer': { type: 'invalid_payment', meaning: 'the blockhash was about to expire before the answer began; nothing was charged' },
  'payment.unconfirmed': { type: 'invalid_payment', meaning: 'the transaction could not be confirmed on chain' },
  'payment.insufficient_funds': { type: 'invalid_payment', meaning: 'the payer has too little USDC on chain for the payment' },
  'payment.fee_not_sponsored': { type: 'invalid_payment', meaning: 'the gateway does not sponsor this network fee; the payer must pay it' },
  'payment.replay_store_full': { type: 'service_unavailable', meaning: 'too many payments are in flight on this instance' },
  'payment.settlement_failed': { type: 'settlement_failed', meaning: 'the payment could not be settled, so the answer was not delivered; nothing was charged' },
  'payment.settlement_reverted': { type: 'settlement_failed', meaning: 'the payment landed on chain with an error and moved no funds; nothing was charged' },
  'receipt.not_found': { type: 'not_found', meaning: 'no receipt has this id (unknown and malformed ids alike)' },
  'receipt.storage_not_configured': { type: 'service_unavailable', meaning: 'receipt storage is not configured' },
  'receipt.storage_unavailable': { type: 'service_unavailable', meaning: 'receipt storage is unavailable; the payment was not used' },
  'server.internal_error': { type: 'internal_error', meaning: 'an unexpected failure inside the gateway' },
  'server.overloaded': { type: 'service_unavailable', meaning: 'GW_MAX_CONCURRENT_REQUESTS requests are already in flight' },
  'server.shutting_down': { type: 'service_unavailable', meaning: 'the gateway is shutting down; a payment not yet broadcast was not used' },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

export type ErrorCode = keyof typeof ERROR_CODES;
