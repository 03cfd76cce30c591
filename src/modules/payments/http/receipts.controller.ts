import { Controller, Get, Optional, Param } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { ReceiptStore } from '../ports/receipt-store';
import { RECEIPT } from './payments-openapi';
import { receiptView, type ReceiptView } from './receipt-view';

/** Spec 4.3, 8: the receipt route's own per-IP limit, stricter than the paid one (requests per minute). */
export const RECEIPT_RATE_LIMIT = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET /v1/receipts/:id (spec 4.3): the id is the capability; there is no listing. The limit is
 * counted before the handler, so probing with malformed ids spends the same budget.
 */
@Controller('v1/receipts')
@RouteRateLimit('receipts', RECEIPT_RATE_LIMIT)
export class ReceiptsController {
  /** Absent with GW_STORAGE=none. */
  constructor(@Optional() private readonly receipts?: ReceiptStore) {}

  @Get(':id')
  @ApiAnswer(200, 'the receipt', RECEIPT)
  @ApiErrors('receipt.not_found', 'receipt.storage_not_configured', 'receipt.storage_unavailable')
  async find(@Param('id') id: string): Promise<ReceiptView> {
    if (!this.receipts) throw new GatewayError('receipt.storage_not_configured', 'receipt storage is not configured');
    // Checked before storage: the uuid column would reject a malformed id with an error, not a miss.
    const receipt = UUID.test(id) ? await this.receipts.find(id) : null;
    // Unknown and malformed ids get the same answer, so the route tells a guesser nothing.
    if (!receipt) throw new GatewayError('receipt.not_found', 'receipt not found');
    return receiptView(receipt);
  }
}
