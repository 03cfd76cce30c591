import { clientNetwork, unmappedAddress } from './client-network';

/** Every spelling of the IPv4-mapped 127.0.0.2: dotted, in hex as ipaddr.js prints it, in full, in capitals, with a zone. */
const MAPPED_SPELLINGS = ['::ffff:127.0.0.2', '::ffff:7f00:2', '::FFFF:7F00:0002', '0:0:0:0:0:ffff:7f00:2', '0000:0000:0000:0000:0000:ffff:127.0.0.2', '::ffff:7f00:2%eth0'];

describe('clientNetwork', () => {
  it('keeps IPv4 addresses and unwraps IPv4-mapped IPv6 ones', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it.each(MAPPED_SPELLINGS)('takes %s as the IPv4 client 127.0.0.2, not a shared /64', (address) => {
    expect(clientNetwork(address)).toBe('127.0.0.2');
  });

  it('gives two mapped clients two networks, however spelt', () => {
    expect(clientNetwork('::ffff:7f00:3')).toBe('127.0.0.3');
    expect(clientNetwork('::ffff:cb00:7132')).toBe('203.0.113.50');
  });

  it('gives every address of one IPv6 /64 the same network, however it is written', () => {
    const network = '2001:db8:1:2::/64';
    for (const address of ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:DB8:1:2:0:0:0:3', '2001:db8:1:2::1%eth0', '2001:db8:1:2::10.0.0.1']) {
      expect(clientNetwork(address)).toBe(network);
    }
    expect(clientNetwork('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientNetwork('::1')).toBe('::/64');
    expect(clientNetwork('fe80::1')).toBe('fe80::/64');
    // Mapped space is 0:0:0:0:0:ffff::/96: a neighbour of it is IPv6, not an IPv4 client.
    expect(clientNetwork('::fffe:7f00:2')).toBe('::/64');
  });

  it('leaves anything that is not an address as it is, the loose IPv4 forms ipaddr.js would take included', () => {
    expect(clientNetwork('unknown')).toBe('unknown');
    expect(clientNetwork('127.1')).toBe('127.1');
  });
});

describe('unmappedAddress', () => {
  it.each(MAPPED_SPELLINGS)('writes %s as 127.0.0.2', (address) => {
    expect(unmappedAddress(address)).toBe('127.0.0.2');
  });

  it('leaves IPv4, IPv6 and anything else as given', () => {
    expect(unmappedAddress('127.0.0.2')).toBe('127.0.0.2');
    expect(unmappedAddress('2001:DB8::1')).toBe('2001:DB8::1');
    expect(unmappedAddress('unknown')).toBe('unknown');
  });
});
