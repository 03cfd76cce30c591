import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, concatMap, type Observable } from 'rxjs';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { PrepaidPayments } from '../application/prepaid-payments';
import { paidRequests } from './paid-route';

/**
 * The serving half of @PaidRoute: the payment was settled by X402Guard, so whatever the handler
 * does, the response carries the receipt (`X-Gw-Receipt`, on a 502 too), the x402
 * `PAYMENT-RESPONSE` once confirmed and the payer's rate-limit window, and the charge is recorded.
 */
@Injectable()
export class X402Interceptor implements NestInterceptor {
  constructor(private readonly prepaid: PrepaidPayments) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const call = paidRequests.get(req);
    if (!call) throw new Error('X402Interceptor on a request X402Guard did not let through');
    const { payment, settlement } = call.prepaid;
    for (const [name, value] of Object.entries(rateLimitHeaders(payment.rateLimit))) res.setHeader(name, value);
    if (payment.receiptPath) res.setHeader('X-Gw-Receipt', payment.receiptPath);
    if (settlement.paymentResponse) res.setHeader('PAYMENT-RESPONSE', settlement.paymentResponse);
    // Awaited before the answer goes on, so a channel's next voucher finds this draw recorded.
    return next.handle().pipe(
      concatMap(async (answer: unknown) => {
        // A draw's record takes database round trips: a request timeout meanwhile would answer 408 for a draw recorded all the same.
        req.gw.suspendTimeout();
        await this.prepaid.served(call.prepaid, req.gw.id, true);
        return answer;
      }),
      catchError(async (err: unknown) => {
        await this.prepaid.served(call.prepaid, req.gw.id, false);
        throw err;
      }),
    );
  }
}
