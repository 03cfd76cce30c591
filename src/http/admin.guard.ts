import { applyDecorators, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { ApiErrors } from './openapi/api-errors';
import { AdminTokenThrottle } from './admin-token';
import { routeNotFound } from './error-response';
import { isOpsPath } from './ops-paths';
import { requestPath, routePath } from './request-context';

/** What an admin route does while GW_ADMIN_TOKEN is unset (spec 5.4). */
export type WhenAdminTokenUnset = 'hide' | 'unavailable';

const WHEN_UNSET = Symbol('adminWhenUnset');

/**
 * Requires `Authorization: Bearer <GW_ADMIN_TOKEN>`. Without a configured token the route is either
 * hidden (the same 404 as an unknown route, as /metrics) or answers 503 (as org management).
 */
export function AdminOnly(whenUnset: WhenAdminTokenUnset): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(WHEN_UNSET, whenUnset),
    UseGuards(AdminGuard),
    ApiBearerAuth('admin'),
    ApiErrors('admin.unauthorized', 'rate_limit.exceeded', whenUnset === 'hide' ? 'route.not_found' : 'admin.not_configured'),
  );
}

/**
 * Past the bound on wrong tokens (AdminTokenThrottle) an admin route answers 429; an operator route
 * (/metrics), which spec 8 exempts from rate limits, answers 401 for the rest of the window instead.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly config: GatewayConfig,
    private readonly reflector: Reflector,
    private readonly throttle: AdminTokenThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    if (!this.config.adminToken) {
      const whenUnset = this.reflector.getAllAndOverride<WhenAdminTokenUnset>(WHEN_UNSET, [context.getHandler(), context.getClass()]);
      if (whenUnset === 'hide') throw routeNotFound(req.method, requestPath(req));
      throw new GatewayError('admin.not_configured', 'admin endpoint not configured');
    }
    const verdict = await this.throttle.verify(req.headers.authorization, req.gw.clientAddress);
    if (verdict.kind === 'admin') return true;
    if (verdict.kind === 'throttled' && !isOpsPath(routePath(requestPath(req)))) throw this.throttle.refusal(verdict.decision);
    throw new GatewayError('admin.unauthorized', 'missing or invalid admin token');
  }
}
