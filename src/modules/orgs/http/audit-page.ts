import { ParseIntPipe } from '@nestjs/common';
import { fieldError, type GatewayError } from '../../../errors/gateway-error';
import { MAX_AUDIT_PAGE } from '../application/org-directory';

/** `?page=` of an audit (this org's, or the operator's): 50 entries a page, from 1. */
export const AUDIT_PAGE_QUERY = { name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } };

export function auditPagePipe(): ParseIntPipe {
  return new ParseIntPipe({ optional: true, exceptionFactory: () => badPage() });
}

export function checkedAuditPage(page: number): number {
  if (page < 1 || page > MAX_AUDIT_PAGE) throw badPage();
  return page;
}

function badPage(): GatewayError {
  return fieldError('request.invalid_query', 'page', `page must be a whole number from 1 to ${MAX_AUDIT_PAGE}`);
}
