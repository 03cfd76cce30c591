import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { ServiceCallFailed, ServiceCaller, type PinnedTarget, type ServiceReply } from '../ports/service-caller';

/**
 * POST /v1/services/{id}/proxy, once paid: the call goes to the address the SSRF check accepted
 * before the payment (never resolved again), with no redirects. A 2xx reply is relayed; anything
 * else is a 502 after the payment settled (charged, with the receipt). An upstream 402 is one of
 * them: the gateway never pays an upstream.
 */
@Injectable()
export class ServiceProxy {
  constructor(
    private readonly caller: ServiceCaller,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(ServiceProxy.name);
  }

  /** `requestId`: the paid request, named on a failure's log line. */
  async call(id: string, target: PinnedTarget, body: Buffer, signal: AbortSignal, requestId: string): Promise<ServiceReply> {
    let reply: ServiceReply;
    try {
      reply = await this.caller.post(target, body, signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof ServiceCallFailed)) throw err;
      this.logger.warn({ request_id: requestId, service: id, reason: err.reason, detail: err.message }, 'proxied service failed after payment');
      throw new GatewayError('services.upstream_failed', `service ${id} did not answer (${err.reason}); the receipt says what was charged`);
    }
    if (reply.status >= 200 && reply.status < 300) return reply;
    this.logger.warn({ request_id: requestId, service: id, status: reply.status }, 'proxied service answered an error after payment');
    if (reply.status === 402) throw new GatewayError('services.upstream_payment_required', `service ${id} asked for payment; the gateway never pays an upstream`);
    throw new GatewayError('services.upstream_failed', `service ${id} answered ${reply.status}; the receipt says what was charged`);
  }
}
