/**
 * Where a request's time went, for the overhead split operators see in metrics (docs/performance.md): time
 * waiting on an upstream provider and time spent on the payment (verification and settlement).
 * The rest of a request's duration is the gateway's own overhead.
 */
export class StageTiming {
  upstreamMs = 0;
  /** The provider that answered, once one did. */
  provider: string | null = null;
  verifyMs = 0;
  settleMs = 0;

  upstream(provider: string, ms: number): void {
    this.provider = provider;
    this.upstreamMs += ms;
  }

  payment(stage: 'verify' | 'settle', ms: number): void {
    if (stage === 'verify') this.verifyMs += ms;
    else this.settleMs += ms;
  }
}
