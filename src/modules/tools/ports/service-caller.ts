/** An external service endpoint and the one address, already checked, that the call may connect to. */
export interface PinnedTarget {
  url: URL;
  address: string;
}

export interface ServiceReply {
  status: number;
  contentType: string | null;
  body: Buffer;
}

/** Why a call to an external service produced no reply. */
export class ServiceCallFailed extends Error {
  constructor(
    readonly reason: 'timeout' | 'network' | 'too-large' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'ServiceCallFailed';
  }
}

/**
 * Calls registered external services over https. It connects only to `target.address` (no second
 * resolution), verifies the certificate for the URL's host name, follows no redirects (a 3xx is
 * returned as it is), and bounds the time and the reply's size.
 */
export abstract class ServiceCaller {
  /** POSTs `body` (JSON bytes, forwarded as the client sent them) to `target.url`; throws ServiceCallFailed when no whole reply came. */
  abstract post(target: PinnedTarget, body: Buffer, signal: AbortSignal): Promise<ServiceReply>;
}
