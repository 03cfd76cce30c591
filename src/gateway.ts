import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule, type GatewayOptions } from './app.module';
import type { GatewayConfig } from './config/gateway-config';
import type { ConfigNotice } from './config/load-config';
import type { NextFunction, Request, Response } from 'express';
import { ConnectionGate } from './http/connection-gate';
import { EdgeChainMiddleware } from './http/edge-chain.middleware';
import { ConnectionTurns } from './http/connection-turns';
import { GatewayHttpAdapter } from './http/gateway-http-adapter';
import { InFlightRequests } from './core/in-flight-requests';
import { OpenApiDocument } from './http/openapi/openapi-document';
import { RootLogger } from './logging/app-logger';
import { NestLogger } from './logging/nest-logger';

/** Once the grace period is over, how long the requests stopped then get to answer before their connections are cut. */
const GRACE_OVER_ANSWER_MS = 500;

/** A gateway listening on its port. `close()` is the graceful shutdown. */
export class RunningGateway {
  private closing: Promise<void> | null = null;

  constructor(
    readonly app: NestExpressApplication,
    private readonly config: GatewayConfig,
  ) {}

  get url(): string {
    const { address, port, family } = this.server.address() as AddressInfo;
    return `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  }

  private get server(): Server {
    return this.app.getHttpServer() as Server;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish (up to GW_SHUTDOWN_GRACE_SECS,
   * then cuts what is left), then runs the shutdown hooks: background tasks are flushed, then
   * the database and Redis closed.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const logger = this.app.get(RootLogger).pino;
    logger.info('shutdown: no longer accepting connections; draining in-flight requests');
    // Node 19+ also closes idle keep-alive sockets here; busy ones close after their response.
    this.server.close();
    const drained = await this.app.get(InFlightRequests).drain(this.config.http.shutdownGraceMs, GRACE_OVER_ANSWER_MS);
    if (drained) {
      this.server.closeIdleConnections();
    } else {
      logger.warn('shutdown: grace period over; closing the remaining connections');
      this.server.closeAllConnections();
    }
    await this.app.close();
  }
}

/** Builds the Nest application around the HTTP edge and starts listening. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions & { notices?: ConfigNotice[] } = {}): Promise<RunningGateway> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), new GatewayHttpAdapter(config.env, config.http.bodyReadTimeoutMs), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  const logger = app.get(RootLogger).pino;
  app.useLogger(new NestLogger(logger));
  // Before the routes, which Nest adds at listen(): every request, unknown routes included, crosses the edge first.
  const edge = app.get(EdgeChainMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => edge.use(req, res, next));
  app.get(OpenApiDocument).attach(app);
  app.get(ConnectionGate).attach(app.getHttpServer() as Server);
  app.get(ConnectionTurns).attach(app.getHttpServer() as Server);
  for (const notice of options.notices ?? []) {
    if (notice.level === 'warn') logger.warn(notice.message);
    else logger.info(notice.message);
  }
  try {
    await app.listen(config.http.port, config.http.host);
  } catch (err) {
    await app.close();
    throw err;
  }
  const gateway = new RunningGateway(app, config);
  logger.info(`gateway listening on ${gateway.url} (env ${config.env}, storage ${config.storage.kind}, redis ${config.redisUrl ? 'on' : 'off'})`);
  return gateway;
}
