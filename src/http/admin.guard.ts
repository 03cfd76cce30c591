import { applyDecorators, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { ApiErrors } from './openapi/api-errors';
import { isAdminAuthorization } from './admin-token';
import { routeNotFound } from './error-response';
import { requestPath } from './request-context';

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
    ApiErrors('admin.unauthorized', whenUnset === 'hide' ? 'route.not_found' : 'admin.not_configured'),
  );
}

@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly config: GatewayConfig,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (!this.config.adminToken) {
      const whenUnset = this.reflector.getAllAndOverride<WhenAdminTokenUnset>(WHEN_UNSET, [context.getHandler(), context.getClass()]);
      if (whenUnset === 'hide') throw routeNotFound(req.method, requestPath(req));
      throw new GatewayError('admin.not_configured', 'admin endpoint not configured');
    }
    if (!isAdminAuthorization(req.headers.authorization, this.config.adminToken)) {
      throw new GatewayError('admin.unauthorized', 'missing or invalid admin token');
    }
    return true;
  }
}
