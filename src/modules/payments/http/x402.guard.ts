import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { requestPath } from '../../../http/request-context';
import { VerbatimResponse } from '../../../http/verbatim-response';
import { PrepaidPayments } from '../application/prepaid-payments';
import { ServicePrices } from '../ports/service-prices';
import { PAID_ROUTE, paidCalls, type PaidRouteSpec } from './paid-call';

/**
 * The paying half of @PaidRoute, in the spec's order (4.6, 4.7): the body is validated first (400,
 * never a 402, nothing charged), then the price is looked up (a tool turned off is 503), then a
 * request without PAYMENT-SIGNATURE gets the 402 challenge (body and header, as chat's), and one
 * with it is verified and settled on chain before the handler may run.
 */
@Injectable()
export class X402Guard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly prices: ServicePrices,
    private readonly prepaid: PrepaidPayments,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = this.reflector.get<PaidRouteSpec<unknown> | undefined>(PAID_ROUTE, context.getHandler());
    if (!spec) throw new Error('X402Guard on a route without @PaidRoute');
    const req = context.switchToHttp().getRequest<Request>();
    const input = spec.input({ body: req.body, params: req.params as Record<string, string> });
    const service = spec.service(input);
    const cost = await this.prices.costOf(service);
    const path = requestPath(req);
    const header = req.headers['payment-signature'];
    if (typeof header !== 'string') {
      const challenge = await this.prepaid.quote(path, cost, req.gw.clientAddress);
      throw new VerbatimResponse(402, challenge.body, { 'PAYMENT-REQUIRED': challenge.header });
    }
    const request = {
      path,
      cost,
      requestId: req.gw.id,
      clientAddress: req.gw.clientAddress,
      signal: req.gw.signal,
      timing: req.gw.timing,
      onBroadcast: () => req.gw.suspendTimeout(),
    };
    paidCalls.set(req, { input, prepaid: await this.prepaid.settle(header, request, service.id) });
    return true;
  }
}
