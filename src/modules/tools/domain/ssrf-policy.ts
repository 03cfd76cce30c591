import { isIP } from 'node:net';

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

interface Cidr {
  /** 4 or 16 bytes. */
  readonly bytes: Uint8Array;
  readonly prefix: number;
  readonly text: string;
}

interface NamedRange extends Cidr {
  readonly label: string;
}

function range(text: string, label: string): NamedRange {
  return { ...parseCidr(text), label };
}

/** IPv4 ranges no service endpoint may reach: the host itself, private networks, link-local (cloud metadata), and what is not unicast. */
const IPV4_REFUSED: readonly NamedRange[] = [
  range('0.0.0.0/8', 'this network'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.168.0.0/16', 'private'),
  range('224.0.0.0/4', 'multicast'),
  // Beyond the required list: the limited broadcast address is never a service.
  range('255.255.255.255/32', 'broadcast'),
];

/** IPv6 ranges refused as they are; the forms that embed an IPv4 address are judged by that address (see `embeddedIpv4`). */
const IPV6_REFUSED: readonly NamedRange[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fc00::/7', 'unique local'),
  range('fe80::/10', 'link-local'),
  // Beyond the required list: deprecated site-local (still routed inside some networks), and Teredo,
  // whose client address is an obfuscated IPv4 address no service needs to be reached through.
  range('fec0::/10', 'site-local'),
  range('2001::/32', 'Teredo'),
  range('ff00::/8', 'multicast'),
];

/** `::ffff:a.b.c.d`: the socket layer connects to the IPv4 address itself. */
const IPV4_MAPPED = parseCidr('::ffff:0:0/96');
/** `::a.b.c.d` (IPv4-compatible, deprecated): some stacks still route it to the IPv4 address. */
const IPV4_COMPATIBLE = parseCidr('::/96');
/** Beyond the required list: a NAT64 gateway (64:ff9b::/96) forwards these to the embedded IPv4 address, which must pass too. */
const NAT64 = parseCidr('64:ff9b::/96');
/** Beyond the required list: SIIT's IPv4-translated form `::ffff:0:a.b.c.d`, delivered to the IPv4 address by a translator. */
const IPV4_TRANSLATED = parseCidr('::ffff:0:0:0/96');
/** Beyond the required list: 6to4 (2002:AABB:CCDD::/48) tunnels to the IPv4 address in bytes 2 to 5. */
const SIX_TO_FOUR = parseCidr('2002::/16');

/**
 * Which addresses a service endpoint may resolve to (the SSRF rules in src/modules/tools/application/ssrf-guard.ts).
 * `allowCidrs` is the test-only allow list (GW_SSRF_ALLOW_CIDRS): an address in it passes whatever range it is in.
 */
export class AddressPolicy {
  private readonly allowed: readonly Cidr[];

  constructor(allowCidrs: readonly string[]) {
    this.allowed = allowCidrs.map((text) => parseCidr(text));
  }

  /** Null when a call may connect to `address`, else why not (client-safe, names the range). */
  refusal(address: string): string | null {
    const shown = address.length > 64 ? `${address.slice(0, 64)}...` : address;
    const bytes = parseAddress(address);
    if (bytes === null) return `${shown} is not an IP address`;
    const ipv4 = bytes.length === 4 ? bytes : embeddedIpv4(bytes);
    if (this.allowed.some((cidr) => contains(cidr, bytes) || (ipv4 !== null && contains(cidr, ipv4)))) return null;
    if (bytes.length === 16) {
      const hit = IPV6_REFUSED.find((candidate) => contains(candidate, bytes));
      if (hit !== undefined) return `${shown} is in ${hit.text} (${hit.label})`;
    }
    if (ipv4 === null) return null;
    const hit = IPV4_REFUSED.find((candidate) => contains(candidate, ipv4));
    if (hit === undefined) return null;
    const dotted = ipv4.join('.');
    return dotted === shown ? `${shown} is in ${hit.text} (${hit.label})` : `${shown} stands for ${dotted}, which is in ${hit.text} (${hit.label})`;
  }
}

/** The IPv4 address an IPv6 address carries and is delivered to (mapped, compatible, translated, NAT64, 6to4), or null. */
function embeddedIpv4(bytes: Uint8Array): Uint8Array | null {
  if ([IPV4_MAPPED, IPV4_COMPATIBLE, IPV4_TRANSLATED, NAT64].some((cidr) => contains(cidr, bytes))) return bytes.subarray(12);
  if (contains(SIX_TO_FOUR, bytes)) return bytes.subarray(2, 6);
  return null;
}

function contains(cidr: Cidr, bytes: Uint8Array): boolean {
  if (cidr.bytes.length !== bytes.length) return false;
  const whole = cidr.prefix >> 3;
  for (let i = 0; i < whole; i++) if (cidr.bytes[i] !== bytes[i]) return false;
  const rest = cidr.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (cidr.bytes[whole] & mask) === (bytes[whole] & mask);
}

/** `a.b.c.d/n` or `x:y::z/n`; throws on anything else, so that a mistyped allow list stops the start. */
function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const bytes = parseAddress(address);
  if (bytes === null || address.includes('%')) throw new Error(`not a CIDR: ${text.slice(0, 100)}`);
  const bits = bytes.length * 8;
  const prefixText = slash === -1 ? String(bits) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) throw new Error(`not a CIDR: ${text.slice(0, 100)}`);
  return { bytes, prefix: Number(prefixText), text };
}

/** The bytes of an IPv4 (4) or IPv6 (16) address in textual form, or null; an IPv6 zone (`%eth0`) is ignored. */
function parseAddress(text: string): Uint8Array | null {
  const family = isIP(text);
  if (family === 4) return Uint8Array.from(text.split('.').map(Number));
  if (family !== 6) return null;
  const zone = text.indexOf('%');
  let body = zone === -1 ? text : text.slice(0, zone);
  const bytes = new Uint8Array(16);
  const lastColon = body.lastIndexOf(':');
  let tailIpv4: Uint8Array | null = null;
  if (body.includes('.', lastColon)) {
    tailIpv4 = Uint8Array.from(
      body
        .slice(lastColon + 1)
        .split('.')
        .map(Number),
    );
    // Stand-in groups keep the count right; the IPv4 bytes overwrite them below.
    body = `${body.slice(0, lastColon + 1)}0:0`;
  }
  const gap = body.indexOf('::');
  const head = gap === -1 ? body.split(':') : splitGroups(body.slice(0, gap));
  const tail = gap === -1 ? [] : splitGroups(body.slice(gap + 2));
  const groups = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  if (tailIpv4 !== null) bytes.set(tailIpv4, 12);
  return bytes;
}

function splitGroups(text: string): string[] {
  return text === '' ? [] : text.split(':');
}
