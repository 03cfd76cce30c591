/**
 * The deepest any request body may nest objects and arrays, the body itself being level 1
 * (docs/decisions.md, "Nesting depth"). Counted while the body streams in, before `JSON.parse`.
 */
export const MAX_BODY_NESTING = 64;

/** How many leading path segments a depth error names: enough to say which field, never a client's whole structure. */
const NAMED_SEGMENTS = 4;
const NAMED_KEY_LENGTH = 40;
/** A named key is cut to NAMED_KEY_LENGTH characters; this many raw bytes always hold more than that, escapes included. */
const KEY_CAPTURE_BYTES = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** One of the first NAMED_SEGMENTS containers on the way down: where the next level was entered. */
interface Level {
  array: boolean;
  /** Arrays: the element being read. */
  index: number;
  /** Objects: the raw bytes of the last key read, and whether the next string is a key. */
  key: Buffer;
  expectKey: boolean;
}

/**
 * Counts the nesting of a JSON text fed in chunks, one pass over each byte (strings and their
 * escapes are skipped as such; UTF-8 continuation bytes never equal an ASCII delimiter). Stops at
 * the first container past `maxDepth` and names its path as the chat validator does
 * (`tools[0].function.parameters...`), so a body nested millions deep is refused without being
 * parsed. It does not validate: `JSON.parse` does, once the whole body is in.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private readonly levels: Level[] = [];
  /** The key being read into, when it belongs to a named level. */
  private capture: Level | null = null;
  private captured: Buffer[] = [];
  private capturedBytes = 0;

  constructor(private readonly maxDepth = MAX_BODY_NESTING) {}

  /** Null while the text stays within the bound; else the path of the first container past it. */
  feed(chunk: Buffer): string | null {
    let captureFrom = this.capture === null ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (captureFrom !== -1) {
            this.keep(chunk.subarray(captureFrom, i));
            this.endKey();
            captureFrom = -1;
          }
        }
        continue;
      }
      switch (byte) {
        case QUOTE: {
          this.inString = true;
          const top = this.top();
          if (top !== null && !top.array && top.expectKey) {
            top.expectKey = false;
            this.capture = top;
            captureFrom = i + 1;
          }
          break;
        }
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (++this.depth > this.maxDepth) return this.path();
          if (this.depth <= NAMED_SEGMENTS) this.levels.push({ array: byte === OPEN_ARRAY, index: 0, key: Buffer.alloc(0), expectKey: true });
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.depth > 0 && this.depth-- <= NAMED_SEGMENTS) this.levels.pop();
          break;
        case COMMA: {
          const top = this.top();
          if (top === null) break;
          if (top.array) top.index += 1;
          else top.expectKey = true;
          break;
        }
      }
    }
    if (captureFrom !== -1) this.keep(chunk.subarray(captureFrom));
    return null;
  }

  /** The named level holding the current position, or null below them (or outside any container). */
  private top(): Level | null {
    return this.depth >= 1 && this.depth <= NAMED_SEGMENTS ? this.levels[this.depth - 1] : null;
  }

  private keep(bytes: Buffer): void {
    const room = KEY_CAPTURE_BYTES - this.capturedBytes;
    if (room <= 0 || bytes.length === 0) return;
    const kept = Buffer.from(bytes.subarray(0, room));
    this.captured.push(kept);
    this.capturedBytes += kept.length;
  }

  private endKey(): void {
    if (this.capture !== null) this.capture.key = Buffer.concat(this.captured);
    this.capture = null;
    this.captured = [];
    this.capturedBytes = 0;
  }

  private path(): string {
    const named = this.levels.slice(0, NAMED_SEGMENTS).map((level, i) => {
      if (level.array) return `[${level.index}]`;
      const key = keyText(level.key);
      const shown = key.length > NAMED_KEY_LENGTH ? `${key.slice(0, NAMED_KEY_LENGTH)}...` : key;
      return i === 0 ? shown : `.${shown}`;
    });
    return named.join('') + (this.depth - 1 > NAMED_SEGMENTS ? '...' : '');
  }
}

/** A key's raw bytes as the text `JSON.parse` would give; a key cut mid-escape loses the cut escape (it is past what is shown). */
function keyText(raw: Buffer): string {
  const text = raw.toString('utf8');
  const cut = text.lastIndexOf('\\');
  for (const candidate of cut === -1 ? [text] : [text, text.slice(0, cut)]) {
    try {
      return JSON.parse(`"${candidate}"`) as string;
    } catch {
      // the next candidate
    }
  }
  return text;
}
