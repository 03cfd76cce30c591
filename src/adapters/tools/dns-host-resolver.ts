import { promises as dns } from 'node:dns';
import { HostResolver } from '../../modules/tools/ports/host-resolver';

/** getaddrinfo's answers for a name that has no address: the port's "does not resolve" (an empty list). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA', 'EAI_AGAIN']);

const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Resolves through the operating system (getaddrinfo), as a plain socket connect would, so
 * /etc/hosts counts: `localhost` resolves to loopback and is refused. Every address is returned,
 * in the system's order (`verbatim`), for the SSRF guard to judge all of them.
 *
 * A temporary failure (EAI_AGAIN) counts as "does not resolve": the guard refuses either way,
 * and the admin's remedy is the same (try again). A lookup that takes longer than the timeout
 * throws (the resolver failed); getaddrinfo cannot be cancelled, so its late answer is dropped.
 */
export class DnsHostResolver extends HostResolver {
  constructor(private readonly timeoutMs: number = DEFAULT_TIMEOUT_MS) {
    super();
  }

  async resolve(hostname: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`resolving timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      timer.unref();
    });
    try {
      const answers = await Promise.race([dns.lookup(hostname, { all: true, verbatim: true }), timeout]);
      return answers.map((answer) => answer.address);
    } catch (error) {
      if (NO_SUCH_NAME.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
