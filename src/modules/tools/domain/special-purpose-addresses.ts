/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890), as a table the SSRF rules
 * read (src/modules/tools/domain/ssrf-policy.ts; docs/decisions.md, "SSRF defences").
 *
 * TRANSCRIBED 2026-11-27, by hand and without network access, from the registries as the
 * transcriber knew them at their last updates (IPv4 and IPv6 both 2025; the IPv6 table includes
 * 3fff::/20, 5f00::/16 and 100:0:0:1::/64). Nothing here was fetched, so compare it with https://www.iana.org/assignments/iana-ipv4-special-registry/ and
 * https://www.iana.org/assignments/iana-ipv6-special-registry/ when touching it, and add the
 * entries registered since. Order and names follow the registries; `label` is the short name an
 * error message shows. `globallyReachable` is the registry's column: `true`, `false`, or `null`
 * where it says N/A. Entries that carry an IPv4 address (`embedsIpv4`) are judged by that address,
 * not by their own row.
 */
export interface SpecialPurposeBlock {
  readonly cidr: string;
  readonly name: string;
  readonly label: string;
  readonly globallyReachable: boolean | null;
  readonly embedsIpv4?: true;
}

export const IANA_IPV4_SPECIAL_PURPOSE: readonly SpecialPurposeBlock[] = [
  { cidr: '0.0.0.0/8', name: '"This network"', label: 'this network', globallyReachable: false },
  { cidr: '0.0.0.0/32', name: '"This host on this network"', label: 'this host', globallyReachable: false },
  { cidr: '10.0.0.0/8', name: 'Private-Use', label: 'private', globallyReachable: false },
  { cidr: '100.64.0.0/10', name: 'Shared Address Space', label: 'carrier-grade NAT', globallyReachable: false },
  { cidr: '127.0.0.0/8', name: 'Loopback', label: 'loopback', globallyReachable: false },
  { cidr: '169.254.0.0/16', name: 'Link Local', label: 'link-local', globallyReachable: false },
  { cidr: '172.16.0.0/12', name: 'Private-Use', label: 'private', globallyReachable: false },
  { cidr: '192.0.0.0/24', name: 'IETF Protocol Assignments', label: 'IETF protocol assignments', globallyReachable: false },
  { cidr: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', label: 'DS-Lite', globallyReachable: false },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', label: 'dummy', globallyReachable: false },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol Anycast', label: 'PCP anycast', globallyReachable: true },
  { cidr: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', label: 'TURN anycast', globallyReachable: true },
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', label: 'NAT64 discovery', globallyReachable: false },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', label: 'NAT64 discovery', globallyReachable: false },
  { cidr: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', label: 'documentation', globallyReachable: false },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', label: 'AS112', globallyReachable: true },
  { cidr: '192.52.193.0/24', name: 'AMT', label: 'AMT', globallyReachable: true },
  { cidr: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', label: '6to4 relay anycast', globallyReachable: null },
  { cidr: '192.168.0.0/16', name: 'Private-Use', label: 'private', globallyReachable: false },
  { cidr: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', label: 'AS112', globallyReachable: true },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', label: 'benchmarking', globallyReachable: false },
  { cidr: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', label: 'documentation', globallyReachable: false },
  { cidr: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', label: 'documentation', globallyReachable: false },
  { cidr: '240.0.0.0/4', name: 'Reserved', label: 'reserved', globallyReachable: false },
  { cidr: '255.255.255.255/32', name: 'Limited Broadcast', label: 'broadcast', globallyReachable: false },
];

export const IANA_IPV6_SPECIAL_PURPOSE: readonly SpecialPurposeBlock[] = [
  { cidr: '::1/128', name: 'Loopback Address', label: 'loopback', globallyReachable: false },
  { cidr: '::/128', name: 'Unspecified Address', label: 'unspecified', globallyReachable: false },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped Address', label: 'IPv4-mapped', globallyReachable: false, embedsIpv4: true },
  { cidr: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', label: 'NAT64', globallyReachable: true, embedsIpv4: true },
  { cidr: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', label: 'local-use NAT64', globallyReachable: false },
  { cidr: '100::/64', name: 'Discard-Only Address Block', label: 'discard-only', globallyReachable: false },
  { cidr: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', label: 'dummy', globallyReachable: false },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments', label: 'IETF protocol assignments', globallyReachable: false },
  { cidr: '2001::/32', name: 'TEREDO', label: 'Teredo', globallyReachable: null, embedsIpv4: true },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast', label: 'PCP anycast', globallyReachable: true },
  { cidr: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', label: 'TURN anycast', globallyReachable: true },
  { cidr: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', label: 'DNS-SD SRP anycast', globallyReachable: true },
  { cidr: '2001:2::/48', name: 'Benchmarking', label: 'benchmarking', globallyReachable: false },
  { cidr: '2001:3::/32', name: 'AMT', label: 'AMT', globallyReachable: true },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', label: 'AS112', globallyReachable: true },
  { cidr: '2001:10::/28', name: 'Deprecated (previously ORCHID)', label: 'ORCHID', globallyReachable: null },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', label: 'ORCHIDv2', globallyReachable: true },
  { cidr: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', label: 'drone remote ID', globallyReachable: true },
  { cidr: '2001:db8::/32', name: 'Documentation', label: 'documentation', globallyReachable: false },
  { cidr: '2002::/16', name: '6to4', label: '6to4', globallyReachable: null, embedsIpv4: true },
  { cidr: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', label: 'AS112', globallyReachable: true },
  { cidr: '3fff::/20', name: 'Documentation', label: 'documentation', globallyReachable: false },
  { cidr: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', label: 'SRv6 SIDs', globallyReachable: false },
  { cidr: 'fc00::/7', name: 'Unique-Local', label: 'unique local', globallyReachable: false },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast', label: 'link-local', globallyReachable: false },
];

/**
 * Blocks outside the special-purpose registries that no service endpoint is: multicast (its own
 * IANA registries) and the deprecated site-local prefix (RFC 3879, still routed inside some
 * networks). ipaddr.js names these too; listed so a refusal names the block.
 */
export const OTHER_REFUSED_BLOCKS: readonly SpecialPurposeBlock[] = [
  { cidr: '224.0.0.0/4', name: 'Multicast (RFC 5771)', label: 'multicast', globallyReachable: false },
  { cidr: 'fec0::/10', name: 'Site-Local (deprecated, RFC 3879)', label: 'site-local', globallyReachable: false },
  { cidr: 'ff00::/8', name: 'Multicast (RFC 4291)', label: 'multicast', globallyReachable: false },
];
