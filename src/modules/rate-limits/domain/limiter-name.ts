/**
 * The windows the RateLimiter counts, by key prefix (free-tier-limit.ts, paid-rate-limit.ts,
 * a2a-tasks.ts, src/http/admin-token.ts). A key's tail is a client address or a wallet: only the prefix becomes a metric
 * label, so the label set stays bounded however many clients there are.
 */
const LIMITERS = ['free:ip', 'free:global', 'paid:ip', 'paid:wallet', 'paid:attempt', 'unpaid:bytes', 'a2a:get', 'admin:failures'] as const;

export type LimiterName = (typeof LIMITERS)[number] | 'other' | `route:${string}`;

/** The limiter a bucket key belongs to; an unknown prefix is `other` rather than the key, which may name a client. */
export function limiterOf(key: string): LimiterName {
  return LIMITERS.find((prefix) => key === prefix || key.startsWith(`${prefix}:`)) ?? 'other';
}

/**
 * Route limits key their windows `<route name>:ip:<client network>` (route-rate-limit.guard.ts).
 * Route names are the constants given to `@RouteRateLimit`, a closed set; the network is dropped.
 */
export function routeLimiterOf(key: string): LimiterName {
  const at = key.indexOf(':ip:');
  return at > 0 ? `route:${key.slice(0, at)}` : 'other';
}
