/**
 * Validation of addresses and DHCP pools of an Ironic spec: rule 10 of the upstream webhook
 * (pkg/ironic/validation.go, ValidateDHCP and the extra range checks), plus the version check of
 * `extraRanges` that upstream does in the controller.
 */
import type { DHCP, DHCPRange, IronicSpec, Networking } from './schema.js';
import { cidrContains, compareIPs, parseCIDR, parseIP, type IPFamily, type ParsedCIDR, type ParsedIP } from '../shared/net.js';
import { describeValue, fieldPath, problem, type Problem } from '../shared/problems.js';
import { DEFAULT_VERSION, isAtLeast, parseVersion } from '../shared/version.js';
import { EXTRA_RANGES_MIN_VERSION } from '../shared/constants.js';

/** True for a string with at least one character. */
export const nonEmpty = (value: string | undefined): value is string => value !== undefined && value !== '';

/** True for an absent, empty or whitespace-only string. */
export const isBlank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

const IP_EXAMPLES = 'use an IPv4 address such as 192.0.2.10 (four numbers from 0 to 255, without leading zeros) or an IPv6 address such as 2001:db8::10';

/** The message for a value that is not an IP address. */
export const invalidIPMessage = (value: string): string => `${describeValue(value)} is not a valid IP address: ${IP_EXAMPLES}`;

/** A problem when `value` is set and is not a valid IP address. */
export const ipProblems = (path: string, value: string | undefined): Problem[] =>
  nonEmpty(value) && parseIP(value) === undefined ? [problem(path, invalidIPMessage(value))] : [];

export const DHCP_PATH = 'spec.networking.dhcp';
const MAIN_POOL = 'networking.dhcp';

/** A DHCP pool whose addresses are valid, used for the overlap check. */
type Pool = { readonly label: string; readonly family: IPFamily; readonly begin: ParsedIP; readonly end: ParsedIP };

type PoolFields = {
  /** `networking.dhcp` or `networking.dhcp.extraRanges[i]`, as used in messages. */
  readonly label: string;
  readonly networkCIDR: string;
  readonly rangeBegin: string;
  readonly rangeEnd: string;
};

type PoolCheck = { readonly problems: readonly Problem[]; readonly cidr?: ParsedCIDR; readonly pool?: Pool };

const pathOf = (label: string, field: string): string => `spec.${label}.${field}`;

// Rule 10a.
const provisioningNetworkRule = (networking: Networking): Problem[] =>
  nonEmpty(networking.ipAddress) || nonEmpty(networking.interface) || (networking.macAddresses ?? []).length > 0
    ? []
    : [
        problem(
          'spec.networking',
          'DHCP needs the provisioning network: set at least one of networking.ipAddress, networking.interface or networking.macAddresses',
        ),
      ];

// Rule 10b.
const serveDNSRule = (dhcp: DHCP): Problem[] =>
  dhcp.serveDNS === true && nonEmpty(dhcp.dnsAddress)
    ? [
        problem(
          `${DHCP_PATH}.dnsAddress`,
          'dnsAddress cannot be set together with serveDNS: remove dnsAddress to announce Ironic as the DNS server, or set serveDNS to false',
        ),
      ]
    : [];

// Rule 10c: the main gateway is deliberately not checked against the CIDR, as upstream.
const dhcpAddressRules = (dhcp: DHCP): Problem[] => [
  ...ipProblems(`${DHCP_PATH}.dnsAddress`, dhcp.dnsAddress),
  ...ipProblems(`${DHCP_PATH}.gatewayAddress`, dhcp.gatewayAddress),
];

const MAIN_RANGE_FIELDS = ['networkCIDR', 'rangeBegin', 'rangeEnd'] as const;

// Rules 10d and 10e.
const mainRangePresenceRules = (dhcp: DHCP): Problem[] => {
  const set = MAIN_RANGE_FIELDS.filter((f) => nonEmpty(dhcp[f]));
  const missing = MAIN_RANGE_FIELDS.filter((f) => !nonEmpty(dhcp[f]));
  const [firstMissing] = missing;
  if (set.length > 0 && firstMissing !== undefined) {
    return [
      problem(
        `${DHCP_PATH}.${firstMissing}`,
        `networkCIDR, rangeBegin and rangeEnd must be set together: set ${missing.join(' and ')} too, or remove ${set.join(' and ')}`,
      ),
    ];
  }
  if (set.length === 0 && (dhcp.extraRanges ?? []).length === 0) {
    return [
      problem(`${DHCP_PATH}.networkCIDR`, 'a DHCP range is required: set networkCIDR, rangeBegin and rangeEnd, or add at least one entry to extraRanges'),
    ];
  }
  return [];
};

const cidrProblem = (label: string, text: string): Problem =>
  problem(pathOf(label, 'networkCIDR'), `${describeValue(text)} is not a valid CIDR: write it as ADDRESS/PREFIX, for example 192.0.2.0/24 or 2001:db8::/64`);

const notInCIDRMessage = (value: string, label: string, cidrText: string): string =>
  `${value} is not in ${label}.networkCIDR (${cidrText}): use an address inside that network`;

type AddressCheck = { readonly problems: readonly Problem[]; readonly ip?: ParsedIP };

const checkAddressInCIDR = (
  label: string,
  field: string,
  value: string,
  cidr: { readonly parsed: ParsedCIDR | undefined; readonly text: string },
): AddressCheck => {
  const ip = parseIP(value);
  if (ip === undefined) return { problems: [problem(pathOf(label, field), invalidIPMessage(value))] };
  if (cidr.parsed !== undefined && !cidrContains(cidr.parsed, ip)) {
    return { problems: [problem(pathOf(label, field), notInCIDRMessage(value, label, cidr.text))] };
  }
  return { problems: [], ip };
};

const orderProblems = (label: string, begin: ParsedIP, end: ParsedIP, fields: PoolFields): Problem[] =>
  compareIPs(begin, end) > 0
    ? [problem(pathOf(label, 'rangeBegin'), `rangeBegin ${fields.rangeBegin} must not be after rangeEnd ${fields.rangeEnd}: swap them or fix the range`)]
    : [];

/** Rules 10f/10g for one pool: the CIDR parses, begin and end are inside it, begin ≤ end. */
const checkPool = (fields: PoolFields, extraCIDRProblems: (cidr: ParsedCIDR) => Problem[]): PoolCheck => {
  const parsed = parseCIDR(fields.networkCIDR);
  const cidrProblems = parsed === undefined ? [cidrProblem(fields.label, fields.networkCIDR)] : extraCIDRProblems(parsed);
  const cidr = { parsed: cidrProblems.length === 0 ? parsed : undefined, text: fields.networkCIDR };
  const begin = checkAddressInCIDR(fields.label, 'rangeBegin', fields.rangeBegin, cidr);
  const end = checkAddressInCIDR(fields.label, 'rangeEnd', fields.rangeEnd, cidr);
  const order = begin.ip && begin.ip.family === end.ip?.family ? orderProblems(fields.label, begin.ip, end.ip, fields) : [];
  const problems = [...cidrProblems, ...begin.problems, ...end.problems, ...order];
  const pool = begin.ip && end.ip && problems.length === 0 ? { label: fields.label, family: begin.ip.family, begin: begin.ip, end: end.ip } : undefined;
  return { problems, ...(cidr.parsed && { cidr: cidr.parsed }), ...(pool && { pool }) };
};

// Rule 10f, last part.
const ipAddressInMainCIDR = (networking: Networking, cidr: ParsedCIDR | undefined): Problem[] => {
  const ip = nonEmpty(networking.ipAddress) ? parseIP(networking.ipAddress) : undefined;
  if (cidr === undefined || ip === undefined || cidrContains(cidr, ip)) return [];
  return [
    problem(
      'spec.networking.ipAddress',
      `networking.dhcp.networkCIDR (${networking.dhcp?.networkCIDR ?? ''}) must contain networking.ipAddress (${networking.ipAddress ?? ''}): use a provisioning IP inside the DHCP network, or fix networkCIDR`,
    ),
  ];
};

const mainPool = (networking: Networking, dhcp: DHCP): PoolCheck => {
  const { networkCIDR, rangeBegin, rangeEnd } = dhcp;
  if (!nonEmpty(networkCIDR) || !nonEmpty(rangeBegin) || !nonEmpty(rangeEnd)) return { problems: [] };
  const check = checkPool({ label: MAIN_POOL, networkCIDR, rangeBegin, rangeEnd }, () => []);
  return { ...check, problems: [...check.problems, ...ipAddressInMainCIDR(networking, check.cidr)] };
};

const nonZeroPrefix =
  (label: string) =>
  (cidr: ParsedCIDR): Problem[] =>
    cidr.prefixLength === 0
      ? [
          problem(
            pathOf(label, 'networkCIDR'),
            `${label}.networkCIDR must have a non-zero prefix length: use the prefix of the real network, for example /24 or /64`,
          ),
        ]
      : [];

const extraGatewayProblems = (label: string, range: DHCPRange, cidr: ParsedCIDR | undefined): Problem[] => {
  const gateway = range.gatewayAddress;
  if (!nonEmpty(gateway)) return [];
  const ip = parseIP(gateway);
  const path = pathOf(label, 'gatewayAddress');
  if (ip === undefined) return [problem(path, invalidIPMessage(gateway))];
  if (ip.family === 'ipv6')
    return [
      problem(
        path,
        'IPv6 per-range gateway is not supported: remove gatewayAddress from this range (IPv6 hosts learn their router from router advertisements)',
      ),
    ];
  return cidr === undefined || cidrContains(cidr, ip) ? [] : [problem(path, notInCIDRMessage(gateway, label, range.networkCIDR))];
};

// Rule 10g.
const extraPool = (range: DHCPRange, index: number): PoolCheck => {
  const label = fieldPath(`${MAIN_POOL}.extraRanges`, index);
  const check = checkPool({ label, networkCIDR: range.networkCIDR, rangeBegin: range.rangeBegin, rangeEnd: range.rangeEnd }, nonZeroPrefix(label));
  return { ...check, problems: [...check.problems, ...extraGatewayProblems(label, range, check.cidr)] };
};

const overlaps = (a: Pool, b: Pool): boolean => a.family === b.family && compareIPs(a.begin, b.end) <= 0 && compareIPs(b.begin, a.end) <= 0;

const rangeText = (pool: Pool): string => `${pool.begin.text}-${pool.end.text}`;

// Rule 10h: inclusive intervals, so adjacent pools (…10 and 11…) are fine.
const overlapRules = (pools: readonly Pool[]): Problem[] =>
  pools.flatMap((b, j) =>
    pools
      .slice(0, j)
      .filter((a) => overlaps(a, b))
      .map((a) =>
        problem(
          `spec.${b.label}`,
          `DHCP pools of ${a.label} and ${b.label} overlap (${rangeText(a)} and ${rangeText(b)}): change rangeBegin and rangeEnd so that no address is in both pools`,
        ),
      ),
  );

/** The extraRanges version check (upstream CheckVersion): an absent version means DEFAULT_VERSION. */
const extraRangesVersionRule = (spec: IronicSpec): Problem[] => {
  const version = nonEmpty(spec.version) ? spec.version : DEFAULT_VERSION;
  if ((spec.networking?.dhcp?.extraRanges ?? []).length === 0 || !parseVersion(version).ok) return [];
  const { major, minor } = EXTRA_RANGES_MIN_VERSION;
  return isAtLeast(version, major, minor)
    ? []
    : [
        problem(
          `${DHCP_PATH}.extraRanges`,
          `extraRanges requires Ironic ${major}.${minor} or newer, but the version is ${describeValue(version)}: set version to ${major}.${minor} or newer, or remove extraRanges`,
        ),
      ];
};

const poolRules = (networking: Networking, dhcp: DHCP): Problem[] => {
  const checks = [mainPool(networking, dhcp), ...(dhcp.extraRanges ?? []).map(extraPool)];
  const pools = checks.flatMap((c) => (c.pool ? [c.pool] : []));
  return [...checks.flatMap((c) => c.problems), ...overlapRules(pools)];
};

/** Rule 10 and its parts 10a–10h, then the extraRanges version check. */
export const dhcpRules = (spec: IronicSpec): Problem[] => {
  const networking = spec.networking ?? {};
  const dhcp = networking.dhcp;
  if (dhcp === undefined) return [];
  return [
    ...provisioningNetworkRule(networking),
    ...serveDNSRule(dhcp),
    ...dhcpAddressRules(dhcp),
    ...mainRangePresenceRules(dhcp),
    ...poolRules(networking, dhcp),
    ...extraRangesVersionRule(spec),
  ];
};
