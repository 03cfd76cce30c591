import type { AuditEntry } from '../domain/org';
import type { Page } from './org-store';

/**
 * The operator's audit: changes outside any org (a wallet's budget, a service registration), each
 * written by the store that makes the change, in the same transaction.
 */
export abstract class OperatorAudit {
  abstract page(page: { offset: number; limit: number }): Promise<Page<AuditEntry>>;
}
