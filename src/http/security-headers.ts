import type { GatewayEnv } from '../config/gateway-config';

/**
 * Spec 5.9, on every response. Written by hand rather than with helmet: the spec names an exact
 * set, and helmet's defaults add seven more headers that would each need switching off.
 */
export function securityHeaders(env: GatewayEnv): ReadonlyArray<readonly [string, string]> {
  const headers: Array<readonly [string, string]> = [
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
    ['Content-Security-Policy', "default-src 'none'"],
  ];
  if (env === 'production') {
    headers.push(['Strict-Transport-Security', 'max-age=31536000; includeSubDomains']);
  }
  return headers;
}
