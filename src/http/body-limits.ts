/** Spec section 8: 10 MB for chat (and by default), 64 KiB for search, 16 KiB for price. */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export const ROUTE_BODY_LIMITS: Readonly<Record<string, number>> = {
  '/v1/search': 64 * 1024,
  '/v1/solana/price': 16 * 1024,
};

/** Body size limits by exact path. Limits apply before routing, when the body is read. */
export class BodyLimits {
  private readonly byPath: ReadonlyMap<string, number>;

  constructor(
    perRoute: Readonly<Record<string, number>>,
    private readonly fallback = DEFAULT_BODY_LIMIT,
  ) {
    this.byPath = new Map(Object.entries(perRoute));
  }

  limitFor(path: string): number {
    return this.byPath.get(path) ?? this.fallback;
  }
}
