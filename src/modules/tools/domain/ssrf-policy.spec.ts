import { AddressPolicy, endpointProblem, hostOf } from './ssrf-policy';

describe('endpointProblem', () => {
  it('accepts an https URL', () => {
    expect(endpointProblem('https://api.example.com/v1/run?x=1')).toBeNull();
    expect(endpointProblem('https://[2606:4700:4700::1111]:8443/')).toBeNull();
  });

  it.each([
    ['http://api.example.com/', 'endpoint must be an https URL'],
    ['ftp://api.example.com/', 'endpoint must be an https URL'],
    ['file:///etc/passwd', 'endpoint must be an https URL'],
    ['not a url', 'endpoint must not contain spaces or control characters'],
    ['api.example.com/run', 'endpoint must be an https URL'],
    ['', 'endpoint must be an https URL'],
    ['https://user:secret@api.example.com/', 'endpoint must not carry credentials'],
    ['https://user@api.example.com/', 'endpoint must not carry credentials'],
    ['https://:secret@api.example.com/', 'endpoint must not carry credentials'],
    [' https://api.example.com/', 'endpoint must not contain spaces or control characters'],
    ['https://api.example.com/\nx', 'endpoint must not contain spaces or control characters'],
  ])('refuses %j', (endpoint, reason) => {
    expect(endpointProblem(endpoint)).toBe(reason);
  });

  it('refuses an endpoint longer than 2048 characters, and accepts one of exactly 2048', () => {
    const base = 'https://api.example.com/';
    expect(endpointProblem(base + 'a'.repeat(2048 - base.length))).toBeNull();
    expect(endpointProblem(base + 'a'.repeat(2049 - base.length))).toBe('endpoint is longer than 2048 characters');
  });
});

describe('hostOf', () => {
  it('strips the brackets of an IPv6 literal, as the URL parser normalised it', () => {
    expect(hostOf(new URL('https://[::ffff:127.0.0.1]/'))).toBe('::ffff:7f00:1');
    expect(hostOf(new URL('https://Service.Example:8443/x'))).toBe('service.example');
    expect(hostOf(new URL('https://0x7f.1/'))).toBe('127.0.0.1');
  });
});

describe('AddressPolicy', () => {
  const policy = new AddressPolicy([]);

  it.each([
    ['127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['127.255.255.255', '127.0.0.0/8 (loopback)'],
    ['10.0.0.0', '10.0.0.0/8 (private)'],
    ['10.255.255.255', '10.0.0.0/8 (private)'],
    ['172.16.0.0', '172.16.0.0/12 (private)'],
    ['172.31.255.255', '172.16.0.0/12 (private)'],
    ['192.168.0.1', '192.168.0.0/16 (private)'],
    ['169.254.169.254', '169.254.0.0/16 (link-local)'],
    ['0.0.0.0', '0.0.0.0/32 (this host)'],
    ['0.255.255.255', '0.0.0.0/8 (this network)'],
    ['100.64.0.1', '100.64.0.0/10 (carrier-grade NAT)'],
    ['100.127.255.255', '100.64.0.0/10 (carrier-grade NAT)'],
    ['224.0.0.1', '224.0.0.0/4 (multicast)'],
    ['239.255.255.255', '224.0.0.0/4 (multicast)'],
    ['255.255.255.255', '255.255.255.255/32 (broadcast)'],
    ['::', '::/128 (unspecified)'],
    ['::1', '::1/128 (loopback)'],
    ['0:0:0:0:0:0:0:1', '::1/128 (loopback)'],
    ['fe80::1', 'fe80::/10 (link-local)'],
    ['fe80::1%eth0', 'fe80::/10 (link-local)'],
    ['febf:ffff::1', 'fe80::/10 (link-local)'],
    ['fc00::1', 'fc00::/7 (unique local)'],
    ['fd00::1', 'fc00::/7 (unique local)'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fc00::/7 (unique local)'],
    ['ff02::1', 'ff00::/8 (multicast)'],
    ['ff0e::1', 'ff00::/8 (multicast)'],
  ])('refuses %s (in %s)', (address, range) => {
    expect(policy.refusal(address)).toBe(`${address} is in ${range}`);
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['::ffff:7f00:1', '127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['::ffff:10.0.0.1', '10.0.0.1', '10.0.0.0/8 (private)'],
    ['::ffff:a9fe:a9fe', '169.254.169.254', '169.254.0.0/16 (link-local)'],
    ['::127.0.0.1', '127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['::10.1.2.3', '10.1.2.3', '10.0.0.0/8 (private)'],
    ['::ffff:0.0.0.0', '0.0.0.0', '0.0.0.0/32 (this host)'],
    ['::2', '0.0.0.2', '0.0.0.0/8 (this network)'],
    ['64:ff9b::127.0.0.1', '127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', '169.254.0.0/16 (link-local)'],
    ['64:ff9b::c0a8:101', '192.168.1.1', '192.168.0.0/16 (private)'],
  ])('refuses %s as the IPv4 address %s it stands for', (address, ipv4, range) => {
    expect(policy.refusal(address)).toBe(`${address} stands for ${ipv4}, which is in ${range}`);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '1.0.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '::8.8.8.8',
    '64:ff9b::8.8.8.8',
    'fe7f:ffff::1',
    'fbff:ffff::1',
    '2002:808:808::1',
    '::ffff:0:808:808',
  ])('allows the public address %s', (address) => {
    expect(policy.refusal(address)).toBeNull();
  });

  it.each([
    ['fec0::1', 'fec0::1 is in fec0::/10 (site-local)'],
    ['feff::1', 'feff::1 is in fec0::/10 (site-local)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:3fff:fdd2 stands for 192.0.2.45, which is in 192.0.2.0/24 (documentation)'],
    ['::ffff:0:7f00:1', '::ffff:0:7f00:1 stands for 127.0.0.1, which is in 127.0.0.0/8 (loopback)'],
    ['2002:7f00:1::', '2002:7f00:1:: stands for 127.0.0.1, which is in 127.0.0.0/8 (loopback)'],
    ['2002:a9fe:a9fe::1', '2002:a9fe:a9fe::1 stands for 169.254.169.254, which is in 169.254.0.0/16 (link-local)'],
  ])('refuses %s, beyond the required ranges', (address, reason) => {
    expect(policy.refusal(address)).toBe(reason);
  });

  it.each(['', 'localhost', '256.0.0.1', '127.1', '1.2.3.4 ', '::ffff::1', 'x'.repeat(200)])('refuses the text %j, which is no address', (text) => {
    expect(policy.refusal(text)).toMatch(/ is not an IP address$/);
  });

  it('keeps a long invalid text out of its reason', () => {
    expect(policy.refusal('x'.repeat(1000))?.length).toBeLessThan(120);
  });

  it('lets the allow list through, and only it', () => {
    const allowing = new AddressPolicy(['127.0.0.1/32', 'fd00::/64']);

    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(allowing.refusal('127.0.0.2')).toBe('127.0.0.2 is in 127.0.0.0/8 (loopback)');
    expect(allowing.refusal('fd00::5')).toBeNull();
    expect(allowing.refusal('fd00:0:0:1::5')).toBe('fd00:0:0:1::5 is in fc00::/7 (unique local)');
    expect(allowing.refusal('10.0.0.1')).toBe('10.0.0.1 is in 10.0.0.0/8 (private)');
  });

  it('takes a bare address in the allow list as a single host', () => {
    const allowing = new AddressPolicy(['127.0.0.1']);

    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('127.0.0.2')).not.toBeNull();
  });

  it.each(['127.0.0.1/33', '::1/129', 'localhost/8', '127.0.0.1/', '127.0.0.1/x', '10.0.0.0/8/8', '', 'fe80::1%eth0/64'])('throws on the allow-list entry %j', (cidr) => {
    expect(() => new AddressPolicy([cidr])).toThrow('not a CIDR');
  });
});
