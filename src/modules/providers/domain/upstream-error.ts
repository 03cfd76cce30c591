import type { ProviderName } from './provider-name';

/**
 * Why an upstream call failed, in the two kinds the failure policy acts on
 * (ARCHITECTURE.md section 3): `unavailable` (connection refused or reset, timeout, 429, 5xx, an
 * open circuit) may be retried on another candidate; `bad_response` (malformed body, a
 * non-retryable 4xx) is the provider's answer and is not. Messages are for logs only; clients get
 * sanitised ones.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';

  constructor(
    readonly provider: ProviderName,
    readonly kind: 'unavailable' | 'bad_response',
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
