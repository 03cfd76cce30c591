import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { HttpMetrics } from './http-metrics';

/** Records every request when its response closes, whoever answered it (handler, edge or filter). */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: HttpMetrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route: unknown = req.route?.path;
      const label = typeof route === 'string' ? route : 'unmatched';
      this.metrics.observe(req.method, label, res.statusCode, seconds, req.gw.timing);
    });
    next();
  }
}
