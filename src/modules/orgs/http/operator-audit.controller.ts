import { Controller, Get, Query } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { EnterpriseAuth } from '../../../http/enterprise-auth.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { OrgDirectory } from '../application/org-directory';
import { AUDIT_PAGE } from './org-openapi';
import { auditView, listView } from './org-views';
import { AUDIT_PAGE_QUERY, auditPagePipe, checkedAuditPage } from './audit-page';
import { ENTERPRISE_RATE_LIMIT } from './orgs.controller';

/** GET /v1/audit (the admin token): changes outside any org, wallet budgets and service registrations, in the org audit's shape. */
@Controller('v1/audit')
@RouteRateLimit('enterprise', ENTERPRISE_RATE_LIMIT)
@ApiErrors('org.storage_not_configured', 'request.invalid_query')
export class OperatorAuditController {
  constructor(private readonly directory: OrgDirectory) {}

  /** 50 entries a page, oldest first; `page` counts from 1. */
  @Get()
  @EnterpriseAuth('admin-token')
  @ApiAnswer(200, "a page of the operator's audit", AUDIT_PAGE)
  @ApiQuery(AUDIT_PAGE_QUERY)
  async audit(@Query('page', auditPagePipe()) page = 1) {
    return listView(await this.directory.operatorAudit(checkedAuditPage(page)), auditView);
  }
}
