/**
 * The console's Content-Security-Policy (docs/decisions.md, "Console"): its own script and style
 * only, nothing inline, requests to this gateway only, and no framing. Every other response keeps
 * the spec's `default-src 'none'` (src/http/security-headers.ts).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
