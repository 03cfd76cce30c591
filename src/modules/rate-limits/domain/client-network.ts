import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The address a client is known by: an IPv4-mapped IPv6 address as its IPv4 address, however it is
 * spelt (`::ffff:1.2.3.4`, `::ffff:102:304` as ipaddr.js prints it, written out in full or in
 * capitals), so one IPv4 client is one client whichever socket family or PROXY header names it;
 * anything else as given.
 */
export function unmappedAddress(address: string): string {
  // Every request names its client several times over (each window, the byte share): an IPv4 peer, by far the usual one, is already in Node's form.
  if (isIP(address) === 4) return address;
  const parsed = parse(address);
  return parsed?.kind() === 'ipv4' ? parsed.toString() : address;
}

/**
 * The network a client address stands for in every per-client bound (each rate-limit window, the
 * sponsorship bound, the connection cap): an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address its /64. One IPv6 subscriber routinely holds a whole /64, so
 * keying on the full address would give it 2^64 windows (docs/decisions.md, "One client identity").
 */
export function clientNetwork(address: string): string {
  if (isIP(address) === 4) return address;
  const parsed = parse(address);
  if (parsed === null) return address;
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}

/** An address Node would give or accept (not ipaddr.js's looser IPv4 forms such as `127.1`), a mapped one as IPv4; null for anything else. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIP(address) === 0) return null;
  const parsed = ipaddr.parse(address);
  return parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
}
