import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GatewayError } from '../../../errors/gateway-error';
import { AdminOnly } from '../../../http/admin.guard';
import { PaidInput, PaidRoute } from '../../payments/http/paid-route.decorator';
import { ServiceProxy } from '../application/service-proxy';
import { ServiceRegistry } from '../application/service-registry';
import { SERVICE_ID } from '../domain/service-entry';
import { parseServicePrice, pricingLabel } from '../domain/service-price';
import { ServiceRegistrationDto } from './service-registration.dto';
import { serviceView } from './service-views';

interface ProxyInput {
  id: string;
  /** The JSON body as the client sent it, forwarded unchanged. */
  body: string;
}

/** The service registry (spec 2.7, 4.5, 4.10) and the paid proxy to external services without their own x402. */
@Controller('v1/services')
export class ServicesController {
  constructor(
    private readonly registry: ServiceRegistry,
    private readonly proxy: ServiceProxy,
  ) {}

  @Get()
  async list(@Query('category') category: unknown, @Query('internal') internal: unknown) {
    if (category !== undefined && (typeof category !== 'string' || category.length > 64)) throw badQuery('category must be one string of at most 64 characters');
    if (internal !== undefined && internal !== 'true' && internal !== 'false') throw badQuery('internal must be true or false');
    const data = (await this.registry.list({ category, internal: internal === undefined ? undefined : internal === 'true' })).map(serviceView);
    return { object: 'list', data, total: data.length };
  }

  @Post('register')
  @AdminOnly('unavailable')
  @HttpCode(201)
  async register(@Body() body: ServiceRegistrationDto) {
    const priceAtomic = parseServicePrice(body.price_per_request_usdc ?? null) ?? null;
    if (!body.x402_enabled && priceAtomic === null)
      throw new GatewayError('request.invalid_body', 'price_per_request_usdc is required when x402_enabled is false: the gateway sells calls to the service');
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
    return serviceView(entry);
  }

  @Post(':id/proxy')
  @PaidRoute<ProxyInput>({ input: proxyInput, service: ({ id }) => ({ kind: 'proxied', id }) })
  async call(@PaidInput() input: ProxyInput, @Req() req: Request, @Res() res: Response): Promise<void> {
    const reply = await this.proxy.call(input.id, input.body, req.gw.signal);
    res
      .status(reply.status)
      .type(reply.contentType ?? 'application/octet-stream')
      .send(reply.body);
  }
}

function proxyInput({ body, params }: { body: unknown; params: Readonly<Record<string, string>> }): ProxyInput {
  const { id } = params;
  if (!SERVICE_ID.test(id)) throw new GatewayError('request.invalid_path', 'service id must be 1 to 64 characters of [a-z0-9-]');
  if (typeof body !== 'object' || body === null) throw new GatewayError('request.invalid_body', 'the body must be a JSON object or array');
  return { id, body: JSON.stringify(body) };
}

function badQuery(message: string): GatewayError {
  return new GatewayError('request.invalid_query', message);
}
