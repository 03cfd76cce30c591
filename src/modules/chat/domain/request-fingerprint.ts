import { createHash } from 'node:crypto';
import type { ChatRequest } from '../../providers/domain/chat-request';

/**
 * What identifies a resend of the same request for redelivery (docs/decisions.md): the
 * SHA-256 of the canonical body (object keys sorted at every depth) without `stream` and
 * `stream_options`, so the answer can be asked again as JSON or as a stream.
 */
export function requestFingerprint(request: ChatRequest): string {
  const { stream: _stream, stream_options: _options, ...rest } = request;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
