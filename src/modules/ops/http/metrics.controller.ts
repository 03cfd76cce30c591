import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { AdminOnly } from '../../../http/admin.guard';

/** Prometheus text from the one registry; hidden (404) while GW_ADMIN_TOKEN is unset (spec 5.4). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get()
  @AdminOnly('hide')
  async metrics(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
