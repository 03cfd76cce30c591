import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { IANA_IPV4_SPECIAL_PURPOSE, IANA_IPV6_SPECIAL_PURPOSE, OTHER_REFUSED_BLOCKS, type SpecialPurposeBlock } from './special-purpose-addresses';

/** The longest endpoint a service may register: long enough for any real API, short enough to log. */
export const MAX_ENDPOINT_LENGTH = 2048;

/** Whitespace and control characters: the URL parser silently drops some of them, so what is stored would differ from what is called. */
const SPACE_OR_CONTROL = /[\u0000-\u0020\u007f]/;

/**
 * Why `endpoint` cannot be a service endpoint on its face (before any name is resolved), or null.
 * The reasons are safe to show to the admin who sent it.
 */
export function endpointProblem(endpoint: string): string | null {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) return `endpoint is longer than ${MAX_ENDPOINT_LENGTH} characters`;
  if (SPACE_OR_CONTROL.test(endpoint)) return 'endpoint must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an https URL';
  }
  if (url.protocol !== 'https:') return 'endpoint must be an https URL';
  if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials';
  if (hostOf(url) === '') return 'endpoint must name a host';
  return null;
}

/** The URL's host name as a resolver or a socket takes it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Where an IPv6 address that embeds IPv4 addresses carries them: the IPv4 addresses it is delivered to. */
type Embedded = (bytes: number[]) => number[][];
const LAST_FOUR: Embedded = (bytes) => [bytes.slice(12)];

/** How the embedding blocks of the IPv6 table carry their IPv4 addresses. */
const EMBEDDED_BY_CIDR: Readonly<Record<string, Embedded>> = {
  '::ffff:0:0/96': LAST_FOUR,
  '64:ff9b::/96': LAST_FOUR,
  // 6to4 (2002:AABB:CCDD::/48): the IPv4 address in bytes 2 to 5.
  '2002::/16': (bytes) => [bytes.slice(2, 6)],
  // Teredo: the server in bytes 4 to 7, the client's address in the last four, bits inverted.
  '2001::/32': (bytes) => [bytes.slice(4, 8), bytes.slice(12).map((byte) => byte ^ 0xff)],
};

interface Block {
  readonly net: Address;
  readonly bits: number;
  readonly text: string;
  readonly label: string;
}

function block(entry: SpecialPurposeBlock): Block {
  const [net, bits] = ipaddr.parseCIDR(entry.cidr);
  return { net, bits, text: entry.cidr, label: entry.label };
}

function contains(cidr: Block | { net: Address; bits: number }, address: Address): boolean {
  return address.kind() === cidr.net.kind() && address.match(cidr.net, cidr.bits);
}

const refused = (entry: SpecialPurposeBlock): boolean => entry.globallyReachable !== true && entry.embedsIpv4 === undefined;
const isIpv4Block = (entry: SpecialPurposeBlock): boolean => !entry.cidr.includes(':');

const mostSpecificFirst = (a: Block, b: Block): number => b.bits - a.bits;

/** Refused as they are: every special-purpose block not globally reachable, and multicast; a refusal names the most specific block. */
const IPV4_REFUSED: readonly Block[] = [...IANA_IPV4_SPECIAL_PURPOSE, ...OTHER_REFUSED_BLOCKS.filter(isIpv4Block)].filter(refused).map(block).sort(mostSpecificFirst);
const IPV6_REFUSED: readonly Block[] = [...IANA_IPV6_SPECIAL_PURPOSE, ...OTHER_REFUSED_BLOCKS.filter((entry) => !isIpv4Block(entry))].filter(refused).map(block).sort(mostSpecificFirst);

/** The embedding blocks of the table, by their CIDR, with two forms of RFC 4291 and RFC 6145 beside them. */
const EMBEDDING: ReadonlyArray<{ net: Address; bits: number; except?: { net: Address; bits: number }; ipv4: Embedded }> = [
  ...IANA_IPV6_SPECIAL_PURPOSE.filter((entry) => entry.embedsIpv4).map((entry) => {
    const [net, bits] = ipaddr.parseCIDR(entry.cidr);
    return { net, bits, ipv4: EMBEDDED_BY_CIDR[entry.cidr] };
  }),
  // IPv4-compatible `::a.b.c.d` (deprecated; some stacks still route it to the IPv4 address), but not `::` and `::1`.
  { net: ipaddr.parse('::'), bits: 96, except: { net: ipaddr.parse('::'), bits: 127 }, ipv4: LAST_FOUR },
  // SIIT's IPv4-translated `::ffff:0:a.b.c.d`, delivered to the IPv4 address by a translator.
  { net: ipaddr.parse('::ffff:0:0:0'), bits: 96, ipv4: LAST_FOUR },
];

/**
 * Which addresses a service endpoint may resolve to (the SSRF rules in src/modules/tools/application/ssrf-guard.ts;
 * docs/decisions.md, "SSRF defences"). Two sources: the IANA special-purpose registries as committed in
 * special-purpose-addresses.ts (every block not globally reachable, and multicast), and ipaddr.js's own ranges
 * (anything it does not call unicast). An address that embeds IPv4 addresses (IPv4-mapped, IPv4-compatible,
 * SIIT, NAT64 64:ff9b::/96, 6to4, Teredo's server and client) is judged by them.
 * `allowCidrs` is the test-only allow list (GW_SSRF_ALLOW_CIDRS): an address in it passes whatever range it is in.
 */
export class AddressPolicy {
  private readonly allowed: ReadonlyArray<{ net: Address; bits: number }>;

  constructor(allowCidrs: readonly string[]) {
    this.allowed = allowCidrs.map(parseAllowed);
  }

  /** Null when a call may connect to `address`, else why not (client-safe, names the range). */
  refusal(address: string): string | null {
    const shown = address.length > 64 ? `${address.slice(0, 64)}...` : address;
    if (isIP(address) === 0) return `${shown} is not an IP address`;
    const parsed = ipaddr.parse(address);
    const carried = parsed.kind() === 'ipv6' ? embeddedIpv4(parsed as ipaddr.IPv6) : null;
    if (this.allowed.some((cidr) => contains(cidr, parsed) || (carried ?? []).some((ipv4) => contains(cidr, ipv4)))) return null;
    if (parsed.kind() === 'ipv4') {
      const why = ipv4Refusal(parsed as ipaddr.IPv4);
      return why === null ? null : `${shown} is in ${why}`;
    }
    if (carried !== null) {
      for (const ipv4 of carried) {
        const why = ipv4Refusal(ipv4);
        if (why !== null) return `${shown} stands for ${ipv4.toString()}, which is in ${why}`;
      }
      return null;
    }
    const hit = IPV6_REFUSED.find((candidate) => contains(candidate, parsed));
    if (hit !== undefined) return `${shown} is in ${hit.text} (${hit.label})`;
    const range = parsed.range();
    return range === 'unicast' ? null : `${shown} is in a special-purpose range (${range})`;
  }
}

function ipv4Refusal(address: ipaddr.IPv4): string | null {
  const hit = IPV4_REFUSED.find((candidate) => contains(candidate, address));
  if (hit !== undefined) return `${hit.text} (${hit.label})`;
  const range = address.range();
  return range === 'unicast' ? null : `a special-purpose range (${range})`;
}

/** The IPv4 addresses an IPv6 address carries and is delivered to, or null when it carries none. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const form = EMBEDDING.find((candidate) => contains(candidate, address) && !(candidate.except && contains(candidate.except, address)));
  if (form === undefined) return null;
  return form.ipv4(address.toByteArray()).map((bytes) => new ipaddr.IPv4(bytes));
}

/** `a.b.c.d/n`, `x:y::z/n`, or a bare address (one host); throws on anything else, so that a mistyped allow list stops the start. */
function parseAllowed(text: string): { net: Address; bits: number } {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  if (isIP(address) === 0 || address.includes('%')) throw new Error(`not a CIDR: ${text.slice(0, 100)}`);
  const net = ipaddr.parse(address);
  const max = net.kind() === 'ipv4' ? 32 : 128;
  const prefix = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) throw new Error(`not a CIDR: ${text.slice(0, 100)}`);
  return { net, bits: Number(prefix) };
}
