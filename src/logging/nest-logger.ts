import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/** Nest's own messages (start-up, route mapping) as JSON lines of the root logger. */
export class NestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  log(message: unknown, context?: string): void {
    this.root.info({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.root.error({ context, err: message instanceof Error ? message : undefined, stack: trace }, message instanceof Error ? message.message : String(message));
  }

  warn(message: unknown, context?: string): void {
    this.root.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.root.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.root.trace({ context }, String(message));
  }

  fatal(message: unknown, context?: string): void {
    this.root.fatal({ context }, String(message));
  }
}
