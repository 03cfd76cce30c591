import { applyDecorators, createParamDecorator, SetMetadata, UseGuards, UseInterceptors, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { PAID_ROUTE, paidRequests, type PaidRouteRequest, type PaidRouteSpec } from './paid-route';
import { ApiPaid } from './paid-route-openapi';
import { X402Guard } from './x402.guard';
import { X402Interceptor } from './x402.interceptor';

/**
 * Makes a route paid with x402 `exact`, settled before the handler runs (docs/decisions.md, "x402
 * around controllers"): X402Guard validates, quotes (402) or takes the payment; X402Interceptor
 * adds the receipt and payment headers and records the charge whatever the handler does.
 */
export function PaidRoute<T>(spec: PaidRouteSpec<T>): MethodDecorator {
  return applyDecorators(SetMetadata(PAID_ROUTE, spec), UseGuards(X402Guard), UseInterceptors(X402Interceptor), ApiPaid('budget.payer_budgeted', 'rate_limit.channel_busy'));
}

function paidRequest(host: ExecutionContext): PaidRouteRequest {
  const call = paidRequests.get(host.switchToHttp().getRequest<Request>());
  if (!call) throw new Error('a paid parameter on a route without @PaidRoute');
  return call;
}

/** The input the guard validated; the handler never parses the body again. */
export const PaidInput = createParamDecorator((_data: unknown, host: ExecutionContext): unknown => paidRequest(host).input);

/** What the offer fixed before the payment (for the proxy, the checked address to connect to). */
export const ServingTerms = createParamDecorator((_data: unknown, host: ExecutionContext): unknown => paidRequest(host).serving);
