import type { DestinationStream } from 'pino';

export interface PrettyOptions {
  /** ANSI colours; only for a terminal that supports them (`process.stdout.hasColors()`). */
  colors: boolean;
}

const ANSI = { reset: '\x1b[0m', gray: '\x1b[90m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', blue: '\x1b[34m', magenta: '\x1b[35m', cyan: '\x1b[36m' } as const;
type Colour = Exclude<keyof typeof ANSI, 'reset'>;

/** pino's numeric levels. */
const LEVELS: Readonly<Record<number, { label: string; colour: Colour }>> = {
  10: { label: 'TRACE', colour: 'gray' },
  20: { label: 'DEBUG', colour: 'blue' },
  30: { label: 'INFO', colour: 'green' },
  40: { label: 'WARN', colour: 'yellow' },
  50: { label: 'ERROR', colour: 'red' },
  60: { label: 'FATAL', colour: 'magenta' },
};

/** Shown in the head of the line, or (pid, hostname) noise at a developer's terminal. */
const OMITTED = new Set(['level', 'time', 'msg', 'context', 'pid', 'hostname']);

/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides. Logged values carry client
 * input (URLs, headers, model names); written raw to a terminal, an escape sequence could rewrite
 * the screen or forge a line, so they are shown escaped. A character class: linear on any input.
 */
const UNSAFE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
const NEEDS_QUOTES = /[\s"=\\\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Bare when unambiguous in `key=value` form; quoted (JSON-style) when it holds spaces, quotes, `=` or controls. */
function formatString(text: string): string {
  if (text !== '' && !NEEDS_QUOTES.test(text)) return text;
  // JSON.stringify escapes C0 and quotes; escapeUnsafe then catches what it leaves (DEL, C1, bidi).
  return escapeUnsafe(JSON.stringify(text));
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return formatString(value);
  if (typeof value === 'object' && value !== null) return escapeUnsafe(JSON.stringify(value));
  return String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stack as indented lines under its log line, each escaped on its own so none can pose as a log line. */
function stackBlock(stack: string): string[] {
  return stack.split(/\r?\n/).map((line) => `    ${escapeUnsafe(line)}`);
}

function clock(time: unknown): string {
  if (typeof time === 'string') return escapeUnsafe(time);
  if (typeof time !== 'number') return '';
  const at = new Date(time);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

function levelLabel(level: unknown): { label: string; colour: Colour } {
  if (typeof level === 'number') return LEVELS[level] ?? { label: `L${level}`, colour: 'gray' };
  if (typeof level === 'string') return { label: escapeUnsafe(level.toUpperCase()), colour: 'gray' };
  return { label: '?', colour: 'gray' };
}

/**
 * One pino JSON line in the compact human form:
 * `12:34:56.789 INFO  [ChatCompletions] request served  request_id=… status=200 ms=12.3`,
 * with `err` as its message and its stack on the indented lines that follow. Anything that is not
 * a JSON object comes back unchanged, so nothing written to the stream is lost.
 *
 * Redaction has happened upstream, in pino, before the line reaches this function.
 */
export function prettyLogLine(line: string, options: PrettyOptions): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isRecord(parsed)) return line;
  const paint = (colour: Colour, text: string): string => (options.colors && text !== '' ? `${ANSI[colour]}${text}${ANSI.reset}` : text);

  const level = levelLabel(parsed.level);
  const head = [paint('gray', clock(parsed.time)), paint(level.colour, level.label.padEnd(5))];
  if (parsed.context !== undefined && parsed.context !== null) head.push(paint('cyan', `[${escapeUnsafe(String(parsed.context))}]`));
  if (typeof parsed.msg === 'string' && parsed.msg !== '') head.push(escapeUnsafe(parsed.msg));

  const fields: string[] = [];
  const blocks: string[] = [];
  const field = (key: string, value: string): number => fields.push(`${paint('gray', `${escapeUnsafe(key)}=`)}${value}`);
  for (const [key, value] of Object.entries(parsed)) {
    if (OMITTED.has(key)) continue;
    if (key === 'err' && isRecord(value)) {
      const { message, stack, type, ...rest } = value;
      field('err', paint('red', formatValue(typeof message === 'string' ? message : (type ?? ''))));
      for (const [restKey, restValue] of Object.entries(rest)) field(`err.${restKey}`, formatValue(restValue));
      if (typeof stack === 'string') blocks.push(...stackBlock(stack));
    } else if (key === 'stack' && typeof value === 'string' && value.includes('\n')) {
      // Nest's error(message, trace) arrives as a top-level `stack` (nest-logger.ts).
      blocks.push(...stackBlock(value));
    } else {
      field(key, formatValue(value));
    }
  }
  const text = head.filter((part) => part !== '').join(' ') + (fields.length > 0 ? `  ${fields.join(' ')}` : '');
  return [text, ...blocks].join('\n');
}

/**
 * A pino destination that writes each JSON line to `out` in the human form. In-process and
 * synchronous (no worker-thread transport), so lines keep their order with the process's other
 * output and none is lost at exit.
 */
export function prettyDestination(out: { write(text: string): unknown }, options: PrettyOptions): DestinationStream {
  return {
    write(chunk: string): void {
      // pino writes one line per call; splitting anyway keeps a batched chunk readable.
      const lines = chunk.split('\n');
      const rest = lines.pop() ?? '';
      const text = lines.map((line) => `${prettyLogLine(line, options)}\n`).join('') + (rest === '' ? '' : prettyLogLine(rest, options));
      out.write(text);
    },
  };
}
