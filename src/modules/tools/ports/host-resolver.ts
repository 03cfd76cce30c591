/** Name resolution for the SSRF checks: a port, so tests can change the answers between registration and proxy time. */
export abstract class HostResolver {
  /**
   * Every A and AAAA address of `hostname` (an IP literal resolves to itself), in textual form.
   * Empty when the name does not resolve; throws only when the resolver itself failed.
   */
  abstract resolve(hostname: string): Promise<string[]>;
}
