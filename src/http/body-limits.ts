import { routePath } from './request-context';

/** Spec section 8: 10 MB for chat (and by default), 64 KiB for search, 16 KiB for price. */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export const ROUTE_BODY_LIMITS: Readonly<Record<string, number>> = {
  '/v1/search': 64 * 1024,
  '/v1/solana/price': 16 * 1024,
};

/** A call proxied to a registered service (`/v1/services/{id}/proxy`): 1 MiB, far above an API call, far below chat's 10 MB. */
const PROXY_PATH = /^\/v1\/services\/[a-z0-9-]{1,64}\/proxy$/;
export const PROXY_BODY_LIMIT = 1024 * 1024;

/** Body size limits by exact path (and the proxy's paths). Limits apply before routing, when the body is read. */
export class BodyLimits {
  private readonly byPath: ReadonlyMap<string, number>;

  constructor(
    perRoute: Readonly<Record<string, number>>,
    private readonly fallback = DEFAULT_BODY_LIMIT,
  ) {
    this.byPath = new Map(Object.entries(perRoute));
  }

  limitFor(path: string): number {
    const routed = routePath(path);
    return this.byPath.get(routed) ?? (PROXY_PATH.test(routed) ? PROXY_BODY_LIMIT : this.fallback);
  }
}
