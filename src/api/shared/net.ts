/**
 * IP address and CIDR helpers shared by validation and the renderers, backed by ipaddr.js.
 *
 * The accepted syntax follows Go's `net/netip` (what upstream uses): IPv4 only as four decimal numbers
 * without leading zeros, any valid IPv6 (an embedded dotted IPv4 tail follows the IPv4 rule), an optional
 * IPv6 zone on addresses but not on CIDRs, and CIDRs whose address may have host bits set
 * (`192.0.2.1/24`). Every function is total: invalid or oversized input gives `undefined`, never a throw.
 */
import ipaddr from 'ipaddr.js';

export type IPFamily = 'ipv4' | 'ipv6';

/** A parsed IP address. `value` is the address as an unsigned integer, for ordering and intervals. */
export type ParsedIP = {
  readonly family: IPFamily;
  readonly value: bigint;
  /** Canonical text without the zone (RFC 5952 for IPv6). */
  readonly text: string;
  readonly zone?: string;
};

/** A parsed CIDR. `address` keeps the host bits as written; `first`/`last` bound the network. */
export type ParsedCIDR = {
  readonly family: IPFamily;
  readonly address: ParsedIP;
  readonly prefixLength: number;
  readonly first: bigint;
  readonly last: bigint;
  /** Canonical text of the network address (host bits cleared). */
  readonly network: string;
};

/** Longer strings are never addresses (an IPv6 with a zone fits easily); checked before any regex runs. */
const MAX_TEXT_LENGTH = 128;
const IPV4_TEXT = /^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$/;
const IPV6_DOTTED_TAIL = /^(.*:)([0-9.]+)$/;
const PREFIX_TEXT = /^(0|[1-9][0-9]{0,2})$/;
const ZONE_TEXT = /^[0-9A-Za-z_.-]{1,64}$/;

const BITS: Readonly<Record<IPFamily, number>> = { ipv4: 32, ipv6: 128 };

const bytesToBigInt = (bytes: readonly number[]): bigint => bytes.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);

const parseIPv4Octets = (text: string): number[] | undefined => {
  const match = IPV4_TEXT.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
};

const parseIPv4 = (text: string): ParsedIP | undefined => {
  const octets = parseIPv4Octets(text);
  return octets && { family: 'ipv4', value: bytesToBigInt(octets), text: octets.join('.') };
};

/** Rewrites a dotted IPv4 tail (`::ffff:192.0.2.1`) into two hex groups, checking it strictly. */
const expandDottedTail = (text: string): string | undefined => {
  if (!text.includes('.')) return text;
  const match = IPV6_DOTTED_TAIL.exec(text);
  const octets = match?.[2] === undefined ? undefined : parseIPv4Octets(match[2]);
  if (!match || !octets) return undefined;
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  return `${match[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

const splitZone = (text: string): { readonly bare: string; readonly zone?: string } => {
  const at = text.indexOf('%');
  return at < 0 ? { bare: text } : { bare: text.slice(0, at), zone: text.slice(at + 1) };
};

const parseIPv6 = (text: string, allowZone: boolean): ParsedIP | undefined => {
  const { bare, zone } = splitZone(text);
  if (zone !== undefined && (!allowZone || !ZONE_TEXT.test(zone))) return undefined;
  const expanded = expandDottedTail(bare);
  if (expanded === undefined || !ipaddr.IPv6.isValid(expanded)) return undefined;
  const address = ipaddr.IPv6.parse(expanded);
  const parsed = { family: 'ipv6', value: bytesToBigInt(address.toByteArray()), text: address.toRFC5952String() } as const;
  return zone === undefined ? parsed : { ...parsed, zone };
};

const parseAddress = (text: string, allowZone: boolean): ParsedIP | undefined => {
  if (text.length === 0 || text.length > MAX_TEXT_LENGTH) return undefined;
  return text.includes(':') ? parseIPv6(text, allowZone) : parseIPv4(text);
};

/** Options of parseIP. */
export type ParseIPOptions = {
  /** Accept an IPv6 zone such as `fe80::1%eth0`. Defaults to true. */
  readonly allowZone?: boolean;
};

/** Parses an IPv4 or IPv6 address (IPv6 zones such as `fe80::1%eth0` are accepted by default). Never throws. */
export const parseIP = (text: string, options: ParseIPOptions = {}): ParsedIP | undefined => {
  try {
    return parseAddress(text, options.allowZone ?? true);
  } catch {
    return undefined;
  }
};

/** True when `text` is a valid IPv4 or IPv6 address (see parseIP). */
export const isValidIP = (text: string): boolean => parseIP(text) !== undefined;

/** The family of a valid address, or undefined. */
export const ipFamily = (text: string): IPFamily | undefined => parseIP(text)?.family;

const IPV4_MAPPED_PREFIX = 0xffffn;

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback addresses (::ffff:127.0.0.1). */
export const isLoopback = (ip: ParsedIP): boolean => {
  if (ip.family === 'ipv4') return ip.value >> 24n === 127n;
  return ip.value === 1n || (ip.value >> 32n === IPV4_MAPPED_PREFIX && (ip.value >> 24n) % 256n === 127n);
};

const maskOf = (family: IPFamily, prefixLength: number): bigint => {
  const hostBits = BigInt(BITS[family] - prefixLength);
  const all = (1n << BigInt(BITS[family])) - 1n;
  return all ^ ((1n << hostBits) - 1n);
};

const groupsOf = (value: bigint, count: number, width: number): number[] =>
  Array.from({ length: count }, (_, i) => Number((value >> BigInt(width * (count - 1 - i))) & ((1n << BigInt(width)) - 1n)));

/** Formats an unsigned integer as an address of `family` (dotted quad, or RFC 5952 text for IPv6). */
export const formatIP = (value: bigint, family: IPFamily): string =>
  family === 'ipv4' ? new ipaddr.IPv4(groupsOf(value, 4, 8)).toString() : new ipaddr.IPv6(groupsOf(value, 8, 16)).toRFC5952String();

/**
 * The address as Go's `net.IP.String()` writes it (what cert-manager puts in its `ip-sans` annotation and
 * what a certificate's IP SAN reads back as): RFC 5952 for IPv6, dotted IPv4 for IPv4-mapped IPv6
 * (`::ffff:192.0.2.1`, which a certificate stores as 4 bytes). Undefined for an invalid address or one with
 * a zone, which no certificate can hold.
 */
export const canonicalIP = (text: string): string | undefined => {
  const ip = parseIP(text.trim(), { allowZone: false });
  if (ip === undefined) return undefined;
  return ip.family === 'ipv6' && ip.value >> 32n === IPV4_MAPPED_PREFIX ? formatIP(ip.value & 0xffffffffn, 'ipv4') : ip.text;
};

const buildCIDR = (address: ParsedIP, prefixLength: number): ParsedCIDR => {
  const mask = maskOf(address.family, prefixLength);
  const first = address.value & mask;
  const last = first | (((1n << BigInt(BITS[address.family])) - 1n) ^ mask);
  return { family: address.family, address, prefixLength, first, last, network: formatIP(first, address.family) };
};

const parseCIDRUnsafe = (text: string): ParsedCIDR | undefined => {
  if (text.length > MAX_TEXT_LENGTH) return undefined;
  const slash = text.lastIndexOf('/');
  if (slash < 0) return undefined;
  const prefixText = text.slice(slash + 1);
  const address = parseAddress(text.slice(0, slash), false);
  if (!address || !PREFIX_TEXT.test(prefixText)) return undefined;
  const prefixLength = Number(prefixText);
  return prefixLength <= BITS[address.family] ? buildCIDR(address, prefixLength) : undefined;
};

/**
 * Parses `ADDRESS/PREFIX`. Host bits are allowed (`192.0.2.1/24`), zones and leading zeros in the prefix
 * are not. Never throws.
 */
export const parseCIDR = (text: string): ParsedCIDR | undefined => {
  try {
    return parseCIDRUnsafe(text);
  } catch {
    return undefined;
  }
};

/** True when `text` is a valid CIDR (see parseCIDR). */
export const isValidCIDR = (text: string): boolean => parseCIDR(text) !== undefined;

/** True when `ip` is inside `cidr`. An address of the other family is never inside. */
export const cidrContains = (cidr: ParsedCIDR, ip: ParsedIP): boolean => cidr.family === ip.family && ip.value >= cidr.first && ip.value <= cidr.last;

/** Orders two addresses: IPv4 before IPv6, then by numeric value. */
export const compareIPs = (a: ParsedIP, b: ParsedIP): number => {
  if (a.family !== b.family) return a.family === 'ipv4' ? -1 : 1;
  return a.value === b.value ? 0 : a.value < b.value ? -1 : 1;
};

/**
 * The netmask of a prefix length: dotted quad for IPv4 (`24` → `255.255.255.0`), RFC 5952 text for IPv6.
 * Undefined when the prefix length is not an integer in range for the family.
 */
export const prefixToNetmask = (prefixLength: number, family: IPFamily): string | undefined => {
  if (!Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > BITS[family]) return undefined;
  return formatIP(maskOf(family, prefixLength), family);
};

/**
 * Every address from `begin` to `end` (same family, begin first), in canonical text; undefined when either
 * does not parse, the families differ, the range is backwards or it holds more than `limit` addresses.
 */
export const addressesInRange = (begin: string, end: string, limit: number): string[] | undefined => {
  const first = parseIP(begin, { allowZone: false });
  const last = parseIP(end, { allowZone: false });
  if (first === undefined || last?.family !== first.family || last.value < first.value) return undefined;
  const count = last.value - first.value + 1n;
  if (count > BigInt(limit)) return undefined;
  return Array.from({ length: Number(count) }, (_, i) => formatIP(first.value + BigInt(i), first.family));
};
