import { GatewayError } from '../../../errors/gateway-error';
import { UpstreamError } from '../../providers/domain/upstream-error';

/** What the client is told when an upstream stream fails after it began (a sanitised envelope, never the upstream's words). */
export function midStreamError(err: UpstreamError): GatewayError {
  return err.kind === 'bad_response'
    ? new GatewayError('upstream.malformed_stream', 'the upstream provider sent a malformed stream', {}, { cause: err })
    : new GatewayError('upstream.stopped_mid_stream', 'the upstream provider stopped mid-stream', {}, { cause: err });
}

/** The same for anything a stream may throw: our own errors pass through, anything else reads as the upstream stopping. */
export function streamFailure(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof UpstreamError) return midStreamError(err);
  return new GatewayError('upstream.stopped_mid_stream', 'the upstream provider stopped mid-stream', {}, { cause: err });
}
