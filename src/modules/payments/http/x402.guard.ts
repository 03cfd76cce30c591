import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { requestPath, routePath } from '../../../http/request-context';
import { VerbatimResponse } from '../../../http/verbatim-response';
import { PaymentAdmission } from '../application/payment-admission';
import { PrepaidPayments } from '../application/prepaid-payments';
import { PaidServices } from '../ports/paid-services';
import { PAID_ROUTE, paidRequests, type PaidRouteSpec } from './paid-route';

/** Spec 4.7: `exact` advertised, a channel voucher taken unadvertised, escrow neither. */
const PAID_ROUTE_SCHEMES = ['exact', 'channel'] as const;

/**
 * The paying half of @PaidRoute, in the spec's order (4.6, 4.7): the body is validated first (400,
 * never a 402, nothing charged); the client's paid window is counted before anything costlier (a
 * quote in its paid bucket, a payment as an attempt); then the offer (a tool turned off is 503,
 * the proxy's endpoint is checked); then a request without PAYMENT-SIGNATURE gets the 402 challenge
 * (body and header, as chat's), and one with it is verified and settled on chain before the
 * handler may run (a channel voucher is checked and its draw recorded after the handler answered).
 */
@Injectable()
export class X402Guard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly services: PaidServices,
    private readonly admission: PaymentAdmission,
    private readonly prepaid: PrepaidPayments,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = this.reflector.get<PaidRouteSpec<unknown> | undefined>(PAID_ROUTE, context.getHandler());
    if (!spec) throw new Error('X402Guard on a route without @PaidRoute');
    const req = context.switchToHttp().getRequest<Request>();
    const input = spec.input({ body: req.body, rawBody: req.rawBody, params: req.params as Record<string, string> });
    const header = req.headers['payment-signature'];
    const payment = typeof header === 'string' ? header : undefined;
    const bodyBytes = req.rawBody?.length ?? 0;
    const attempt = await this.admission.admit(payment, req.gw.clientAddress, bodyBytes);
    const service = spec.service(input);
    const offer = await this.services.offer(service);
    // The resource a payment names is the route as matched, so `/V1/SEARCH/` pays for `/v1/search`.
    const path = routePath(requestPath(req));
    if (payment === undefined || attempt === null) {
      const challenge = this.prepaid.quote(path, offer.cost);
      throw new VerbatimResponse(402, challenge.body, { 'PAYMENT-REQUIRED': challenge.header });
    }
    const request = {
      path,
      cost: offer.cost,
      requestId: req.gw.id,
      clientAddress: req.gw.clientAddress,
      signal: req.gw.signal,
      timing: req.gw.timing,
      onBroadcast: () => req.gw.suspendTimeout(),
      noteReceipt: (receiptPath: string) => req.gw.noteReceipt(receiptPath),
      bodyBytes,
      body: req.rawBody ?? Buffer.alloc(0),
    };
    paidRequests.set(req, { input, serving: offer.serving, prepaid: await this.prepaid.settle(payment, attempt, request, service.id, PAID_ROUTE_SCHEMES) });
    return true;
  }
}
