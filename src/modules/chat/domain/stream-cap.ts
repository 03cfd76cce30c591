import { GatewayError } from '../../../errors/gateway-error';

/** GW_STREAM_MAX_SECS: why a started stream was stopped by the gateway itself. */
export class StreamCapReached extends GatewayError {
  constructor(capMs: number) {
    super('request_timeout', `the stream exceeded the ${capMs / 1000} s limit`);
  }
}
