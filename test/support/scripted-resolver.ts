import { DnsHostResolver } from '../../src/adapters/tools/dns-host-resolver';
import { HostResolver } from '../../src/modules/tools/ports/host-resolver';

/**
 * A resolver whose answers the test sets per name, one per look-up in order (the last repeats), so
 * they can change between registration and proxy time; names it was not told about go to the
 * system resolver (`localhost` included). It counts every look-up.
 */
export class ScriptedResolver extends HostResolver {
  lookups = 0;
  private readonly answers = new Map<string, string[][]>();
  private readonly system = new DnsHostResolver();

  answer(hostname: string, ...answers: string[][]): void {
    this.answers.set(hostname, answers);
  }

  async resolve(hostname: string): Promise<string[]> {
    this.lookups += 1;
    const queue = this.answers.get(hostname);
    if (!queue) return this.system.resolve(hostname);
    return queue.length > 1 ? (queue.shift() as string[]) : queue[0];
  }
}
