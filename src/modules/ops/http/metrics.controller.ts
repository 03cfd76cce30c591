import { Controller, Get, Optional, Res } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { GatewayError } from '../../../errors/gateway-error';
import { AdminOnly } from '../../../http/admin.guard';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { ClusterMetrics } from '../ports/cluster-metrics';

/**
 * Prometheus text from the one registry, or in a cluster worker every worker's, aggregated (else
 * each scrape would see the counters of whichever worker took it); hidden (404) while
 * GW_ADMIN_TOKEN is unset (spec 5.4).
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly registry: Registry,
    @Optional() private readonly cluster?: ClusterMetrics,
  ) {}

  @Get()
  @AdminOnly('hide')
  @ApiResponse({ status: 200, description: 'Prometheus text exposition (README, "Metrics")', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrors('metrics.workers_unavailable')
  async metrics(@Res({ passthrough: true }) res: Response): Promise<string> {
    if (this.cluster) {
      // Admin only: the reason is for the operator who scrapes.
      const { contentType, text } = await this.cluster.collect().catch((err: unknown) => {
        throw new GatewayError('metrics.workers_unavailable', `the workers' metrics could not be gathered: ${err instanceof Error ? err.message : String(err)}`, {}, { cause: err });
      });
      res.type(contentType);
      return text;
    }
    res.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
