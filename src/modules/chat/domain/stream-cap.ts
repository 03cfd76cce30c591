import { GatewayError } from '../../../errors/gateway-error';

/** GW_STREAM_MAX_SECS: why a started stream was stopped by the gateway itself. */
export class StreamCapReached extends GatewayError {
  constructor(capMs: number) {
    super('chat.stream_too_long', `the stream exceeded the ${capMs / 1000} s limit`);
  }
}
