import pino from 'pino';
import { describeDoubling, doublingRatio, MAX_DOUBLING_RATIO, repeatTo } from '../../test/support/linear-time';
import type { GatewayConfig } from '../config/gateway-config';
import { prettyDestination, prettyLogLine } from './pretty-log-line';
import { createRootLogger } from './root-logger';

const plain = { colors: false };
// Built in local time, as the formatter shows it, so the expectations hold in any time zone.
const time = new Date(2026, 0, 2, 12, 34, 56, 789).getTime();
const line = (fields: Record<string, unknown>): string => JSON.stringify({ level: 30, time, pid: 7, hostname: 'box', ...fields });

describe('prettyLogLine', () => {
  it('shows time, padded level, context, message, then the other fields as key=value', () => {
    const text = prettyLogLine(line({ context: 'ChatCompletions', request_id: 'r-1', status: 200, ms: 12.3, ok: true, gone: null, msg: 'request served' }), plain);
    expect(text).toBe('12:34:56.789 INFO  [ChatCompletions] request served  request_id=r-1 status=200 ms=12.3 ok=true gone=null');
  });

  it.each([
    [10, 'TRACE'],
    [20, 'DEBUG'],
    [30, 'INFO '],
    [40, 'WARN '],
    [50, 'ERROR'],
    [60, 'FATAL'],
    [35, 'L35  '],
  ])('names level %d %s', (level, label) => {
    expect(prettyLogLine(line({ level, msg: 'm' }), plain)).toBe(`12:34:56.789 ${label} m`);
  });

  it('leaves out the context, message and fields that are absent', () => {
    expect(prettyLogLine(line({}), plain)).toBe('12:34:56.789 INFO ');
    expect(prettyLogLine(line({ a: 1 }), plain)).toBe('12:34:56.789 INFO   a=1');
  });

  it('quotes strings only when they hold spaces, quotes, = or controls, and escapes the controls', () => {
    const text = prettyLogLine(line({ msg: 'm', bare: 'abc/def:1', spaced: 'a b', quote: 'say "hi"', eq: 'a=b', empty: '', newline: 'a\nb', esc: '\x1b[2J', c1: 'x\u009by', bidi: 'a\u202eb' }), plain);
    expect(text).toBe('12:34:56.789 INFO  m  bare=abc/def:1 spaced="a b" quote="say \\"hi\\"" eq="a=b" empty="" newline="a\\nb" esc="\\u001b[2J" c1="x\\u009by" bidi="a\\u202eb"');
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('escapes controls in the message and context too, so no line can be forged or the screen rewritten', () => {
    const text = prettyLogLine(line({ context: 'C\x1b]0;x\x07', msg: 'a\n12:00:00.000 INFO  forged' }), plain);
    expect(text).toBe('12:34:56.789 INFO  [C\\u001b]0;x\\u0007] a\\n12:00:00.000 INFO  forged');
    expect(text.split('\n')).toHaveLength(1);
  });

  it('shows nested objects and arrays as compact JSON', () => {
    const text = prettyLogLine(line({ msg: 'm', req: { method: 'POST', url: '/v1/chat', headers: { 'x-a': 'b c' } }, list: [1, 'two', { three: 3 }] }), plain);
    expect(text).toBe('12:34:56.789 INFO  m  req={"method":"POST","url":"/v1/chat","headers":{"x-a":"b c"}} list=[1,"two",{"three":3}]');
  });

  it('shows err as its message, its other fields, and its stack on the indented lines after', () => {
    const err = Object.assign(new TypeError('upstream broke'), { code: 'ECONNRESET' });
    const serialized = pino.stdSerializers.err(err);
    const text = prettyLogLine(line({ level: 50, context: 'Upstream', msg: 'call failed', err: serialized, request_id: 'r-2' }), plain);
    const [first, ...rest] = text.split('\n');
    expect(first).toBe('12:34:56.789 ERROR [Upstream] call failed  err="upstream broke" err.code=ECONNRESET request_id=r-2');
    expect(rest[0]).toBe('    TypeError: upstream broke');
    expect(rest.length).toBeGreaterThan(1);
    for (const stackLine of rest) expect(stackLine).toMatch(/^ {4}/);
    expect(rest.join('\n')).toContain('pretty-log-line.spec');
  });

  it('shows a top-level stack (Nest errors) as indented lines too', () => {
    const text = prettyLogLine(line({ level: 50, msg: 'boom', stack: 'Error: boom\n    at here (x.ts:1:1)' }), plain);
    expect(text).toBe('12:34:56.789 ERROR boom\n    Error: boom\n        at here (x.ts:1:1)');
  });

  it('colours only when asked', () => {
    const input = line({ level: 40, context: 'Ctx', msg: 'careful', n: 1 });
    expect(prettyLogLine(input, plain)).not.toContain('\x1b');
    const coloured = prettyLogLine(input, { colors: true });
    expect(coloured).toContain('\x1b[33mWARN \x1b[0m');
    expect(coloured).toContain('\x1b[36m[Ctx]\x1b[0m');
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(prettyLogLine(input, plain));
  });

  it('passes a line that is not a JSON object through unchanged', () => {
    for (const other of ['plain text from somewhere', '{"truncated": ', '42', '"a string"', '[1,2]', 'null', '']) {
      expect(prettyLogLine(other, plain)).toBe(other);
    }
  });

  it('formats a 1 MB field in linear time', () => {
    // Spaces and controls throughout, the worst case for quoting and escaping.
    const record = (size: number): string => {
      const big = repeatTo('ab c"\x1b\u009b=', size);
      return line({ msg: 'big', big, nested: { big } });
    };
    // Doubling the field at most roughly doubles the time (test/support/linear-time.ts): a bound in
    // milliseconds would measure the machine's load as much as the formatter.
    const doubling = doublingRatio(
      (size) => {
        const logged = record(size);
        return () => prettyLogLine(logged, plain);
      },
      512_000,
      { runs: 2 },
    );
    if (doubling.ratio >= MAX_DOUBLING_RATIO) throw new Error(describeDoubling(doubling));
    const text = prettyLogLine(record(1 << 20), plain);
    expect(text.length).toBeGreaterThan(2 * (1 << 20));
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });
});

describe('prettyDestination', () => {
  it('writes each line of a chunk in the human form, each ending in a newline', () => {
    const written: string[] = [];
    const destination = prettyDestination({ write: (text) => written.push(text) }, plain);
    destination.write(`${line({ msg: 'one' })}\n${line({ msg: 'two' })}\n`);
    expect(written).toEqual(['12:34:56.789 INFO  one\n12:34:56.789 INFO  two\n']);
  });

  it('sits after pino redaction: secrets are censored in the human form as in JSON', () => {
    const written: string[] = [];
    const config = { env: 'development', logLevel: 'info', logFormat: 'pretty' } as GatewayConfig;
    const logger = createRootLogger(config, prettyDestination({ write: (text) => written.push(text) }, plain));
    logger.info({ req: { headers: { authorization: 'Bearer admin-secret-1', cookie: 'c=cookie-secret-2' } }, provider: { apiKey: 'sk-secret-3' } }, 'with secrets');
    const text = written.join('');
    expect(text).toContain('with secrets');
    expect(text).toContain('[redacted]');
    for (const secret of ['admin-secret-1', 'cookie-secret-2', 'sk-secret-3']) expect(text).not.toContain(secret);
  });
});
