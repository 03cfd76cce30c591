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
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Why a body is refused before it is parsed: the first container past the nesting bound (its path), or the first value past the value bound. */
export type ScanRefusal = { bound: 'nesting'; path: string } | { bound: 'values' };

/** One of the first NAMED_SEGMENTS containers on the way down: where the next level was entered. */
interface Level {
  /** Arrays: the element being read (an object's is -1). */
  index: number;
  /** Objects: the raw bytes of the last key read. */
  key: Buffer;
}

const NO_KEY = Buffer.alloc(0);

/**
 * Counts the nesting and the values of a JSON text fed in chunks, in one pass over its bytes
 * (inside a string only quotes and backslashes are looked at; UTF-8 continuation bytes never equal
 * an ASCII delimiter), so a body nested millions deep, or made of millions of tiny values, is
 * refused without being parsed (docs/decisions.md, "Bodies at the edge").
 *
 * Every JSON value counts one: each object, each array, each string that is not an object's key,
 * each number, each `true`, `false` and `null`, the body itself included (a key and its value are
 * one value: `{"a":[1,"x"]}` is four). A value is counted where it starts: `{`, `[`, a string's
 * opening quote, or the first byte of a number or literal (any byte outside a string that is not
 * white space or a delimiter, following one that is). On valid JSON that is exact; what it counts
 * in invalid text does not matter, `JSON.parse` refusing it anyway.
 *
 * Stops at the first container past `maxDepth`, naming its path (`tools[0].function.parameters...`,
 * docs/decisions.md, "Nesting depth"), or at the first value past `maxValues`. It does not
 * validate: `JSON.parse` does, once the whole body is in.
 */
export class JsonBodyScanner {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;
  /** Inside a number or a literal, whose first byte was counted. */
  private inScalar = false;
  /** The next string is an object's key: just after `{`, or after `,` in an object. */
  private keyNext = false;
  /** Whether each open level (by depth, the body at 1) is an array. */
  private readonly arrays: Uint8Array;
  /** Reused as containers open and close: a body of a million `{}` allocates nothing per container. */
  private readonly levels: Level[] = Array.from({ length: NAMED_SEGMENTS }, () => ({ index: -1, key: NO_KEY }));
  /** The key being read into, when it belongs to a named level. */
  private capture: Level | null = null;
  private captured: Buffer[] = [];
  private capturedBytes = 0;

  constructor(
    private readonly maxValues: number,
    private readonly maxDepth = MAX_BODY_NESTING,
  ) {
    this.arrays = new Uint8Array(maxDepth + 1);
  }

  /** Null while the text stays within both bounds; else the first bound it passed. */
  feed(chunk: Buffer): ScanRefusal | null {
    // The state is read into locals and written back once: this loop runs once per byte of every body.
    const { arrays, levels, maxValues, maxDepth } = this;
    let { depth, values, inString, escaped, inScalar, keyNext } = this;
    let captureFrom = this.capture === null ? -1 : 0;
    // Inside a string only a quote or a backslash matters: the next of each is found natively and
    // kept until passed (-2 not looked for yet, -1 none left), so each byte is looked at once.
    let nextQuote = -2;
    let nextBackslash = -2;
    let refusal: ScanRefusal | null = null;
    let i = 0;
    const end = chunk.length;
    while (i < end) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i += 1;
          continue;
        }
        if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        if (nextBackslash !== -1 && (nextQuote === -1 || nextBackslash < nextQuote)) {
          escaped = true;
          i = nextBackslash + 1;
          continue;
        }
        if (nextQuote === -1) break;
        inString = false;
        if (captureFrom !== -1) {
          this.keep(chunk.subarray(captureFrom, nextQuote));
          this.endKey();
          captureFrom = -1;
        }
        i = nextQuote + 1;
        continue;
      }
      const byte = chunk[i];
      i += 1;
      switch (byte) {
        case QUOTE:
          inString = true;
          inScalar = false;
          if (keyNext) {
            keyNext = false;
            if (depth <= NAMED_SEGMENTS) {
              this.capture = levels[depth - 1];
              captureFrom = i;
            }
          } else if (++values > maxValues) refusal = { bound: 'values' };
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY: {
          inScalar = false;
          if (++depth > maxDepth) {
            refusal = { bound: 'nesting', path: this.path(depth) };
            break;
          }
          if (++values > maxValues) {
            refusal = { bound: 'values' };
            break;
          }
          const array = byte === OPEN_ARRAY;
          arrays[depth] = array ? 1 : 0;
          keyNext = !array;
          if (depth <= NAMED_SEGMENTS) {
            const level = levels[depth - 1];
            level.index = array ? 0 : -1;
            level.key = NO_KEY;
          }
          break;
        }
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          inScalar = false;
          keyNext = false;
          if (depth > 0) depth -= 1;
          break;
        case COMMA:
          inScalar = false;
          if (depth === 0) break;
          keyNext = arrays[depth] === 0;
          if (depth <= NAMED_SEGMENTS && !keyNext) levels[depth - 1].index += 1;
          break;
        case COLON:
        case SPACE:
        case TAB:
        case LINE_FEED:
        case CARRIAGE_RETURN:
          inScalar = false;
          break;
        default:
          if (inScalar) break;
          inScalar = true;
          if (++values > maxValues) refusal = { bound: 'values' };
      }
      if (refusal !== null) return refusal;
    }
    this.depth = depth;
    this.values = values;
    this.inString = inString;
    this.escaped = escaped;
    this.inScalar = inScalar;
    this.keyNext = keyNext;
    if (captureFrom !== -1) this.keep(chunk.subarray(captureFrom));
    return null;
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

  /** The path to the container that opened level `depth`, past the bound: the levels named are those above it. */
  private path(depth: number): string {
    const named = this.levels.slice(0, Math.min(depth - 1, NAMED_SEGMENTS)).map((level, i) => {
      if (level.index !== -1) return `[${level.index}]`;
      const key = keyText(level.key);
      const shown = key.length > NAMED_KEY_LENGTH ? `${key.slice(0, NAMED_KEY_LENGTH)}...` : key;
      return i === 0 ? shown : `.${shown}`;
    });
    return named.join('') + (depth - 1 > NAMED_SEGMENTS ? '...' : '');
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
