import { Writable } from 'node:stream';
import type { GatewayConfig } from '../config/gateway-config';
import { AccessLog, type AccessEntry } from './access-log';
import { createRootLogger } from './root-logger';

class Lines extends Writable {
  readonly text: string[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }

  get lines(): Array<Record<string, unknown>> {
    return this.text.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

const entry: AccessEntry = { requestId: 'r-1', clientRequestId: undefined, method: 'POST', path: '/v1/chat/completions', peer: '127.0.0.1', status: 200, durationMs: 3 };

function logged(level: 'info' | 'warn' = 'info'): { access: AccessLog; out: Lines; logger: ReturnType<typeof createRootLogger> } {
  const out = new Lines();
  const logger = createRootLogger({ env: 'production', logLevel: level, logFormat: null } as GatewayConfig, out);
  return { access: new AccessLog(logger), out, logger };
}

describe('AccessLog', () => {
  it('writes the line pino would write for the same fields, key for key', () => {
    const { access, out, logger } = logged();
    access.write('info', { ...entry, clientRequestId: 'client-42' }, 'request completed');
    logger.info(
      { request_id: 'r-1', client_request_id: 'client-42', req: { method: 'POST', url: '/v1/chat/completions', peer: '127.0.0.1' }, res: { status: 200 }, duration_ms: 3 },
      'request completed',
    );
    const [ours, pinos] = out.lines;
    expect(Object.keys(ours)).toEqual(Object.keys(pinos));
    expect({ ...ours, time: 0 }).toEqual({ ...pinos, time: 0 });
    expect(out.text[0]).not.toContain('client_request_id":undefined');
  });

  it('escapes what the client sent, so a path cannot add fields or lines', () => {
    const { access, out } = logged();
    access.write('warn', { ...entry, path: '/a"},"level":60,"x":"\n{"forged":true}\\' }, 'request aborted');
    expect(out.text).toHaveLength(1);
    expect(out.lines[0]).toMatchObject({ level: 40, req: { url: '/a"},"level":60,"x":"\n{"forged":true}\\' }, msg: 'request aborted' });
    expect(out.lines[0].x).toBeUndefined();
  });

  it('leaves out the client id when there is none, and writes nothing below the level', () => {
    const { access, out } = logged('warn');
    access.write('info', entry, 'request completed');
    access.write('error', { ...entry, status: 500 }, 'request errored');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toMatchObject({ level: 50, request_id: 'r-1', res: { status: 500 } });
    expect('client_request_id' in out.lines[0]).toBe(false);
  });
});
