import type { ClientRequest } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkServerIdentity, rootCertificates, type PeerCertificate } from 'node:tls';
import { hostOf } from '../../modules/tools/domain/ssrf-policy';
import { ServiceCallFailed, ServiceCaller, type PinnedTarget, type ServiceReply } from '../../modules/tools/ports/service-caller';

const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;
const USER_AGENT = 'gw-gateway (service proxy)';

export interface PinnedHttpsServiceCallerOptions {
  /** Bounds the whole call: connecting, the TLS handshake, sending, and the reply to its last byte. */
  timeoutMs: number;
  /** Test-only: a CA trusted besides the public roots (GW_EXTRA_CA_FILE). */
  extraCaPem: string | null;
  maxReplyBytes?: number;
}

/**
 * The ServiceCaller over node:https. The socket goes to `target.address` (the address the SSRF
 * guard checked, src/modules/tools/application/ssrf-guard.ts) and nowhere else: the request's
 * host is that address, and the lookup, should one ever be asked for, answers it too. The URL's
 * host name is kept for what the name is for: the Host header, SNI and the certificate check.
 * node:https follows no redirects, so a 3xx comes back as it is. Only the body of the caller's
 * request is sent, never its headers.
 */
export class PinnedHttpsServiceCaller extends ServiceCaller {
  private readonly timeoutMs: number;
  private readonly maxReplyBytes: number;
  /** Set only with an extra CA: giving `ca` replaces the public roots, so they are listed with it. */
  private readonly ca: string[] | undefined;

  constructor(options: PinnedHttpsServiceCallerOptions) {
    super();
    this.timeoutMs = options.timeoutMs;
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    this.ca = options.extraCaPem === null ? undefined : [...rootCertificates, options.extraCaPem];
  }

  post(target: PinnedTarget, body: Buffer, signal: AbortSignal): Promise<ServiceReply> {
    if (signal.aborted) return Promise.reject(new ServiceCallFailed('aborted', 'the service call was aborted before it started'));
    const family = isIP(target.address);
    if (family === 0) return Promise.reject(new ServiceCallFailed('network', 'the service address is not an IP address'));
    const hostname = hostOf(target.url);
    const payload = body;
    const pinned: LookupFunction = (_name, options, callback) => {
      if (options.all === true) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family }]);
      else callback(null, target.address, family);
    };
    const options: RequestOptions = {
      method: 'POST',
      host: target.address,
      port: target.url.port === '' ? 443 : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      lookup: pinned,
      // A fresh connection per call: each call follows its own check, and no socket outlives it.
      agent: false,
      // SNI carries names only, never IP literals.
      servername: isIP(hostname) === 0 ? hostname : undefined,
      rejectUnauthorized: true,
      // The certificate must name the URL's host, not the address connected to.
      checkServerIdentity: (_host: string, certificate: PeerCertificate) => checkServerIdentity(hostname, certificate),
      ca: this.ca,
      minVersion: 'TLSv1.2',
      headers: {
        Host: target.url.host,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'User-Agent': USER_AGENT,
        'Content-Length': String(payload.length),
      },
    };

    return new Promise<ServiceReply>((resolve, reject) => {
      let settled = false;
      let req: ClientRequest | undefined;
      const finish = (outcome: ServiceReply | ServiceCallFailed): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (outcome instanceof ServiceCallFailed) {
          req?.destroy();
          reject(outcome);
        } else {
          resolve(outcome);
        }
      };
      const onAbort = (): void => finish(new ServiceCallFailed('aborted', 'the service call was aborted'));
      const timer = setTimeout(() => finish(new ServiceCallFailed('timeout', `the service did not answer in full within ${this.timeoutMs} ms`)), this.timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });

      try {
        req = request(options, (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > this.maxReplyBytes) {
            finish(tooLarge(this.maxReplyBytes));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > this.maxReplyBytes) finish(tooLarge(this.maxReplyBytes));
            else chunks.push(chunk);
          });
          res.on('end', () => finish({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null, body: Buffer.concat(chunks, size) }));
          res.on('error', (error) => finish(networkFailure(error)));
          res.on('aborted', () => finish(new ServiceCallFailed('network', 'the service closed the connection mid-reply')));
        });
        req.on('error', (error) => finish(networkFailure(error)));
        req.end(payload);
      } catch (error) {
        // Options node:https refuses (an unusable address or port) fail like an unreachable service.
        finish(networkFailure(error as Error));
      }
    });
  }
}

function tooLarge(maxReplyBytes: number): ServiceCallFailed {
  return new ServiceCallFailed('too-large', `the service reply exceeds ${maxReplyBytes} bytes`);
}

/** Only the error's code reaches the message (ECONNREFUSED, a TLS verification code): no text that might carry secrets. */
function networkFailure(error: Error): ServiceCallFailed {
  const code = (error as NodeJS.ErrnoException).code;
  const shown = typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'unknown error';
  return new ServiceCallFailed('network', `the service could not be reached (${shown})`);
}
