import { DnsHostResolver } from '../../src/adapters/tools/dns-host-resolver';
import { HostResolver } from '../../src/modules/tools/ports/host-resolver';

/**
 * A resolver whose answers the test sets per name (so they can change between registration and
 * proxy time); names it was not told about go to the system resolver (`localhost` included).
 */
export class ScriptedResolver extends HostResolver {
  private readonly answers = new Map<string, string[]>();
  private readonly system = new DnsHostResolver();

  answer(hostname: string, addresses: string[]): void {
    this.answers.set(hostname, addresses);
  }

  async resolve(hostname: string): Promise<string[]> {
    return this.answers.get(hostname) ?? this.system.resolve(hostname);
  }
}
