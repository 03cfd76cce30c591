import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { EnterpriseAuth } from '../../../http/enterprise-auth.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { ENTERPRISE_RATE_LIMIT } from './orgs.controller';
import { CALLER } from './org-openapi';

/**
 * GET /v1/whoami: what the bearer credential is, so a client (the console) offers only what its role
 * may do without probing routes for 403s (docs/decisions.md, "Console").
 */
@Controller('v1/whoami')
@RouteRateLimit('enterprise', ENTERPRISE_RATE_LIMIT)
export class WhoAmIController {
  @Get()
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'the admin token, or the org key with its org and role', CALLER)
  whoami(@Req() req: Request) {
    const caller = req.enterpriseCaller;
    if (!caller || caller.kind === 'admin') return { kind: 'admin' as const };
    return { kind: 'org_key' as const, org_id: caller.orgId, key_id: caller.keyId, role: caller.role };
  }
}
