import type { RateDecision } from '../ports/rate-limit-store';

/** Spec 7, 8: durations in seconds, not timestamps; a refusal adds retry-after. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetSecs),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSecs);
  return headers;
}

export const RATE_LIMITED_MESSAGE = 'Too many requests. Please slow down.';
