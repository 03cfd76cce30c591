/**
 * A response decided before the handler that is not an error envelope: thrown (by a guard) and
 * written as it is by ErrorEnvelopeFilter. The x402 guard answers its 402 challenge this way.
 */
export class VerbatimResponse extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`verbatim ${status} response`);
    this.name = 'VerbatimResponse';
  }
}
