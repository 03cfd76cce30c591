/** Operator endpoints: exempt from the concurrency cap and from rate limits (spec section 8). */
const OPS_PATHS: ReadonlySet<string> = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

export function isOpsPath(path: string): boolean {
  return OPS_PATHS.has(path);
}
