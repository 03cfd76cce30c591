import { Agent, errors, request, type Dispatcher } from 'undici';
import type { ProviderName } from '../../modules/providers/domain/provider-name';
import { UpstreamError } from '../../modules/providers/domain/upstream-error';

/** Issue 4 defaults: connect 10 s, first byte 60 s, 60 s of silence between chunks. */
export interface UpstreamTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * The HTTP client every provider adapter posts through: one undici connection pool per origin
 * (keep-alive, so a request does not pay a handshake), the three timeouts, and failures turned
 * into UpstreamError. undici's `request` rather than `fetch`: it is several times cheaper per call
 * and its timeouts separate connect, first byte and idle body.
 */
export class UpstreamHttp {
  private readonly agent: Agent;

  constructor(timeouts: UpstreamTimeouts) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
      keepAliveTimeout: 30_000,
    });
  }

  /**
   * POSTs JSON and resolves with a 2xx response whose body is still to be read. Other statuses and
   * transport failures throw UpstreamError; an abort through `signal` rethrows the signal's reason.
   */
  async postJson(provider: ProviderName, url: string, headers: Record<string, string>, body: unknown, signal: AbortSignal): Promise<UpstreamResponse> {
    let response: UpstreamResponse;
    try {
      response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
        signal,
        dispatcher: this.agent,
      });
    } catch (err) {
      throw upstreamFailure(provider, err, signal);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    await response.body.dump().catch(() => undefined);
    throw statusError(provider, response.statusCode);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * 408, 429 and 5xx say "not now": another candidate may answer. 401 and 403 say our key is not
 * accepted, which another provider's key may be. Any other 4xx is the provider refusing this
 * request: trying elsewhere would not help.
 */
function statusError(provider: ProviderName, status: number): UpstreamError {
  const retryable = status === 408 || status === 429 || status >= 500 || status === 401 || status === 403;
  return new UpstreamError(provider, retryable ? 'unavailable' : 'bad_response', `${provider} answered HTTP ${status}`, status);
}

/** A transport failure as UpstreamError (our own abort passes through unchanged). */
export function upstreamFailure(provider: ProviderName, err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (err instanceof UpstreamError) return err;
  const reason =
    err instanceof errors.HeadersTimeoutError
      ? 'no response within the first-byte timeout'
      : err instanceof errors.BodyTimeoutError
        ? 'silent for longer than the idle timeout'
        : err instanceof errors.ConnectTimeoutError
          ? 'connect timeout'
          : `connection failed (${(err as { code?: string }).code ?? (err as Error).name ?? 'error'})`;
  return new UpstreamError(provider, 'unavailable', `${provider}: ${reason}`);
}

/** Reads a whole JSON body; anything unparsable is the provider's malformed answer. */
export async function readJson(provider: ProviderName, response: UpstreamResponse, signal: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (err) {
    throw upstreamFailure(provider, err, signal);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError(provider, 'bad_response', `${provider} sent a body that is not JSON`);
  }
}
