import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { clientNetwork } from '../domain/client-network';
import { RateLimiter, type Bucket } from './rate-limiter';

/**
 * Unpaid work budgeted per client network in request body bytes (GW_UNPAID_BODY_BYTES_PER_MIN;
 * docs/decisions.md, "The unpaid budget"): what the router's score, the estimate and the prompt
 * guard read before anything is paid grows with the body, so a client's unpaid requests are counted
 * by their bytes, after its own window and before any of that work; a request whose payment
 * verifies gets its bytes back. 0 turns the budget off.
 */
/** From this size a body's validation waits for a look at the client's budget (UnpaidBudget.validate). */
export const VALIDATION_CHECK_BYTES = 64 * 1024;

@Injectable()
export class UnpaidBudget {
  private readonly bytesPerWindow: number;

  constructor(
    private readonly limiter: RateLimiter,
    config: GatewayConfig,
  ) {
    this.bytesPerWindow = config.limits.unpaidBodyBytesPerMin;
  }

  /** The window a request's body counts in (`unpaid:bytes`), or null when the budget is off or there is no body. */
  bucket(clientAddress: string, bodyBytes: number): Bucket | null {
    if (this.bytesPerWindow === 0 || bodyBytes === 0) return null;
    const network = clientAddress === 'unknown' ? 'unknown' : clientNetwork(clientAddress);
    return { key: `unpaid:bytes:${network}`, limit: this.bytesPerWindow, weight: bodyBytes };
  }

  /** Counts the body; past the budget, 429 with the window's headers. */
  async charge(clientAddress: string, bodyBytes: number): Promise<void> {
    const bucket = this.bucket(clientAddress, bodyBytes);
    if (bucket) await this.limiter.admit([bucket]);
  }

  /**
   * A body's validation, which is unpaid work too: a body it refuses is counted (the 429 then, past
   * the budget, in place of the 400); a valid body is counted later, in its turn. A body of
   * VALIDATION_CHECK_BYTES or more is not validated at all while the client's budget is spent (429,
   * counting nothing); a smaller one costs less than a millisecond to validate (0.7 ms for 64 KiB of
   * blank text parts), so every request is not made to wait for one more store read. Before, a chat
   * body refused by its validation was never counted: 900 KB of blank text parts cost about 50 ms of
   * CPU for its 400, as often as a client sent it (the second adversarial pass over the edge).
   */
  async validate<T>(clientAddress: string, bodyBytes: number, parse: () => T): Promise<T> {
    const bucket = this.bucket(clientAddress, bodyBytes);
    if (!bucket) return parse();
    if (bodyBytes >= VALIDATION_CHECK_BYTES) await this.limiter.check(bucket);
    try {
      return parse();
    } catch (refusal) {
      await this.limiter.admit([bucket]);
      throw refusal;
    }
  }

  /** The request's payment verified: its body was paid work after all. */
  async refund(clientAddress: string, bodyBytes: number): Promise<void> {
    const bucket = this.bucket(clientAddress, bodyBytes);
    if (bucket) await this.limiter.giveBack(bucket);
  }
}
