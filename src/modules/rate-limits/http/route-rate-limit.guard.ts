import { applyDecorators, Injectable, SetMetadata, UseGuards, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, Throttle, ThrottlerGuard, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import { GatewayConfig } from '../../../config/gateway-config';
import type { ThrottlerRequest } from '@nestjs/throttler/dist/throttler.guard.interface';
import type { Request, Response } from 'express';
import { GatewayError } from '../../../errors/gateway-error';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { WINDOW_MS } from '../application/rate-limiter';
import { clientNetwork } from '../domain/client-network';
import { RATE_LIMITED_MESSAGE, rateLimitHeaders } from '../domain/rate-limit-headers';
import { decisionOf } from './rate-limit-throttler-storage';

const ROUTE_LIMIT_NAME = 'gw:route-limit-name';

/**
 * A route's own per-IP limit per minute (spec 8), counted by the throttler before the handler
 * runs, so a request refused by it does no work. `name` keys the window: routes that share a name
 * share a budget.
 */
export function RouteRateLimit(name: string, limitPerMinute: number): ClassDecorator & MethodDecorator {
  return applyDecorators(SetMetadata(ROUTE_LIMIT_NAME, name), Throttle({ default: { limit: limitPerMinute, ttl: WINDOW_MS } }), UseGuards(RouteRateLimitGuard), ApiErrors('rate_limit.exceeded'));
}

/**
 * @nestjs/throttler's guard with the gateway's identity and answers: the client is its network
 * (client-network.ts) (X-Forwarded-For is never trusted), and the headers and the 429 are the spec's, made by the same
 * function as the chat limits'.
 */
@Injectable()
export class RouteRateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly config: GatewayConfig,
  ) {
    super(options, storage, reflector);
  }

  /** One subscriber routinely holds a whole IPv6 /64, so the window is the client's network (client-network.ts). */
  protected override async getTracker(req: Request): Promise<string> {
    return clientNetwork(req.gw.clientAddress);
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    return `${this.routeName(context)}:ip:${tracker}`;
  }

  /** The decorator's limit, unless the configuration sets one for this route's name (GW_ENTERPRISE_RATE_LIMIT). */
  protected override async handleRequest({ context, limit: decorated, ttl, throttler, blockDuration, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context) as { req: Request; res: Response };
    const limit = this.config.limits.routeRateLimits[this.routeName(context)] ?? decorated;
    const throttlerName = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), throttlerName);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, throttlerName);
    const headers = rateLimitHeaders(decisionOf(record, limit));
    if (record.isBlocked) throw new GatewayError('rate_limit.exceeded', RATE_LIMITED_MESSAGE, headers);
    for (const [header, value] of Object.entries(headers)) res.setHeader(header, value);
    return true;
  }

  private routeName(context: ExecutionContext): string {
    return this.reflector.getAllAndOverride<string | undefined>(ROUTE_LIMIT_NAME, [context.getHandler(), context.getClass()]) ?? context.getClass().name;
  }
}
