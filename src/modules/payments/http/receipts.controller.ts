import { Controller, Get, Optional, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { GatewayError } from '../../../errors/gateway-error';
import { ReqContext, type RequestContext } from '../../../http/request-context';
import { RateLimiter } from '../../rate-limits/application/rate-limiter';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { ReceiptStore } from '../ports/receipt-store';
import { receiptView, type ReceiptView } from './receipt-view';

/** Spec 4.3, 8: the receipt route's own per-IP limit, stricter than the paid one (requests per minute). */
export const RECEIPT_RATE_LIMIT = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /v1/receipts/:id (spec 4.3): the id is the capability; there is no listing. */
@Controller('v1/receipts')
export class ReceiptsController {
  constructor(
    private readonly limiter: RateLimiter,
    /** Absent with GW_STORAGE=none. */
    @Optional() private readonly receipts?: ReceiptStore,
  ) {}

  @Get(':id')
  async find(@Param('id') id: string, @ReqContext() ctx: RequestContext, @Res({ passthrough: true }) res: Response): Promise<ReceiptView> {
    // Counted before anything else, so probing with malformed ids spends the same budget.
    const decision = await this.limiter.admit([{ key: `receipts:ip:${ctx.clientAddress}`, limit: RECEIPT_RATE_LIMIT }]);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    if (!this.receipts) throw new GatewayError('service_unavailable', 'receipt storage is not configured');
    // Checked before storage: the uuid column would reject a malformed id with an error, not a miss.
    const receipt = UUID.test(id) ? await this.receipts.find(id) : null;
    // Unknown and malformed ids get the same answer, so the route tells a guesser nothing.
    if (!receipt) throw new GatewayError('not_found', 'receipt not found');
    return receiptView(receipt);
  }
}
