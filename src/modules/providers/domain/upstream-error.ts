import type { ProviderName } from './provider-name';

/** What an upstream's refusal said, kept for the operator's log and never shown to a client. */
export interface UpstreamReplyDetails {
  /** The HTTP status. */
  status?: number;
  /** The start of the answer's body, secrets redacted (docs/decisions.md, "Upstream failures in the log"). */
  bodyExcerpt?: string;
  /** The provider's id for the call, to quote to its support. */
  requestId?: string;
  /** The Retry-After header as the provider sent it. */
  retryAfter?: string;
}

/**
 * Why an upstream call failed, in the two kinds the failure policy acts on (docs/decisions.md,
 * "Failure policy"): `unavailable` (connection refused or reset, timeout, 429, 5xx, an
 * open circuit) may be retried on another candidate; `bad_response` (malformed body, a
 * non-retryable 4xx) is the provider's answer and is not. Messages and details are for logs only;
 * clients get sanitised ones.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly status?: number;
  readonly bodyExcerpt?: string;
  readonly requestId?: string;
  readonly retryAfter?: string;

  constructor(
    readonly provider: ProviderName,
    readonly kind: 'unavailable' | 'bad_response',
    message: string,
    details: UpstreamReplyDetails = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = details.status;
    this.bodyExcerpt = details.bodyExcerpt;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
  }
}
