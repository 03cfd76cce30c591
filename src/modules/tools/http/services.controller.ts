import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { fieldError, GatewayError } from '../../../errors/gateway-error';
import { AdminOnly } from '../../../http/admin.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import type { PaidRequestParts } from '../../payments/http/paid-route';
import { PaidInput, PaidRoute, ServingTerms } from '../../payments/http/paid-route.decorator';
import type { PinnedTarget } from '../ports/service-caller';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { ServiceOffers } from '../application/service-offers';
import { ServiceProxy } from '../application/service-proxy';
import { ServiceRegistry } from '../application/service-registry';
import { SERVICE_ID } from '../domain/service-entry';
import { parseServicePrice, pricingLabel } from '../domain/service-price';
import { ServiceRegistrationDto } from './service-registration.dto';
import { serviceView } from './service-views';
import { ApiProxied, SERVICE_ENTRY, SERVICE_LIST } from './tools-openapi';
import { AGENT_BODY_LIMIT, BodyLimit, SMALL_BODY_LIMIT } from '../../../http/body-limits';

/** The listing reads storage, so it is not free to repeat without bound (docs/decisions.md, "The service registry"). */
export const SERVICES_LIST_RATE_LIMIT = 120;

interface ProxyInput {
  id: string;
  /** The JSON body's bytes as the client sent them, forwarded unchanged (a parse and re-serialisation would round big numbers). */
  body: Buffer;
}

/**
 * Reply types relayed as they are; anything else goes out as bytes to download, so a registered
 * service can never have a page rendered on the gateway's origin.
 */
const RELAYED_TYPES = /^(application\/(json|[a-z0-9.+-]+\+json)|text\/plain)(;|$)/i;

/** The service registry (spec 2.7, 4.5, 4.10) and the paid proxy to external services without their own x402. */
@Controller('v1/services')
export class ServicesController {
  constructor(
    private readonly registry: ServiceRegistry,
    private readonly proxy: ServiceProxy,
    private readonly offers: ServiceOffers,
  ) {}

  @Get()
  @RouteRateLimit('services', SERVICES_LIST_RATE_LIMIT)
  @ApiQuery({ name: 'category', required: false, schema: { type: 'string', maxLength: 64 }, description: 'case-insensitive' })
  @ApiQuery({ name: 'internal', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiAnswer(200, 'the registry, sorted by id', SERVICE_LIST)
  @ApiErrors('request.invalid_query', 'services.storage_unavailable')
  async list(@Query('category') category: unknown, @Query('internal') internal: unknown) {
    if (category !== undefined && (typeof category !== 'string' || category.length > 64)) throw fieldError('request.invalid_query', 'category', 'category must be one string of at most 64 characters');
    if (internal !== undefined && internal !== 'true' && internal !== 'false') throw fieldError('request.invalid_query', 'internal', 'internal must be true or false');
    const data = (await this.registry.list({ category, internal: internal === undefined ? undefined : internal === 'true' })).map((entry) => serviceView(entry, this.offers.available(entry)));
    return { object: 'list', data, total: data.length };
  }

  @Post('register')
  @BodyLimit(SMALL_BODY_LIMIT)
  @AdminOnly('unavailable')
  @HttpCode(201)
  @ApiAnswer(201, 'the registered entry', SERVICE_ENTRY)
  @ApiErrors('services.already_exists', 'services.endpoint_refused', 'services.storage_not_configured', 'services.storage_unavailable')
  async register(@Body() body: ServiceRegistrationDto) {
    const priceAtomic = parseServicePrice(body.price_per_request_usdc ?? null) ?? null;
    if (!body.x402_enabled && (priceAtomic === null || priceAtomic === 0n)) {
      throw fieldError('request.invalid_body', 'price_per_request_usdc', 'price_per_request_usdc above 0 is required when x402_enabled is false: the gateway sells calls to the service');
    }
    const entry = await this.registry.register({
      id: body.id,
      name: body.name,
      category: body.category,
      endpoint: body.endpoint,
      x402Enabled: body.x402_enabled,
      description: body.description ?? null,
      pricing: body.pricing ?? pricingLabel(priceAtomic),
      priceAtomic,
    });
    return serviceView(entry, this.offers.available(entry));
  }

  @Post(':id/proxy')
  @BodyLimit(AGENT_BODY_LIMIT)
  @PaidRoute<ProxyInput>({ input: proxyInput, service: ({ id }) => ({ kind: 'proxied', id }) })
  @ApiProxied()
  @ApiErrors(
    'request.invalid_path',
    'services.not_found',
    'services.not_proxied',
    'services.not_priced',
    'services.proxy_refused',
    'services.upstream_failed',
    'services.upstream_payment_required',
    'services.storage_unavailable',
  )
  async call(@PaidInput() input: ProxyInput, @ServingTerms() target: PinnedTarget, @Req() req: Request, @Res() res: Response): Promise<void> {
    const reply = await this.proxy.call(input.id, target, input.body, req.gw.signal, req.gw.id);
    const type = reply.contentType !== null && RELAYED_TYPES.test(reply.contentType) ? reply.contentType : null;
    if (type === null) res.setHeader('Content-Disposition', 'attachment');
    res.status(reply.status).setHeader('Content-Type', type ?? 'application/octet-stream');
    res.end(reply.body);
  }
}

function proxyInput({ body, rawBody, params }: PaidRequestParts): ProxyInput {
  const { id } = params;
  if (!SERVICE_ID.test(id)) throw fieldError('request.invalid_path', 'id', 'service id must be 1 to 64 characters of [a-z0-9-]');
  if (typeof body !== 'object' || body === null || rawBody === undefined) throw new GatewayError('request.invalid_body', 'the body must be a JSON object or array');
  return { id, body: rawBody };
}
