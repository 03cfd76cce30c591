import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { version } from '../../../../package.json';
import { GatewayError } from '../../../errors/gateway-error';
import { AdminTokenThrottle } from '../../../http/admin-token';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { HealthService } from '../application/health.service';
import { HEALTH, LIVE, STATUS_ONLY } from './ops-openapi';
import { overallStatus, unusableForReadiness, type DependencyChecks, type HealthStatus } from '../domain/health';

interface HealthBody {
  status: HealthStatus;
  version?: string;
  checks?: DependencyChecks;
}

/** /health for everyone (status only; details with the admin token), and the orchestrator probes. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly throttle: AdminTokenThrottle,
  ) {}

  @Get()
  @ApiAnswer(200, 'the overall status; the dependency checks and version with the admin token', HEALTH)
  async status(@Req() req: Request): Promise<HealthBody> {
    const checks = await this.health.checks();
    const status = overallStatus(checks);
    // Spec 8 exempts /health from rate limits: past the bound on wrong tokens it ignores any token, never 429.
    if ((await this.throttle.verify(req.headers.authorization, req.gw.clientAddress)).kind !== 'admin') return { status };
    return { status, version, checks };
  }

  /** The process is up and serving HTTP. */
  @Get('live')
  @ApiAnswer(200, 'the process serves HTTP', LIVE)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 503 while a configured database or Redis is unusable. */
  @Get('ready')
  @ApiAnswer(200, 'the configured database and Redis are usable', STATUS_ONLY)
  @ApiErrors('health.not_ready')
  async ready(): Promise<{ status: HealthStatus }> {
    const checks = await this.health.checks();
    const unusable = unusableForReadiness(checks);
    if (unusable.length > 0) {
      throw new GatewayError('health.not_ready', `not ready: ${unusable.join(', ')} unavailable`);
    }
    return { status: overallStatus(checks) };
  }
}
