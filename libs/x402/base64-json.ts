import type { DecodeErrorClass } from './errors';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** Standard padded base64 that re-encodes to itself: Buffer alone would skip stray characters. */
export function isCanonicalBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text) && Buffer.from(text, 'base64').toString('base64') === text;
}

/** Base64 of UTF-8 JSON, the form of every x402 header. `what` names the value in messages. */
export function decodeBase64Json(text: string, what: string, fail: DecodeErrorClass): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new fail(`${what} is empty`);
  if (!isCanonicalBase64(trimmed)) throw new fail(`${what} is not base64`);
  let json: string;
  try {
    json = utf8.decode(Buffer.from(trimmed, 'base64'));
  } catch {
    throw new fail(`${what} is base64 but not of UTF-8 text`);
  }
  return parseJson(json, `${what} is base64 but not of JSON`, fail);
}

/** The spec also lets a client send the JSON itself (spec 2.5): raw JSON opens with `{` (or `[`), base64 never does. */
export function decodeJsonOrBase64(text: string, what: string, fail: DecodeErrorClass): unknown {
  const trimmed = text.trim();
  return /^[{[]/.test(trimmed) ? parseJson(trimmed, `${what} is not valid JSON`, fail) : decodeBase64Json(trimmed, what, fail);
}

function parseJson(json: string, message: string, fail: DecodeErrorClass): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw new fail(message);
  }
}
