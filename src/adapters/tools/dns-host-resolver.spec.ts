import dns from 'node:dns';
import { DnsHostResolver } from './dns-host-resolver';

describe('DnsHostResolver', () => {
  const resolver = new DnsHostResolver();

  it('resolves localhost through /etc/hosts to loopback', async () => {
    const addresses = await resolver.resolve('localhost');

    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^(127\.|::1$)/);
  });

  it('resolves an IP literal to itself', async () => {
    await expect(resolver.resolve('203.0.113.7')).resolves.toEqual(['203.0.113.7']);
    await expect(resolver.resolve('2001:db8::1')).resolves.toEqual(['2001:db8::1']);
  });

  it('answers no addresses for a name that cannot exist', async () => {
    // .invalid never resolves; without a network the system may say so as a temporary failure, which counts the same.
    await expect(resolver.resolve('no-such-host.invalid')).resolves.toEqual([]);
  });

  it('throws when the lookup outlasts its timeout', async () => {
    const lookup = jest.spyOn(dns.promises, 'lookup').mockReturnValue(new Promise(() => undefined));
    try {
      await expect(new DnsHostResolver(50).resolve('slow.example')).rejects.toThrow('resolving timed out after 50 ms');
    } finally {
      lookup.mockRestore();
    }
  });
});
