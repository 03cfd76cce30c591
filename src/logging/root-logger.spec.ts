import { Writable } from 'node:stream';
import type { GatewayConfig } from '../config/gateway-config';
import { requestLogContext } from './request-log-context';
import { createRootLogger } from './root-logger';

class Lines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') this.lines.push(JSON.parse(line) as Record<string, unknown>);
    callback();
  }
}

describe('createRootLogger', () => {
  it("carries the request's ids on each line, and no line's fields into the next", () => {
    const out = new Lines();
    const logger = createRootLogger({ env: 'development', logLevel: 'info', logFormat: null } as GatewayConfig, out);
    requestLogContext.run({ request_id: 'r-1' }, () => {
      logger.warn({ dependency: 'solana_rpc', reason: 'down' }, 'dependency unavailable');
      logger.info({ res: { status: 200 } }, 'request completed');
      expect(requestLogContext.getStore()).toEqual({ request_id: 'r-1' });
    });
    logger.info('outside');
    expect(out.lines.map(({ request_id, dependency, res, msg }) => ({ request_id, dependency, res, msg }))).toEqual([
      { request_id: 'r-1', dependency: 'solana_rpc', res: undefined, msg: 'dependency unavailable' },
      { request_id: 'r-1', dependency: undefined, res: { status: 200 }, msg: 'request completed' },
      { request_id: undefined, dependency: undefined, res: undefined, msg: 'outside' },
    ]);
  });
});
