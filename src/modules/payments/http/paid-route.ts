import type { Request } from 'express';
import type { Prepaid } from '../application/prepaid-payments';
import type { PricedService } from '../ports/paid-services';

export const PAID_ROUTE = Symbol('paidRoute');

/** What a route's `input` may read of the request. */
export interface PaidRequestParts {
  body: unknown;
  /** The exact bytes of the JSON body (what the proxy forwards), when there was one. */
  rawBody: Buffer | undefined;
  params: Readonly<Record<string, string>>;
}

/** What a paid route declares: how its request is validated and which priced service it sells. */
export interface PaidRouteSpec<T> {
  /** The handler's input from the request; throws a 400 GatewayError, before any payment work. */
  input(request: PaidRequestParts): T;
  /** The registry service whose flat price (plus the fee) this request costs. */
  service(input: T): PricedService;
}

/** A request the guard let through: its validated input and its settled payment. */
export interface PaidRouteRequest {
  input: unknown;
  /** What the offer fixed before the payment (ServiceOffer.serving). */
  serving: unknown;
  prepaid: Prepaid;
}

/** Set by X402Guard, read by X402Interceptor and @PaidInput; a WeakMap so nothing outlives its request. */
export const paidRequests = new WeakMap<Request, PaidRouteRequest>();
