import { isIPv4, isIPv6 } from 'node:net';

const IPV4_MAPPED = '::ffff:';

/**
 * The network a client address stands for in every per-client bound (each rate-limit window, the
 * sponsorship bound, the connection cap): an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address its /64. One IPv6 subscriber routinely holds a whole /64, so
 * keying on the full address would give it 2^64 windows (docs/decisions.md, "One client identity").
 */
export function clientNetwork(address: string): string {
  const bare = address.split('%', 1)[0].toLowerCase();
  if (!isIPv6(bare)) return address;
  if (bare.startsWith(IPV4_MAPPED) && isIPv4(bare.slice(IPV4_MAPPED.length))) return bare.slice(IPV4_MAPPED.length);
  return `${hextets(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, leading zeros dropped. */
function hextets(address: string): string[] {
  const [head, tail] = address.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').flatMap(dottedQuad) : []);
  const front = groups(head);
  const back = groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back].map((group) => parseInt(group, 16).toString(16));
}

/** An embedded IPv4 tail ("::ffff:1.2.3.4", "64:ff9b::1.2.3.4") is two groups. */
function dottedQuad(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a, b, c, d] = group.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
