/** A tool upstream (search, prices) failed; details are for the logs only, never for the client. */
export class ToolUpstreamError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'status' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'ToolUpstreamError';
  }
}
