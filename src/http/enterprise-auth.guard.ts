import { applyDecorators, Injectable, Optional, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { ApiErrors } from './openapi/api-errors';
import { ORG_API_KEY, roleAtLeast, type OrgRole } from '../modules/orgs/domain/org-role';
import { OrgApiKeys, type OrgKeyHolder } from '../modules/orgs/ports/org-api-keys';
import { AdminTokenThrottle, bearerToken, isAdminAuthorization, sha256 } from './admin-token';

/** The caller of an enterprise route: the gateway's admin, above all orgs, or an org API key's holder. */
export type EnterpriseCaller = { kind: 'admin' } | ({ kind: 'org-key' } & OrgKeyHolder);

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by EnterpriseAuthGuard on the routes it guards. */
    enterpriseCaller?: EnterpriseCaller;
  }
}

const REQUIRED_ROLE = Symbol('requiredOrgRole');

/** What a route asks of its caller: a role in the org, or the admin token itself (an org key is then 403). */
export type EnterpriseRequirement = OrgRole | 'admin-token';

/**
 * An enterprise route (spec 4.9, 5.4): the admin token or an org API key whose role is at least
 * `role`. A key for another org than the route's `:org_id` gets the same 404 as a missing org, so
 * no caller learns which orgs exist.
 */
export function EnterpriseAuth(role: EnterpriseRequirement): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_ROLE, role),
    UseGuards(EnterpriseAuthGuard),
    ApiBearerAuth('admin'),
    ...(role === 'admin-token' ? [] : [ApiBearerAuth('orgApiKey')]),
    ApiErrors('admin.not_configured', 'org.unauthorized', 'org.role_insufficient', 'org.not_found', 'org.storage_unavailable', 'rate_limit.exceeded'),
  );
}

/**
 * 503 while GW_ADMIN_TOKEN is unset (org keys included: enterprise management is off), 401 for
 * missing, unknown or revoked credentials, 403 for a role too low, 404 for another org's route.
 */
@Injectable()
export class EnterpriseAuthGuard implements CanActivate {
  constructor(
    private readonly config: GatewayConfig,
    private readonly reflector: Reflector,
    private readonly throttle: AdminTokenThrottle,
    /** Absent until org storage is wired: every org key is then unknown. */
    @Optional() private readonly keys?: OrgApiKeys,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    if (!this.config.adminToken) throw new GatewayError('admin.not_configured', 'admin endpoint not configured');
    req.enterpriseCaller = await this.caller(req.headers.authorization, req.gw.clientAddress);
    const required = this.reflector.getAllAndOverride<EnterpriseRequirement | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]) ?? 'owner';
    const caller = req.enterpriseCaller;
    if (caller.kind === 'admin') return true;
    if (required === 'admin-token') throw new GatewayError('org.role_insufficient', 'this route takes the admin token, not an org API key');
    const orgId = req.params.org_id;
    // Compared as stored: ids are lower case (the routes' IdPipe reads paths the same way).
    if (orgId !== undefined && String(orgId).toLowerCase() !== caller.orgId) throw new GatewayError('org.not_found', 'org not found');
    if (!roleAtLeast(caller.role, required)) throw new GatewayError('org.role_insufficient', `this action needs the ${required} role`);
    return true;
  }

  /** A token shaped as an org key is looked up as one; any other is an admin token, whose wrong guesses AdminTokenThrottle bounds. */
  private async caller(authorization: string | undefined, clientAddress: string): Promise<EnterpriseCaller> {
    const token = bearerToken(authorization);
    if (token !== null && ORG_API_KEY.test(token) && !isAdminAuthorization(authorization, this.config.adminToken)) {
      const holder = this.keys ? await this.findActive(this.keys, token) : null;
      if (holder) return { kind: 'org-key', ...holder };
    } else {
      const verdict = await this.throttle.verify(authorization, clientAddress);
      if (verdict.kind === 'admin') return { kind: 'admin' };
      if (verdict.kind === 'throttled') throw this.throttle.refusal(verdict.decision);
    }
    throw new GatewayError('org.unauthorized', 'missing or invalid admin token or API key');
  }

  /** The key store failing is the service's problem, not the caller's: 503, and the key is not judged. */
  private async findActive(keys: OrgApiKeys, token: string): Promise<OrgKeyHolder | null> {
    try {
      return await keys.findActive(sha256(token));
    } catch (err) {
      throw new GatewayError('org.storage_unavailable', 'org storage is unavailable; retry shortly', {}, { cause: err });
    }
  }
}
