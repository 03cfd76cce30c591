import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';

export interface ToolFetchOptions {
  /** The upstream's name, at the head of every message. */
  name: string;
  /** The caller's signal: its abort passes through as its own reason. */
  signal: AbortSignal;
  /** For the whole exchange, body included. */
  timeoutMs: number;
  /** A body past this is not an answer worth reading. */
  maxBytes: number;
  /** Stripped from a transport failure's text: fetch quotes a header value it refuses. */
  secret?: string;
}

/**
 * One JSON exchange under the caller's signal and our own timeout. Messages say the status or what
 * failed, never what was answered.
 */
export async function fetchToolJson(url: string, init: RequestInit, options: ToolFetchOptions): Promise<unknown> {
  const { name, signal, timeoutMs } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const failure = (err: unknown): unknown => {
    if (signal.aborted) return signal.reason;
    if (timeout.aborted) return new ToolUpstreamError('timeout', `${name} gave no answer within ${timeoutMs} ms`);
    if (err instanceof ToolUpstreamError) return err;
    return new ToolUpstreamError('network', `${name}: request failed (${failureReason(err, options.secret ?? '')})`);
  };
  try {
    // A redirect is not the upstream's answer, and following it would send the request (same-origin, any key too) elsewhere.
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.any([signal, timeout]) });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ToolUpstreamError('status', `${name} answered ${response.status}`);
    }
    const raw = await readBounded(response, name, options.maxBytes);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new ToolUpstreamError('malformed', `${name} sent a body that is not JSON`);
    }
  } catch (err) {
    throw failure(err);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readBounded(response: Response, name: string, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ToolUpstreamError('malformed', `${name} sent a body over ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * undici puts the reason in `cause`: a system error code, or a message such as "unexpected redirect".
 * Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` may not hold.
 */
function failureReason(err: unknown, secret: string): string {
  const { cause } = (err ?? {}) as { cause?: unknown };
  const reason = (typeof cause === 'object' && cause !== null ? cause : (err ?? {})) as { code?: unknown; message?: unknown };
  if (typeof reason.code === 'string') return reason.code;
  const message = typeof reason.message === 'string' ? reason.message : 'error';
  return (secret === '' ? message : message.split(secret).join('[redacted]')).slice(0, 100);
}
