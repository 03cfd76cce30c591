/**
 * Transaction signatures already used (spec 5.3). `seen` is the early look-up; `claim` is the
 * atomic step taken after verification and before the provider is called, so parallel copies of
 * one payment can never both be served; `release` gives a claim back when nothing was broadcast.
 */
export abstract class ReplayStore {
  abstract seen(signature: string): Promise<boolean>;

  /** True when this caller now owns the signature; false when it was already claimed. */
  abstract claim(signature: string, ttlMs: number): Promise<boolean>;

  abstract release(signature: string): Promise<void>;

  /** Keeps a claim at least `ttlMs` from now (taking it if it lapsed): a payment whose answer is kept for a resend stays "used" as long. */
  abstract hold(signature: string, ttlMs: number): Promise<void>;

  /** Whether claims are shared and durable (Redis up): only then are durable-nonce payments accepted. */
  abstract durable(): boolean;
}

/** Every slot of a bounded store holds a live claim: refusing is safer than forgetting one. */
export class ReplayStoreFull extends Error {
  override name = 'ReplayStoreFull';
  constructor() {
    super('replay store full of live claims');
  }
}

/** Spec 5.3: longer than a blockhash lives (about 90 s). */
export const REPLAY_TTL_MS = 120_000;
/** A durable-nonce transaction stays valid until its nonce advances: 24 hours of protection. */
export const NONCE_REPLAY_TTL_MS = 24 * 60 * 60 * 1000;
