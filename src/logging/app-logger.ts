import { Injectable, Scope } from '@nestjs/common';
import type { Logger } from 'pino';

/** The root pino logger as a DI token (built by LoggingModule from the configuration). */
export class RootLogger {
  constructor(readonly pino: Logger) {}
}

type LogMethod = (objOrMessage: object | string, message?: string) => void;

/**
 * The logger classes inject: JSON lines through the one root pino logger, tagged with the class
 * name (`setContext`) and, during a request, its ids. Transient, so each class has its own context.
 */
@Injectable({ scope: Scope.TRANSIENT })
export class AppLogger {
  private logger: Logger;

  constructor(root: RootLogger) {
    this.logger = root.pino;
  }

  setContext(context: string): void {
    this.logger = this.logger.child({ context });
  }

  trace: LogMethod = (obj, msg) => this.write('trace', obj, msg);
  debug: LogMethod = (obj, msg) => this.write('debug', obj, msg);
  info: LogMethod = (obj, msg) => this.write('info', obj, msg);
  warn: LogMethod = (obj, msg) => this.write('warn', obj, msg);
  error: LogMethod = (obj, msg) => this.write('error', obj, msg);
  fatal: LogMethod = (obj, msg) => this.write('fatal', obj, msg);

  private write(level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal', obj: object | string, msg?: string): void {
    if (typeof obj === 'string') this.logger[level](obj);
    else this.logger[level](obj, msg);
  }
}
