import t from 'tap';
import fc from 'fast-check';
import { validateIronic, type Problem } from '../../src/api/validate.js';

type Spec = Record<string, unknown>;

/** An input the rule must accept: no problem at all. */
type Accepted = { readonly name: string; readonly spec: unknown; readonly old?: unknown };

/**
 * An input the rule must refuse. `path` is the problem of the rule, whose message must contain every one of
 * `words` (case-insensitive). `paths` is the whole list of problem paths, when more than the one problem is
 * expected; it defaults to `[path]`.
 */
type Refused = Accepted & { readonly path: string; readonly words: readonly string[]; readonly paths?: readonly string[] };

type RuleTable = { readonly rule: string; readonly accepted: readonly Accepted[]; readonly refused: readonly Refused[] };

const DB = { credentialsName: 'db-credentials', host: 'mariadb.example.com', name: 'ironic' };
const HA = { highAvailability: true, database: DB };
/** A provisioning network iPXE over TLS can use: DHCP and an IPv4 address. */
const IPXE_NETWORK = { ipAddress: '192.0.2.2', dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } };
const PROV = { interface: 'eth0', ipAddress: '192.0.2.2' };
const PROV6 = { interface: 'eth0', ipAddress: '2001:db8::2' };
const MAIN = { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' };
const MAIN6 = { networkCIDR: '2001:db8::/64', rangeBegin: '2001:db8::10', rangeEnd: '2001:db8::ffff' };
const EXTRA = { networkCIDR: '198.51.100.0/24', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20' };
const EXTRA6 = { networkCIDR: '2001:db8:1::/64', rangeBegin: '2001:db8:1::10', rangeEnd: '2001:db8:1::20' };

const dhcpSpec = (dhcp: Spec, networking: Spec = PROV, rest: Spec = {}): Spec => ({ ...rest, networking: { ...networking, dhcp } });
const extraSpec = (...extraRanges: Spec[]): Spec => dhcpSpec({ ...MAIN, extraRanges });
const extraOnly = (...extraRanges: Spec[]): Spec => dhcpSpec({ extraRanges });
const agentImages = (...images: Spec[]): Spec => ({ overrides: { agentImages: images } });
const image = (kernel: string, initramfs = 'https://example.com/ipa.initramfs', architecture?: string): Spec => ({
  kernel,
  initramfs,
  ...(architecture !== undefined && { architecture }),
});
const providers = (...providerNetworks: Spec[]): Spec => ({ networkingService: { enabled: true, providerNetworks } });
const exporter = (prometheusExporter: Spec, rest: Spec = {}): Spec => ({ ...rest, prometheusExporter });

const TABLES: readonly RuleTable[] = [
  {
    rule: 'schema: the shape is checked first, with spec paths',
    accepted: [
      { name: 'empty spec', spec: {} },
      { name: 'unknown fields are kept, not refused', spec: { somethingNew: 1 } },
      { name: 'a priority class', spec: { priorityClassName: 'system-node-critical' } },
      { name: 'an empty priority class (unset)', spec: { priorityClassName: '' } },
      { name: 'ports in range', spec: { networking: { apiPort: 1, imageServerPort: 65535, rpcPort: 6189 } } },
    ],
    refused: [
      { name: 'null', spec: null, path: 'spec', words: ['must be an object', 'null'] },
      { name: 'array', spec: [], path: 'spec', words: ['must be an object', 'list'] },
      { name: 'number', spec: 42, path: 'spec', words: ['must be an object', '42'] },
      { name: 'string port', spec: { networking: { apiPort: '6385' } }, path: 'spec.networking.apiPort', words: ['whole number'] },
      { name: 'port 0', spec: { networking: { apiPort: 0 } }, path: 'spec.networking.apiPort', words: ['too small', 'from 1 to 65535'] },
      { name: 'port too large', spec: { networking: { rpcPort: 70000 } }, path: 'spec.networking.rpcPort', words: ['too large', '65535'] },
      { name: 'fractional port', spec: { networking: { apiPort: 1.5 } }, path: 'spec.networking.apiPort', words: ['whole number'] },
      { name: 'boolean as string', spec: { highAvailability: 'true' }, path: 'spec.highAvailability', words: ['true or false'] },
      {
        name: 'priority class with capitals',
        spec: { priorityClassName: 'System-Node-Critical' },
        path: 'spec.priorityClassName',
        words: ['is not a DNS subdomain name', 'lowercase letters'],
      },
      { name: 'priority class too long', spec: { priorityClassName: 'a'.repeat(254) }, path: 'spec.priorityClassName', words: ['too long', '253'] },
      {
        name: 'missing required fields of an extra range, with array index',
        spec: extraOnly({}),
        path: 'spec.networking.dhcp.extraRanges[0].networkCIDR',
        paths: [
          'spec.networking.dhcp.extraRanges[0].networkCIDR',
          'spec.networking.dhcp.extraRanges[0].rangeBegin',
          'spec.networking.dhcp.extraRanges[0].rangeEnd',
        ],
        words: ['required', 'add it'],
      },
      { name: 'missing database host', spec: { database: { credentialsName: 'c', name: 'n' } }, path: 'spec.database.host', words: ['required'] },
      { name: 'empty database name', spec: { database: { ...DB, name: '' } }, path: 'spec.database.name', words: ['must not be empty'] },
      {
        name: 'enum value',
        spec: { networking: { ipAddressManager: 'vrrp' } },
        path: 'spec.networking.ipAddressManager',
        words: ['one of', '"keepalived"', '"vrrp"'],
      },
      {
        name: 'uri format',
        spec: { networking: { externalCallbackURL: 'not a url', imageServerExternalURL: 'https://x' } },
        path: 'spec.networking.externalCallbackURL',
        words: ['is not an absolute URL', 'write it like https://192.0.2.10:6385'],
      },
      { name: 'blank agent kernel is not a URL', spec: agentImages(image(' ')), path: 'spec.overrides.agentImages[0].kernel', words: ['URL'] },
      {
        name: 'version pattern',
        spec: { version: 'v38' },
        path: 'spec.version',
        words: ['"v38" is not an Ironic version', 'MAJOR.MINOR', 'write it like "38.0"'],
      },
      // NOTE: the CRD pattern of version refuses an empty string before rule 19 could default it.
      { name: 'empty version', spec: { version: '' }, path: 'spec.version', words: ['"" is not an Ironic version'] },
      {
        name: 'map key with a slash',
        spec: { nodeSelector: { 'kubernetes.io/os': 1 } },
        path: 'spec.nodeSelector["kubernetes.io/os"]',
        words: ['must be text'],
      },
      { name: 'numeric map key stays a key', spec: { nodeSelector: { '0': true } }, path: 'spec.nodeSelector["0"]', words: ['must be text'] },
      {
        name: 'JSON pointer escapes are decoded',
        spec: { nodeSelector: { 'a~b/c': null } },
        path: 'spec.nodeSelector["a~b/c"]',
        words: ['must be text', 'null'],
      },
      {
        name: 'too many items',
        spec: { networking: { macAddresses: Array.from({ length: 65 }, () => 'aa:bb:cc:dd:ee:ff') } },
        path: 'spec.networking.macAddresses',
        words: ['at most 64'],
      },
      {
        name: 'semantic rules do not run on a malformed spec',
        spec: { highAvailability: true, networking: { apiPort: 'x', ipAddress: 'nope' } },
        path: 'spec.networking.apiPort',
        words: ['whole number'],
      },
    ],
  },
  {
    rule: '1: high availability requires a database (database or databaseName)',
    accepted: [
      { name: 'HA with database', spec: HA },
      { name: 'HA with databaseName', spec: { highAvailability: true, databaseName: 'ironic-db' } },
      { name: 'no HA, no database', spec: { highAvailability: false } },
    ],
    refused: [
      {
        name: 'HA without a database',
        spec: { highAvailability: true },
        path: 'spec.highAvailability',
        words: ['requires a database', 'spec.database', 'spec.databaseName'],
      },
    ],
  },
  {
    rule: '1b: database and databaseName exclude each other',
    accepted: [
      { name: 'only database', spec: { database: DB } },
      { name: 'only databaseName', spec: { databaseName: 'ironic-db' } },
    ],
    refused: [
      {
        name: 'both',
        spec: { database: DB, databaseName: 'ironic-db' },
        path: 'spec.databaseName',
        words: ['database and databaseName', 'cannot both be set'],
      },
    ],
  },
  {
    rule: '2: an update cannot move to a different database',
    accepted: [
      { name: 'same host and name', spec: { database: DB }, old: { database: DB } },
      {
        name: 'new credentials and TLS secret are fine',
        spec: { database: { ...DB, credentialsName: 'rotated', tlsCertificateName: 'ca' } },
        old: { database: DB },
      },
      { name: 'no old database', spec: { database: DB }, old: {} },
      { name: 'database removed', spec: {}, old: { database: DB } },
      { name: 'same databaseName', spec: { databaseName: 'a' }, old: { databaseName: 'a' } },
      { name: 'databaseName set for the first time', spec: { databaseName: 'a' }, old: { databaseName: '' } },
      { name: 'malformed old spec is ignored', spec: { database: DB }, old: { database: 'x', databaseName: 3 } },
    ],
    refused: [
      {
        name: 'other host',
        spec: { database: { ...DB, host: 'other.example.com' } },
        old: { database: DB },
        path: 'spec.database',
        words: ['cannot change', 'different database', 'mariadb.example.com'],
      },
      { name: 'other name', spec: { database: { ...DB, name: 'ironic2' } }, old: { database: DB }, path: 'spec.database', words: ['cannot change', 'restore'] },
      {
        name: 'other databaseName',
        spec: { databaseName: 'b' },
        old: { databaseName: 'a' },
        path: 'spec.databaseName',
        words: ['cannot change', 'IronicDatabase', '"a"'],
      },
    ],
  },
  {
    rule: '3: database needs credentialsName, host and name',
    accepted: [{ name: 'all set', spec: { database: DB } }],
    refused: [
      { name: 'blank host', spec: { database: { ...DB, host: '  ' } }, path: 'spec.database.host', words: ['required', 'host', 'blank'] },
      { name: 'blank credentials', spec: { database: { ...DB, credentialsName: ' ' } }, path: 'spec.database.credentialsName', words: ['required', 'Secret'] },
    ],
  },
  {
    rule: '4: disableHostNetwork excludes host-network settings',
    accepted: [
      { name: 'disableHostNetwork alone', spec: { networking: { disableHostNetwork: true } } },
      { name: 'bindInterface false is not set', spec: { networking: { disableHostNetwork: true, bindInterface: false } } },
      { name: 'host network with interface', spec: { networking: { disableHostNetwork: false, interface: 'eth0' } } },
    ],
    refused: [
      {
        name: 'with macAddresses',
        spec: { networking: { disableHostNetwork: true, macAddresses: ['aa:bb:cc:dd:ee:ff'] } },
        path: 'spec.networking.disableHostNetwork',
        words: ['disableHostNetwork', 'networking.macAddresses'],
      },
      {
        name: 'with a disabled keepalived',
        spec: { networking: { disableHostNetwork: true, keepalived: { enabled: false } } },
        path: 'spec.networking.disableHostNetwork',
        words: ['networking.keepalived'],
      },
      {
        name: 'lists every conflict',
        spec: { networking: { disableHostNetwork: true, bindInterface: true, interface: 'eth0' } },
        path: 'spec.networking.disableHostNetwork',
        words: ['networking.bindInterface, networking.interface'],
      },
    ],
  },
  {
    rule: '5: networking.ipAddress is a valid IP',
    accepted: [
      { name: 'IPv4', spec: { networking: { ipAddress: '192.0.2.1' } } },
      { name: 'IPv6', spec: { networking: { ipAddress: '2001:db8::1' } } },
      { name: 'IPv6 with a zone', spec: { networking: { ipAddress: 'fe80::1%eth0' } } },
      { name: 'IPv6 with an IPv4 tail', spec: { networking: { ipAddress: '::ffff:192.0.2.1' } } },
      { name: 'empty means unset', spec: { networking: { ipAddress: '' } } },
    ],
    refused: [
      {
        name: 'octet too large',
        spec: { networking: { ipAddress: '192.0.2.256' } },
        path: 'spec.networking.ipAddress',
        words: ['not a valid IP address', '192.0.2.256'],
      },
      {
        name: 'leading zero',
        spec: { networking: { ipAddress: '192.0.2.01' } },
        path: 'spec.networking.ipAddress',
        words: ['not a valid IP address', 'leading zeros'],
      },
      { name: 'short IPv4', spec: { networking: { ipAddress: '10.1' } }, path: 'spec.networking.ipAddress', words: ['not a valid IP address'] },
      { name: 'hex IPv4', spec: { networking: { ipAddress: '0x7f.0.0.1' } }, path: 'spec.networking.ipAddress', words: ['not a valid IP address'] },
      { name: 'two ::', spec: { networking: { ipAddress: '2001::db8::1' } }, path: 'spec.networking.ipAddress', words: ['not a valid IP address'] },
      {
        name: 'IPv6 group too long',
        spec: { networking: { ipAddress: '2001:db8::12345' } },
        path: 'spec.networking.ipAddress',
        words: ['not a valid IP address'],
      },
      {
        name: 'leading zero in an IPv4 tail',
        spec: { networking: { ipAddress: '::ffff:192.0.2.01' } },
        path: 'spec.networking.ipAddress',
        words: ['not a valid IP address'],
      },
      { name: 'empty zone', spec: { networking: { ipAddress: 'fe80::1%' } }, path: 'spec.networking.ipAddress', words: ['not a valid IP address'] },
      { name: 'brackets', spec: { networking: { ipAddress: '[2001:db8::1]' } }, path: 'spec.networking.ipAddress', words: ['not a valid IP address'] },
    ],
  },
  {
    rule: '6: networking.externalIP is a valid IP',
    accepted: [
      { name: 'IPv4', spec: { networking: { externalIP: '203.0.113.5' } } },
      { name: 'IPv6', spec: { networking: { externalIP: '2001:db8::5' } } },
    ],
    refused: [
      { name: 'host name', spec: { networking: { externalIP: 'ironic.example.com' } }, path: 'spec.networking.externalIP', words: ['not a valid IP address'] },
      { name: 'CIDR', spec: { networking: { externalIP: '2001:db8::5/64' } }, path: 'spec.networking.externalIP', words: ['not a valid IP address'] },
    ],
  },
  {
    rule: '7: externalIP excludes ingress and the external URLs',
    accepted: [{ name: 'externalIP alone', spec: { networking: { externalIP: '203.0.113.5' } } }],
    refused: [
      {
        name: 'with ingress',
        spec: { networking: { externalIP: '203.0.113.5', ingress: {} } },
        path: 'spec.networking.externalIP',
        words: ['cannot be set together', 'networking.ingress'],
      },
      {
        name: 'with both URLs',
        spec: { networking: { externalIP: '203.0.113.5', externalCallbackURL: 'https://a:6385', imageServerExternalURL: 'https://a:6183' } },
        path: 'spec.networking.externalIP',
        words: ['cannot be set together', 'externalCallbackURL'],
      },
    ],
  },
  {
    rule: '8: without ingress, both external URLs or none',
    accepted: [
      { name: 'both', spec: { networking: { externalCallbackURL: 'https://a:6385', imageServerExternalURL: 'https://a:6183' } } },
      { name: 'one with ingress', spec: { networking: { externalCallbackURL: 'https://a:6385', ingress: { host: 'ironic.example.com' } } } },
    ],
    refused: [
      {
        name: 'only the callback URL',
        spec: { networking: { externalCallbackURL: 'https://a:6385' } },
        path: 'spec.networking.imageServerExternalURL',
        words: ['set together', 'set imageServerExternalURL'],
      },
      {
        name: 'only the image server URL',
        spec: { networking: { imageServerExternalURL: 'https://a:6183' } },
        path: 'spec.networking.externalCallbackURL',
        words: ['set together', 'set externalCallbackURL'],
      },
    ],
  },
  {
    rule: '9: high availability takes networking.ipAddress only as the virtual IP of keepalived',
    accepted: [
      { name: 'HA with an interface', spec: { ...HA, networking: { interface: 'eth0' } } },
      { name: 'HA with keepalived', spec: { ...HA, networking: { ...PROV, keepalived: { enabled: true } } } },
      { name: 'HA with the deprecated ipAddressManager', spec: { ...HA, networking: { ...PROV, ipAddressManager: 'keepalived' } } },
    ],
    refused: [
      {
        name: 'HA with an ipAddress',
        spec: { ...HA, networking: { ipAddress: '192.0.2.2' } },
        path: 'spec.networking.ipAddress',
        words: ['needs keepalived with high availability', 'virtual IP', 'remove ipAddress'],
      },
      {
        name: 'HA with an IPv6 virtual IP',
        spec: { ...HA, networking: { ...PROV6, keepalived: { enabled: true } } },
        path: 'spec.networking.ipAddress',
        words: ['must be an IPv4 address', '2001:db8::2'],
      },
      {
        name: 'HA with an ipAddress and keepalived disabled',
        spec: { ...HA, networking: { ...PROV, keepalived: { enabled: false } } },
        path: 'spec.networking.ipAddress',
        words: ['enable networking.keepalived'],
      },
    ],
  },
  {
    rule: '10: DHCP with high availability needs keepalived',
    accepted: [
      { name: 'DHCP without HA', spec: dhcpSpec(MAIN) },
      { name: 'DHCP with HA and keepalived', spec: dhcpSpec(MAIN, { ...PROV, keepalived: { enabled: true } }, HA) },
      { name: 'DHCP with HA and ipAddressManager', spec: dhcpSpec(MAIN, { ...PROV, ipAddressManager: 'keepalived' }, HA) },
    ],
    refused: [
      {
        name: 'DHCP with HA',
        spec: dhcpSpec(MAIN, { interface: 'eth0' }, HA),
        path: 'spec.networking.dhcp',
        words: ['DHCP with high availability needs keepalived', 'networking.keepalived.enabled'],
      },
      {
        name: 'DHCP with HA and keepalived: the DHCP rules apply as without HA',
        spec: dhcpSpec({ ...MAIN, rangeEnd: '198.51.100.9' }, { ...PROV, keepalived: { enabled: true } }, HA),
        path: 'spec.networking.dhcp.rangeEnd',
        words: ['198.51.100.9'],
      },
    ],
  },
  {
    rule: '10a: DHCP needs ipAddress, interface or macAddresses',
    accepted: [
      { name: 'interface only', spec: dhcpSpec(MAIN, { interface: 'eth0' }) },
      { name: 'macAddresses only', spec: dhcpSpec(MAIN, { macAddresses: ['aa:bb:cc:dd:ee:ff'] }) },
    ],
    refused: [
      {
        name: 'none of them',
        spec: dhcpSpec(MAIN, {}),
        path: 'spec.networking',
        words: ['at least one of', 'networking.ipAddress', 'networking.interface', 'networking.macAddresses'],
      },
      { name: 'an empty MAC list', spec: dhcpSpec(MAIN, { macAddresses: [] }), path: 'spec.networking', words: ['at least one of'] },
    ],
  },
  {
    rule: '10b: serveDNS excludes dnsAddress',
    accepted: [
      { name: 'serveDNS alone', spec: dhcpSpec({ ...MAIN, serveDNS: true }) },
      { name: 'dnsAddress alone', spec: dhcpSpec({ ...MAIN, dnsAddress: '192.0.2.53' }) },
    ],
    refused: [
      {
        name: 'both',
        spec: dhcpSpec({ ...MAIN, serveDNS: true, dnsAddress: '192.0.2.53' }),
        path: 'spec.networking.dhcp.dnsAddress',
        words: ['serveDNS', 'remove dnsAddress'],
      },
    ],
  },
  {
    rule: '10c: dnsAddress and gatewayAddress are valid IPs (the gateway is not checked against the CIDR)',
    accepted: [
      { name: 'gateway outside the CIDR (upstream parity)', spec: dhcpSpec({ ...MAIN, gatewayAddress: '198.51.100.1' }) },
      { name: 'IPv6 DNS and gateway', spec: dhcpSpec({ ...MAIN6, dnsAddress: '2001:db8::53', gatewayAddress: '2001:db8::1' }, PROV6) },
    ],
    refused: [
      {
        name: 'bad DNS',
        spec: dhcpSpec({ ...MAIN, dnsAddress: 'dns.example.com' }),
        path: 'spec.networking.dhcp.dnsAddress',
        words: ['not a valid IP address'],
      },
      {
        name: 'bad gateway',
        spec: dhcpSpec({ ...MAIN, gatewayAddress: '192.0.2.1.1' }),
        path: 'spec.networking.dhcp.gatewayAddress',
        words: ['not a valid IP address'],
      },
      {
        name: 'bad IPv6 gateway',
        spec: dhcpSpec({ ...MAIN6, gatewayAddress: '2001:db8:::1' }, PROV6),
        path: 'spec.networking.dhcp.gatewayAddress',
        words: ['not a valid IP address'],
      },
    ],
  },
  {
    rule: '10d: networkCIDR, rangeBegin and rangeEnd together',
    accepted: [{ name: 'all three', spec: dhcpSpec(MAIN) }],
    refused: [
      {
        name: 'CIDR only',
        spec: dhcpSpec({ networkCIDR: '192.0.2.0/24' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['must be set together', 'set rangeBegin and rangeEnd'],
      },
      {
        name: 'no end',
        spec: dhcpSpec({ networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10' }),
        path: 'spec.networking.dhcp.rangeEnd',
        words: ['must be set together', 'set rangeEnd'],
      },
    ],
  },
  {
    rule: '10e: some DHCP range is needed',
    accepted: [{ name: 'extraRanges only', spec: extraOnly(EXTRA) }],
    refused: [
      { name: 'no range at all', spec: dhcpSpec({}), path: 'spec.networking.dhcp.networkCIDR', words: ['range is required', 'extraRanges'] },
      { name: 'empty extraRanges', spec: dhcpSpec({ extraRanges: [] }), path: 'spec.networking.dhcp.networkCIDR', words: ['range is required'] },
    ],
  },
  {
    rule: '10f: the main range lies in its CIDR, in order, around ipAddress',
    accepted: [
      { name: 'IPv4', spec: dhcpSpec(MAIN) },
      { name: 'host bits in the CIDR', spec: dhcpSpec({ ...MAIN, networkCIDR: '192.0.2.1/24' }) },
      { name: 'begin equals end', spec: dhcpSpec({ ...MAIN, rangeEnd: '192.0.2.10' }) },
      { name: 'numeric, not textual, order', spec: dhcpSpec({ ...MAIN, rangeBegin: '192.0.2.9', rangeEnd: '192.0.2.10' }) },
      { name: 'IPv6', spec: dhcpSpec(MAIN6, PROV6) },
      { name: 'IPv6 with host bits', spec: dhcpSpec({ ...MAIN6, networkCIDR: '2001:db8::1/64' }, PROV6) },
      { name: 'IPv6 numeric order', spec: dhcpSpec({ ...MAIN6, rangeBegin: '2001:db8::ffff', rangeEnd: '2001:db8::1:0' }, PROV6) },
      { name: 'no ipAddress to check', spec: dhcpSpec(MAIN, { interface: 'eth0' }) },
    ],
    refused: [
      {
        name: 'prefix too long',
        spec: dhcpSpec({ ...MAIN, networkCIDR: '192.0.2.0/33' }),
        path: 'spec.networking.dhcp.networkCIDR',
        words: ['not a valid CIDR', 'ADDRESS/PREFIX'],
      },
      { name: 'no prefix', spec: dhcpSpec({ ...MAIN, networkCIDR: '192.0.2.0' }), path: 'spec.networking.dhcp.networkCIDR', words: ['not a valid CIDR'] },
      {
        name: 'leading zero in the prefix',
        spec: dhcpSpec({ ...MAIN, networkCIDR: '192.0.2.0/024' }),
        path: 'spec.networking.dhcp.networkCIDR',
        words: ['not a valid CIDR'],
      },
      {
        name: 'IPv6 prefix too long',
        spec: dhcpSpec({ ...MAIN6, networkCIDR: '2001:db8::/129' }, PROV6),
        path: 'spec.networking.dhcp.networkCIDR',
        words: ['not a valid CIDR'],
      },
      {
        name: 'zone in a CIDR',
        spec: dhcpSpec({ ...MAIN6, networkCIDR: 'fe80::%eth0/64', rangeBegin: 'fe80::10', rangeEnd: 'fe80::20' }, { interface: 'eth0' }),
        path: 'spec.networking.dhcp.networkCIDR',
        words: ['not a valid CIDR'],
      },
      {
        name: 'begin outside',
        spec: dhcpSpec({ ...MAIN, rangeBegin: '192.0.3.10' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['192.0.3.10 is not in networking.dhcp.networkCIDR'],
      },
      {
        name: 'end outside',
        spec: dhcpSpec({ ...MAIN, rangeEnd: '192.0.3.1' }),
        path: 'spec.networking.dhcp.rangeEnd',
        words: ['is not in networking.dhcp.networkCIDR'],
      },
      { name: 'begin not an IP', spec: dhcpSpec({ ...MAIN, rangeBegin: 'first' }), path: 'spec.networking.dhcp.rangeBegin', words: ['not a valid IP address'] },
      {
        name: 'begin after end',
        spec: dhcpSpec({ ...MAIN, rangeBegin: '192.0.2.100', rangeEnd: '192.0.2.10' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['must not be after', 'rangeEnd'],
      },
      {
        name: 'numeric order .10 after .9',
        spec: dhcpSpec({ ...MAIN, rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.9' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['must not be after'],
      },
      {
        name: 'IPv6 begin after end',
        spec: dhcpSpec({ ...MAIN6, rangeBegin: '2001:db8::1:0', rangeEnd: '2001:db8::ffff' }, PROV6),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['must not be after'],
      },
      {
        name: 'IPv6 begin in an IPv4 CIDR',
        spec: dhcpSpec({ ...MAIN, rangeBegin: '2001:db8::10' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['is not in networking.dhcp.networkCIDR'],
      },
      {
        name: 'IPv4-mapped begin in an IPv4 CIDR',
        spec: dhcpSpec({ ...MAIN, rangeBegin: '::ffff:192.0.2.10' }),
        path: 'spec.networking.dhcp.rangeBegin',
        words: ['is not in'],
      },
      {
        name: 'IPv6 end outside an IPv6 CIDR',
        spec: dhcpSpec({ ...MAIN6, rangeEnd: '2001:db9::1' }, PROV6),
        path: 'spec.networking.dhcp.rangeEnd',
        words: ['is not in'],
      },
      {
        name: 'ipAddress outside',
        spec: dhcpSpec(MAIN, { interface: 'eth0', ipAddress: '198.51.100.2' }),
        path: 'spec.networking.ipAddress',
        words: ['must contain networking.ipAddress'],
      },
      {
        name: 'IPv6 ipAddress with an IPv4 CIDR',
        spec: dhcpSpec(MAIN, PROV6),
        path: 'spec.networking.ipAddress',
        words: ['must contain networking.ipAddress'],
      },
    ],
  },
  {
    rule: '10g: every extra range is a valid pool',
    accepted: [
      { name: 'IPv4 extra range', spec: extraSpec(EXTRA) },
      { name: 'IPv4 gateway inside', spec: extraSpec({ ...EXTRA, gatewayAddress: '198.51.100.1' }) },
      { name: 'IPv6 extra range', spec: extraSpec(EXTRA6) },
      { name: 'host bits allowed', spec: extraSpec({ ...EXTRA, networkCIDR: '198.51.100.77/24' }) },
    ],
    refused: [
      {
        name: 'invalid CIDR',
        spec: extraSpec({ ...EXTRA, networkCIDR: '198.51.100.0/40' }),
        path: 'spec.networking.dhcp.extraRanges[0].networkCIDR',
        words: ['not a valid CIDR'],
      },
      {
        name: 'zero prefix',
        spec: extraSpec({ ...EXTRA, networkCIDR: '0.0.0.0/0' }),
        path: 'spec.networking.dhcp.extraRanges[0].networkCIDR',
        words: ['non-zero prefix length'],
      },
      {
        name: 'zero IPv6 prefix',
        spec: extraSpec({ ...EXTRA6, networkCIDR: '::/0' }),
        path: 'spec.networking.dhcp.extraRanges[0].networkCIDR',
        words: ['non-zero prefix length'],
      },
      {
        name: 'begin outside',
        spec: extraSpec(EXTRA, { ...EXTRA, rangeBegin: '198.51.101.1' }),
        path: 'spec.networking.dhcp.extraRanges[1].rangeBegin',
        words: ['is not in networking.dhcp.extraRanges[1].networkCIDR'],
      },
      {
        name: 'IPv6 end outside',
        spec: extraSpec({ ...EXTRA6, rangeEnd: '2001:db8:2::1' }),
        path: 'spec.networking.dhcp.extraRanges[0].rangeEnd',
        words: ['is not in networking.dhcp.extraRanges[0].networkCIDR'],
      },
      {
        name: 'begin after end',
        spec: extraSpec({ ...EXTRA, rangeBegin: '198.51.100.30' }),
        path: 'spec.networking.dhcp.extraRanges[0].rangeBegin',
        words: ['must not be after'],
      },
      {
        name: 'IPv6 gateway',
        spec: extraSpec({ ...EXTRA6, gatewayAddress: '2001:db8:1::1' }),
        path: 'spec.networking.dhcp.extraRanges[0].gatewayAddress',
        words: ['IPv6 per-range gateway is not supported'],
      },
      {
        name: 'gateway outside',
        spec: extraSpec({ ...EXTRA, gatewayAddress: '192.0.2.1' }),
        path: 'spec.networking.dhcp.extraRanges[0].gatewayAddress',
        words: ['is not in networking.dhcp.extraRanges[0].networkCIDR'],
      },
      {
        name: 'gateway not an IP',
        spec: extraSpec({ ...EXTRA, gatewayAddress: 'router' }),
        path: 'spec.networking.dhcp.extraRanges[0].gatewayAddress',
        words: ['not a valid IP address'],
      },
    ],
  },
  {
    rule: '10h: DHCP pools do not overlap',
    accepted: [
      { name: 'adjacent pools in one network', spec: extraSpec({ networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.101', rangeEnd: '192.0.2.200' }) },
      { name: 'IPv4 and IPv6 pools', spec: extraSpec(EXTRA6, EXTRA) },
      { name: 'adjacent IPv6 pools', spec: extraOnly(EXTRA6, { ...EXTRA6, rangeBegin: '2001:db8:1::21', rangeEnd: '2001:db8:1::30' }) },
    ],
    refused: [
      {
        name: 'main and extra share an address',
        spec: extraSpec({ networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.100', rangeEnd: '192.0.2.200' }),
        path: 'spec.networking.dhcp.extraRanges[0]',
        words: ['DHCP pools of networking.dhcp and networking.dhcp.extraRanges[0] overlap'],
      },
      {
        name: 'an extra range inside another',
        spec: extraSpec(EXTRA, { ...EXTRA, rangeBegin: '198.51.100.12', rangeEnd: '198.51.100.15' }),
        path: 'spec.networking.dhcp.extraRanges[1]',
        words: ['DHCP pools of networking.dhcp.extraRanges[0] and networking.dhcp.extraRanges[1] overlap'],
      },
      {
        name: 'IPv6 pools',
        spec: extraOnly(EXTRA6, { ...EXTRA6, rangeBegin: '2001:db8:1::20', rangeEnd: '2001:db8:1::30' }),
        path: 'spec.networking.dhcp.extraRanges[1]',
        words: ['DHCP pools of networking.dhcp.extraRanges[0] and networking.dhcp.extraRanges[1] overlap'],
      },
      {
        name: 'one pool overlapping two',
        spec: extraOnly(
          EXTRA,
          { ...EXTRA, rangeBegin: '198.51.100.30', rangeEnd: '198.51.100.40' },
          { ...EXTRA, rangeBegin: '198.51.100.1', rangeEnd: '198.51.100.50' },
        ),
        path: 'spec.networking.dhcp.extraRanges[2]',
        paths: ['spec.networking.dhcp.extraRanges[2]', 'spec.networking.dhcp.extraRanges[2]'],
        words: ['overlap'],
      },
    ],
  },
  {
    rule: 'extraRanges need Ironic 37.0 or newer',
    accepted: [
      { name: 'default version', spec: extraSpec(EXTRA) },
      { name: '37.0', spec: { ...extraSpec(EXTRA), version: '37.0' } },
      { name: 'latest', spec: { ...extraSpec(EXTRA), version: 'latest' } },
      { name: '35.0 without extraRanges', spec: { ...dhcpSpec(MAIN), version: '35.0' } },
    ],
    refused: [
      {
        name: '35.0',
        spec: { ...extraSpec(EXTRA), version: '35.0' },
        path: 'spec.networking.dhcp.extraRanges',
        words: ['requires Ironic 37.0 or newer', '35.0'],
      },
    ],
  },
  {
    rule: '11: the deprecated ipAddressManager keepalived',
    accepted: [
      { name: 'with ipAddress and interface', spec: { networking: { ...PROV, ipAddressManager: 'keepalived' } } },
      { name: 'empty manager', spec: { networking: { ipAddressManager: '' } } },
    ],
    refused: [
      {
        name: 'no interface',
        spec: { networking: { ipAddress: '192.0.2.2', ipAddressManager: 'keepalived' } },
        path: 'spec.networking.interface',
        words: ['keepalived requires both', 'set interface'],
      },
    ],
  },
  {
    rule: '12: keepalived',
    accepted: [
      { name: 'enabled with ipAddress and interface', spec: { networking: { ...PROV, keepalived: { enabled: true } } } },
      {
        name: 'additional VIPs, IPv4 and IPv6',
        spec: {
          networking: {
            ...PROV,
            keepalived: {
              enabled: true,
              additionalVIPs: [
                { ipAddress: '192.0.2.3', interface: 'eth1' },
                { ipAddress: '2001:db8::3', interface: 'eth1', prefix: 64 },
              ],
            },
          },
        },
      },
      { name: 'disabled needs nothing', spec: { networking: { keepalived: { enabled: false } } } },
    ],
    refused: [
      {
        name: 'with ipAddressManager',
        spec: { networking: { ...PROV, ipAddressManager: 'keepalived', keepalived: { enabled: true } } },
        path: 'spec.networking.ipAddressManager',
        words: ['cannot be used together', 'remove ipAddressManager'],
      },
      {
        name: 'no ipAddress',
        spec: { networking: { interface: 'eth0', keepalived: { enabled: true } } },
        path: 'spec.networking.ipAddress',
        words: ['keepalived requires both', 'set ipAddress'],
      },
      {
        name: 'VIP with a bad address',
        spec: { networking: { ...PROV, keepalived: { enabled: true, additionalVIPs: [{ ipAddress: '2001:db8::g', interface: 'eth1' }] } } },
        path: 'spec.networking.keepalived.additionalVIPs[0].ipAddress',
        words: ['not a valid IP address'],
      },
      {
        name: 'VIP with a blank address',
        spec: { networking: { ...PROV, keepalived: { enabled: true, additionalVIPs: [{ ipAddress: ' ', interface: 'eth1' }] } } },
        path: 'spec.networking.keepalived.additionalVIPs[0].ipAddress',
        words: ['ipAddress is required'],
      },
      {
        name: 'VIP with a blank interface',
        spec: { networking: { ...PROV, keepalived: { enabled: true, additionalVIPs: [{ ipAddress: '192.0.2.3', interface: ' ' }] } } },
        path: 'spec.networking.keepalived.additionalVIPs[0].interface',
        words: ['interface is required'],
      },
    ],
  },
  {
    rule: '13: high availability needs the ServiceMonitor disabled',
    accepted: [
      { name: 'disabled ServiceMonitor', spec: exporter({ enabled: true, disableServiceMonitor: true }, HA) },
      { name: 'no exporter', spec: HA },
    ],
    refused: [
      {
        name: 'enabled exporter',
        spec: exporter({ enabled: true }, HA),
        path: 'spec.prometheusExporter.disableServiceMonitor',
        words: ['ServiceMonitor', 'high availability'],
      },
      {
        name: 'even a disabled exporter',
        spec: exporter({ enabled: false }, HA),
        path: 'spec.prometheusExporter.disableServiceMonitor',
        words: ['ServiceMonitor'],
      },
    ],
  },
  {
    rule: '14: bindAddress is an IP',
    accepted: [
      { name: 'IPv4', spec: exporter({ enabled: true, bindAddress: '0.0.0.0' }) },
      { name: 'IPv6 any', spec: exporter({ enabled: true, bindAddress: '::' }) },
    ],
    refused: [
      {
        name: 'host name',
        spec: exporter({ enabled: true, bindAddress: 'localhost' }),
        path: 'spec.prometheusExporter.bindAddress',
        words: ['not a valid IP address'],
      },
      {
        name: 'IPv6 zone',
        spec: exporter({ enabled: true, bindAddress: 'fe80::1%eth0' }),
        path: 'spec.prometheusExporter.bindAddress',
        words: ['not a valid IP address'],
      },
    ],
  },
  {
    rule: '15: no loopback bindAddress with a ServiceMonitor',
    accepted: [
      { name: 'loopback without ServiceMonitor', spec: exporter({ enabled: true, disableServiceMonitor: true, bindAddress: '127.0.0.1' }) },
      { name: 'loopback with the exporter off', spec: exporter({ enabled: false, bindAddress: '::1' }) },
    ],
    refused: [
      {
        name: '127.0.0.1',
        spec: exporter({ enabled: true, bindAddress: '127.0.0.1' }),
        path: 'spec.prometheusExporter.bindAddress',
        words: ['loopback', 'disableServiceMonitor'],
      },
      { name: '127.1.2.3', spec: exporter({ enabled: true, bindAddress: '127.1.2.3' }), path: 'spec.prometheusExporter.bindAddress', words: ['loopback'] },
      { name: '::1', spec: exporter({ enabled: true, bindAddress: '::1' }), path: 'spec.prometheusExporter.bindAddress', words: ['loopback'] },
      {
        name: 'IPv4-mapped loopback',
        spec: exporter({ enabled: true, bindAddress: '::ffff:127.0.0.1' }),
        path: 'spec.prometheusExporter.bindAddress',
        words: ['loopback'],
      },
    ],
  },
  {
    rule: 'beyond upstream: a sensor interval below 120 s is refused by the CRD only (the hook raises it: stored values from the former default of 60 must keep working)',
    accepted: [
      { name: 'the minimum', spec: exporter({ enabled: true, sensorCollectionInterval: 120 }) },
      { name: 'the default', spec: exporter({ enabled: true }) },
      { name: "upstream's and the former default 60", spec: exporter({ enabled: true, sensorCollectionInterval: 60 }) },
      { name: 'zero', spec: exporter({ enabled: false, sensorCollectionInterval: 0 }) },
    ],
    refused: [],
  },
  {
    rule: 'beyond upstream: resources by container name, quantities, requests within limits',
    accepted: [
      {
        name: 'requests and limits',
        spec: { resources: { ironic: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '2Gi' } }, 'database-upgrade': { limits: { cpu: 2 } } } },
      },
      { name: 'a request equal to its limit', spec: { resources: { httpd: { requests: { memory: '1024Mi' }, limits: { memory: '1Gi' } } } } },
      { name: 'a limit below the default request, without a request', spec: { resources: { ironic: { limits: { memory: '100Mi' } } } } },
      { name: 'an empty entry', spec: { resources: { keepalived: {} } } },
    ],
    refused: [
      {
        name: 'an unknown container',
        spec: { resources: { ironic: {}, sidecar: { requests: { cpu: '1' } } } },
        path: 'spec.resources.sidecar',
        words: ['"sidecar" is not a container of Ironic', 'ironic, httpd'],
      },
      {
        name: 'a request above its limit',
        spec: { resources: { dnsmasq: { requests: { cpu: '2' }, limits: { cpu: '1500m' } } } },
        path: 'spec.resources.dnsmasq.requests.cpu',
        words: ['"cpu" request "2" is more than its limit "1500m"'],
      },
      {
        name: 'a container name with a dash',
        spec: { resources: { 'ramdisk-logs': { requests: { memory: '1Gi' }, limits: { memory: '1Mi' } } } },
        path: 'spec.resources["ramdisk-logs"].requests.memory',
        words: ['more than its limit'],
      },
      {
        name: 'a quantity that does not parse',
        spec: { resources: { ironic: { requests: { memory: '1e999' } } } },
        path: 'spec.resources.ironic.requests.memory',
        words: ['not a Kubernetes quantity'],
      },
      { name: 'a negative limit', spec: { resources: { ironic: { limits: { cpu: '-1' } } } }, path: 'spec.resources.ironic.limits.cpu', words: ['negative'] },
      {
        name: 'not a quantity at all',
        spec: { resources: { ironic: { requests: { cpu: 'lots' } } } },
        path: 'spec.resources.ironic.requests.cpu',
        words: ['not a Kubernetes quantity'],
      },
    ],
  },
  {
    rule: 'beyond upstream: proxy URLs and noProxy entries',
    accepted: [
      {
        name: 'both proxies and noProxy',
        spec: {
          proxy: {
            httpProxy: 'http://proxy.example.com:3128',
            httpsProxy: 'HTTPS://proxy.example.com/',
            noProxy: ' .example.com, 192.0.2.0/24,*,[fd00::1],, ',
          },
        },
      },
      { name: 'an @ in the path is not a user name', spec: { proxy: { httpProxy: 'http://proxy.example.com/a@b' } } },
      { name: 'empty fields', spec: { proxy: { httpProxy: '', noProxy: '' } } },
    ],
    refused: [
      {
        name: 'another scheme',
        spec: { proxy: { httpProxy: 'socks5://proxy:1080' } },
        path: 'spec.proxy.httpProxy',
        words: ['not a proxy URL', 'http://host:port'],
      },
      {
        name: 'a user name and password',
        spec: { proxy: { httpsProxy: 'HTTPS://user:s3cret@proxy.example.com/' } },
        path: 'spec.proxy.httpsProxy',
        words: ['httpsProxy has a user name or password, which is not supported', 'pod specs', 'forwarding proxy'],
      },
      { name: 'a user name only', spec: { proxy: { httpProxy: 'http://user@proxy:3128' } }, path: 'spec.proxy.httpProxy', words: ['user name or password'] },
      { name: 'no host', spec: { proxy: { httpsProxy: 'http:///x' } }, path: 'spec.proxy.httpsProxy', words: ['not a proxy URL'] },
      { name: 'a space after it', spec: { proxy: { httpsProxy: 'http://proxy ' } }, path: 'spec.proxy.httpsProxy', words: ['not a proxy URL'] },
      {
        name: 'a noProxy entry with a space',
        spec: { proxy: { noProxy: 'a.example.com b.example.com' } },
        path: 'spec.proxy.noProxy',
        words: ['"a.example.com b.example.com" is not a host name', 'commas'],
      },
    ],
  },
  {
    rule: "beyond upstream (its pull request 686): keepalived's VRRP router ID and password",
    accepted: [
      { name: 'both', spec: { networking: { ...PROV, keepalived: { enabled: true, vrid: 255, passwordRef: { name: 'vrrp' } } } } },
      { name: 'the lowest ID', spec: { networking: { ...PROV, keepalived: { enabled: true, vrid: 1 } } } },
    ],
    refused: [
      {
        name: 'ID 0',
        spec: { networking: { ...PROV, keepalived: { enabled: true, vrid: 0 } } },
        path: 'spec.networking.keepalived.vrid',
        words: ['too small', 'from 1 to 255'],
      },
      {
        name: 'ID 256',
        spec: { networking: { ...PROV, keepalived: { enabled: true, vrid: 256 } } },
        path: 'spec.networking.keepalived.vrid',
        words: ['too large', '255'],
      },
      {
        name: 'a password without a name',
        spec: { networking: { ...PROV, keepalived: { enabled: true, passwordRef: {} } } },
        path: 'spec.networking.keepalived.passwordRef.name',
        words: ['required'],
      },
      {
        name: 'settings of a disabled keepalived',
        spec: { networking: { ...PROV, keepalived: { enabled: false, vrid: 7 } } },
        path: 'spec.networking.keepalived.enabled',
        words: ['keepalived, which is disabled'],
      },
    ],
  },
  {
    rule: '16 is dropped: high availability needs no feature gate',
    accepted: [{ name: 'HA with a database', spec: { ...HA, networking: { interface: 'eth0' } } }],
    refused: [],
  },
  {
    rule: '17: insecureRPC: true needs high availability',
    accepted: [
      { name: 'false without HA (upstream refuses it)', spec: { tls: { insecureRPC: false } } },
      { name: 'true with HA', spec: { ...HA, tls: { insecureRPC: true } } },
    ],
    refused: [{ name: 'true without HA', spec: { tls: { insecureRPC: true } }, path: 'spec.tls.insecureRPC', words: ['insecureRPC', 'highAvailability'] }],
  },
  {
    rule: 'certificateName with generateCertificate names the Secret the CA is published into',
    accepted: [
      { name: 'generated', spec: { tls: { generateCertificate: true } } },
      { name: 'generated, with an empty certificateName', spec: { tls: { generateCertificate: true, certificateName: '' } } },
      { name: 'a Secret, generateCertificate false', spec: { tls: { generateCertificate: false, certificateName: 'tls' } } },
      { name: 'both: the CA is published into the Secret', spec: { tls: { generateCertificate: true, certificateName: 'tls' } } },
    ],
    refused: [],
  },
  {
    rule: 'a cert-manager issuer: named, and the only source of certificates',
    accepted: [
      { name: 'an Issuer', spec: { tls: { issuerRef: { name: 'ca' } } } },
      { name: 'with certificateName: the CA is published into it', spec: { tls: { issuerRef: { name: 'ca' }, certificateName: 'tls' } } },
      {
        name: 'a ClusterIssuer with an empty certificateName',
        spec: { tls: { issuerRef: { name: 'ca', kind: 'ClusterIssuer', group: 'cert-manager.io' }, certificateName: '' } },
      },
      { name: 'an external issuer with its group', spec: { tls: { issuerRef: { name: 'ca', kind: 'VaultIssuer', group: 'vault.example.com' } } } },
    ],
    refused: [
      {
        name: 'with generateCertificate',
        spec: { tls: { issuerRef: { name: 'ca' }, generateCertificate: true } },
        path: 'spec.tls.issuerRef',
        words: ['generateCertificate'],
      },
      { name: 'a blank name', spec: { tls: { issuerRef: { name: ' ' } } }, path: 'spec.tls.issuerRef.name', words: ['issuerRef.name', 'Issuer'] },
      {
        name: 'an external kind without its group',
        spec: { tls: { issuerRef: { name: 'ca', kind: 'VaultIssuer' } } },
        path: 'spec.tls.issuerRef.kind',
        words: ['VaultIssuer', 'Issuer and ClusterIssuer', 'tls.issuerRef.group'],
      },
      {
        name: 'an external kind in the group cert-manager.io',
        spec: { tls: { issuerRef: { name: 'ca', kind: 'VaultIssuer', group: 'cert-manager.io' } } },
        path: 'spec.tls.issuerRef.kind',
        words: ['VaultIssuer'],
      },
    ],
  },
  {
    rule: 'addresses that go into a generated or issued certificate have no IPv6 zone',
    accepted: [
      {
        name: 'a zone with a certificate Secret (the user makes the certificate)',
        spec: { networking: { ipAddress: 'fe80::2%eth1' }, tls: { certificateName: 'tls' } },
      },
      { name: 'a zone without TLS', spec: { networking: { externalIP: 'fe80::3%eth0' } } },
      { name: 'no zone, generated', spec: { networking: { ipAddress: 'FD00:0::2', externalIP: '192.0.2.9' }, tls: { generateCertificate: true } } },
    ],
    refused: [
      {
        name: 'ipAddress, generated',
        spec: { networking: { ipAddress: 'fe80::2%eth1' }, tls: { generateCertificate: true } },
        path: 'spec.networking.ipAddress',
        words: ['networking.ipAddress', 'zone', 'tls.generateCertificate', 'remove the zone'],
      },
      {
        name: 'externalIP, issued',
        spec: { networking: { externalIP: 'fe80::3%eth0' }, tls: { issuerRef: { name: 'ca' } } },
        path: 'spec.networking.externalIP',
        words: ['networking.externalIP', 'zone', 'tls.issuerRef'],
      },
    ],
  },
  {
    rule: 'iPXE over TLS: a certificate, DHCP, an IPv4 provisioning address and Ironic 37.0',
    accepted: [
      { name: 'generated certificates', spec: { networking: IPXE_NETWORK, tls: { generateCertificate: true, ipxe: true } } },
      { name: 'a Secret on 37.0', spec: { version: '37.0', networking: IPXE_NETWORK, tls: { certificateName: 'tls', ipxe: true } } },
      { name: 'a cert-manager issuer on latest', spec: { version: 'latest', networking: IPXE_NETWORK, tls: { issuerRef: { name: 'ca' }, ipxe: true } } },
      { name: 'false needs nothing', spec: { tls: { ipxe: false } } },
    ],
    refused: [
      {
        name: 'no certificate',
        spec: { networking: IPXE_NETWORK, tls: { ipxe: true } },
        path: 'spec.tls.ipxe',
        words: ['needs a certificate', 'generateCertificate', 'issuerRef'],
      },
      {
        name: 'an empty certificateName',
        spec: { networking: IPXE_NETWORK, tls: { certificateName: '', ipxe: true } },
        path: 'spec.tls.ipxe',
        words: ['needs a certificate'],
      },
      {
        name: 'no DHCP',
        spec: { networking: { ipAddress: '192.0.2.2' }, tls: { generateCertificate: true, ipxe: true } },
        path: 'spec.tls.ipxe',
        words: ['needs networking.dhcp', 'dnsmasq'],
      },
      {
        name: 'no ipAddress',
        spec: { networking: { ...IPXE_NETWORK, ipAddress: '', interface: 'eth1' }, tls: { generateCertificate: true, ipxe: true } },
        path: 'spec.tls.ipxe',
        words: ['needs networking.ipAddress', 'boot.ipxe'],
      },
      {
        name: 'an IPv6 ipAddress',
        spec: {
          networking: { ipAddress: 'fd00::2', dhcp: { networkCIDR: 'fd00::/64', rangeBegin: 'fd00::10', rangeEnd: 'fd00::20' } },
          tls: { generateCertificate: true, ipxe: true },
        },
        path: 'spec.tls.ipxe',
        words: ['IPv4', 'ipxe_config.template'],
      },
      {
        name: 'Ironic 35.0',
        spec: { version: '35.0', networking: IPXE_NETWORK, tls: { generateCertificate: true, ipxe: true } },
        path: 'spec.tls.ipxe',
        words: ['37.0 or newer', '"35.0"'],
      },
    ],
  },
  {
    rule: '18: CA references',
    accepted: [
      { name: 'bmcCA alone', spec: { tls: { bmcCA: { name: 'bmc-ca', kind: 'ConfigMap' } } } },
      { name: 'matching bmcCA and bmcCAName', spec: { tls: { bmcCA: { name: 'bmc-ca', kind: 'Secret' }, bmcCAName: 'bmc-ca' } } },
      { name: 'matching trustedCA and trustedCAName', spec: { tls: { trustedCA: { name: 'ca', kind: 'ConfigMap', key: 'ca.crt' }, trustedCAName: 'ca' } } },
      { name: 'legacy names alone', spec: { tls: { bmcCAName: 'bmc-ca', trustedCAName: 'ca' } } },
      {
        name: 'empty legacy names are unset',
        spec: { tls: { bmcCA: { name: 'bmc-ca', kind: 'ConfigMap' }, bmcCAName: '', trustedCA: { name: 'ca', kind: 'Secret' }, trustedCAName: '' } },
      },
    ],
    refused: [
      { name: 'blank bmcCA name', spec: { tls: { bmcCA: { name: ' ', kind: 'Secret' } } }, path: 'spec.tls.bmcCA.name', words: ['tls.bmcCA.name is required'] },
      {
        name: 'bmcCA of the wrong kind',
        spec: { tls: { bmcCA: { name: 'bmc-ca', kind: 'ConfigMap' }, bmcCAName: 'bmc-ca' } },
        path: 'spec.tls.bmcCAName',
        words: ['inconsistent', 'use tls.bmcCA only'],
      },
      {
        name: 'bmcCA with another name',
        spec: { tls: { bmcCA: { name: 'a', kind: 'Secret' }, bmcCAName: 'b' } },
        path: 'spec.tls.bmcCAName',
        words: ['inconsistent'],
      },
      {
        name: 'trustedCA of the wrong kind',
        spec: { tls: { trustedCA: { name: 'ca', kind: 'Secret' }, trustedCAName: 'ca' } },
        path: 'spec.tls.trustedCAName',
        words: ['inconsistent', 'use tls.trustedCA only'],
      },
      {
        name: 'blank trustedCA name',
        spec: { tls: { trustedCA: { name: '  ', kind: 'ConfigMap' } } },
        path: 'spec.tls.trustedCA.name',
        words: ['tls.trustedCA.name is required'],
      },
      {
        name: 'a blank name does not hide the mismatch with the legacy name',
        spec: { tls: { bmcCA: { name: ' ', kind: 'Secret' }, bmcCAName: 'bmc-ca' } },
        path: 'spec.tls.bmcCAName',
        paths: ['spec.tls.bmcCA.name', 'spec.tls.bmcCAName'],
        words: ['inconsistent'],
      },
    ],
  },
  {
    rule: '19: version is supported',
    accepted: [
      { name: '38.0', spec: { version: '38.0' } },
      { name: '35.0', spec: { version: '35.0' } },
      { name: 'latest', spec: { version: 'latest' } },
      { name: 'absent version defaults', spec: { networking: {} } },
    ],
    refused: [
      { name: 'major 0', spec: { version: '0.1' }, path: 'spec.version', words: ['invalid major version', '38.0'] },
      { name: 'never supported', spec: { version: '36.0' }, path: 'spec.version', words: ['36.0', 'not supported', 'latest, 38.0, 37.0, 35.0'] },
      { name: 'dropped', spec: { version: '34.0' }, path: 'spec.version', words: ['not supported'] },
      { name: 'leading zero', spec: { version: '038.0' }, path: 'spec.version', words: ['not supported'] },
    ],
  },
  {
    rule: '20: agent images',
    accepted: [
      { name: 'file', spec: agentImages(image('file:///shared/ipa.kernel', 'file:///shared/ipa.initramfs')) },
      { name: 'http and https', spec: agentImages(image('http://images.example.com/ipa.kernel', 'https://images.example.com/ipa.initramfs')) },
      { name: 'oci', spec: agentImages(image('oci://quay.io/metal3-io/ipa:kernel', 'oci://quay.io/metal3-io/ipa:initramfs')) },
      {
        name: 'one per architecture',
        spec: agentImages(image('https://a/k'), image('https://a/k', 'https://a/i', 'x86_64'), image('https://a/k', 'https://a/i', 'aarch64')),
      },
    ],
    refused: [
      {
        name: 'file with a host',
        spec: agentImages(image('file://server/ipa.kernel')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['file URL must use an absolute path', 'file:///'],
      },
      {
        name: 'relative file',
        spec: agentImages(image('https://a/k', 'file:ipa.initramfs')),
        path: 'spec.overrides.agentImages[0].initramfs',
        words: ['absolute path'],
      },
      {
        name: 'http without a host',
        spec: agentImages(image('http:/ipa.kernel')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['http URL must include a host'],
      },
      {
        name: 'http with an empty host (the WHATWG parser would take the path as host)',
        spec: agentImages(image('http:///path')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['http URL must include a host'],
      },
      {
        name: 'https with an empty host',
        spec: agentImages(image('https://a/k', 'https:///x')),
        path: 'spec.overrides.agentImages[0].initramfs',
        words: ['https URL must include a host'],
      },
      {
        name: 'spaces around a URL (the API server refuses them too: a leading one by its uri format)',
        spec: agentImages(image(' https://a/k ')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['" https://a/k " has spaces around it: remove them'],
      },
      {
        name: 'a trailing space (the uri format takes it, a CEL rule of the CRD refuses it)',
        spec: agentImages(image('https://a/k ')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['the kernel URL has spaces around it: remove them'],
      },
      {
        name: 'oci without a host',
        spec: agentImages(image('oci:ipa')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['oci URL must include a registry host'],
      },
      {
        name: 'ftp',
        spec: agentImages(image('ftp://a/ipa.kernel')),
        path: 'spec.overrides.agentImages[0].kernel',
        words: ['unsupported protocol "ftp"', 'oci://'],
      },
      {
        name: 'two default entries',
        spec: agentImages(image('https://a/k'), image('https://b/k', 'https://b/i', '')),
        path: 'spec.overrides.agentImages[1].architecture',
        words: ['duplicate default (empty architecture) entry'],
      },
      {
        name: 'two x86_64 entries',
        spec: agentImages(image('https://a/k', 'https://a/i', 'x86_64'), image('https://b/k', 'https://b/i', 'x86_64')),
        path: 'spec.overrides.agentImages[1].architecture',
        words: ['duplicate architecture "x86_64"'],
      },
    ],
  },
  {
    rule: '21: provider networks of the networking service',
    accepted: [
      { name: 'access mode', spec: providers({ type: 'idle', nativeVLAN: 10 }) },
      {
        name: 'trunk with VLANs and a range',
        spec: providers({ type: 'provisioning', mode: 'trunk', nativeVLAN: 10, allowedVLANs: ['100', '200-300', '1', '4094'] }),
      },
      { name: 'hybrid', spec: providers({ type: 'cleaning', mode: 'hybrid', nativeVLAN: 10, allowedVLANs: ['20'] }) },
      {
        name: 'service disabled: not checked',
        spec: {
          networkingService: {
            enabled: false,
            providerNetworks: [
              { type: 'idle', nativeVLAN: 1, allowedVLANs: ['5'] },
              { type: 'idle', nativeVLAN: 2 },
            ],
          },
        },
      },
    ],
    refused: [
      {
        name: 'duplicate type',
        spec: providers({ type: 'idle', nativeVLAN: 10 }, { type: 'idle', nativeVLAN: 11 }),
        path: 'spec.networkingService.providerNetworks[1].type',
        words: ['duplicate provider network type "idle"'],
      },
      {
        name: 'VLANs in access mode',
        spec: providers({ type: 'idle', mode: 'access', nativeVLAN: 10, allowedVLANs: ['20'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs',
        words: ['(idle)', 'cannot be set in access mode'],
      },
      {
        name: 'VLANs in the default mode',
        spec: providers({ type: 'idle', nativeVLAN: 10, allowedVLANs: ['20'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs',
        words: ['access mode'],
      },
      {
        name: 'trunk without VLANs',
        spec: providers({ type: 'inspection', mode: 'trunk', nativeVLAN: 10 }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs',
        words: ['allowedVLANs required for trunk mode'],
      },
      {
        name: 'VLAN out of range',
        spec: providers({ type: 'idle', mode: 'trunk', nativeVLAN: 10, allowedVLANs: ['20', '5000'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs[1]',
        words: ['VLAN ID 5000 is out of range (1-4094)'],
      },
      {
        name: 'VLAN 0',
        spec: providers({ type: 'idle', mode: 'hybrid', nativeVLAN: 10, allowedVLANs: ['0'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs[0]',
        words: ['out of range'],
      },
      {
        name: 'reversed range',
        spec: providers({ type: 'idle', mode: 'trunk', nativeVLAN: 10, allowedVLANs: ['500-200'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs[0]',
        words: ['invalid range "500-200"', 'start (500) must be less than end (200)'],
      },
      {
        name: 'empty range',
        spec: providers({ type: 'idle', mode: 'trunk', nativeVLAN: 10, allowedVLANs: ['200-200'] }),
        path: 'spec.networkingService.providerNetworks[0].allowedVLANs[0]',
        words: ['invalid range'],
      },
    ],
  },
  {
    rule: 'beyond upstream: bindInterface needs an address the probes can reach',
    accepted: [
      { name: 'with ipAddress', spec: { networking: { bindInterface: true, ipAddress: '192.0.2.2', interface: 'eth1' } } },
      { name: 'node IP from the downward API', spec: { networking: { bindInterface: true } } },
      { name: 'HA, node IP from the downward API', spec: { ...HA, networking: { bindInterface: true } } },
    ],
    refused: [
      {
        name: 'interface only',
        spec: { networking: { bindInterface: true, interface: 'eth1' } },
        path: 'spec.networking.bindInterface',
        words: ['needs networking.ipAddress'],
      },
      {
        name: 'MACs only',
        spec: { networking: { bindInterface: true, macAddresses: ['52:54:00:00:00:01'] } },
        path: 'spec.networking.bindInterface',
        words: ['set ipAddress'],
      },
      {
        name: 'HA with a virtual IP: each node listens on its own address',
        spec: { ...HA, networking: { ...PROV, bindInterface: true, keepalived: { enabled: true } } },
        path: 'spec.networking.bindInterface',
        words: ['bindInterface cannot be used with high availability', 'remove bindInterface'],
      },
    ],
  },
  {
    rule: 'beyond upstream: nodeSelector keys are qualified names and values label values, as the API server checks them',
    accepted: [
      { name: 'a label with an empty value', spec: { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } } },
      { name: 'no prefix, longest name and value', spec: { nodeSelector: { ['a'.repeat(63)]: 'v'.repeat(63), disk_type: 'ssd.fast-1' } } },
    ],
    refused: [
      { name: 'empty key', spec: { nodeSelector: { '': 'x' } }, path: 'spec.nodeSelector[""]', words: ['must not be empty'] },
      { name: 'two slashes', spec: { nodeSelector: { 'a/b/c': 'x' } }, path: 'spec.nodeSelector["a/b/c"]', words: ['"a/b/c"', 'more than one "/"'] },
      {
        name: 'upper-case prefix',
        spec: { nodeSelector: { 'Example.com/os': 'x' } },
        path: 'spec.nodeSelector["Example.com/os"]',
        words: ['prefix', 'DNS subdomain'],
      },
      {
        name: 'space in the name',
        spec: { nodeSelector: { 'disk type': 'x' } },
        path: 'spec.nodeSelector["disk type"]',
        words: ['"disk type"', 'must end in a name'],
      },
      {
        name: 'value with a slash',
        spec: { nodeSelector: { 'kubernetes.io/os': 'linux/amd64' } },
        path: 'spec.nodeSelector["kubernetes.io/os"]',
        words: ['"linux/amd64"', 'not a label value'],
      },
      { name: 'value too long', spec: { nodeSelector: { zone: 'z'.repeat(64) } }, path: 'spec.nodeSelector.zone', words: ['"zone"', 'not a label value'] },
    ],
  },
  {
    rule: 'beyond upstream: ports are distinct',
    accepted: [
      { name: 'defaults with TLS and the exporter', spec: { prometheusExporter: { enabled: true }, tls: { certificateName: 'tls' } } },
      { name: 'defaults in HA', spec: { highAvailability: true, databaseName: 'db', tls: { certificateName: 'tls' } } },
      { name: 'an unused port may repeat', spec: { networking: { imageServerTLSPort: 6180, ipxeTLSPort: 6180 } } },
    ],
    refused: [
      {
        name: 'API on the image port',
        spec: { networking: { apiPort: 6180 } },
        path: 'spec.networking.imageServerPort',
        words: ['already used by networking.apiPort'],
      },
      {
        name: 'RPC on the API port in HA',
        spec: { highAvailability: true, databaseName: 'db', networking: { rpcPort: 6385 } },
        path: 'spec.networking.rpcPort',
        words: ['port 6385'],
      },
      { name: 'a privileged port', spec: { networking: { imageServerPort: 80 } }, path: 'spec.networking.imageServerPort', words: ['below 1024'] },
      {
        name: 'iPXE on the API port',
        spec: { networking: { ...IPXE_NETWORK, ipxeTLSPort: 6385 }, tls: { generateCertificate: true, ipxe: true } },
        path: 'spec.networking.ipxeTLSPort',
        words: ['already used by networking.apiPort'],
      },
      {
        name: 'exporter on a Service port',
        spec: { prometheusExporter: { enabled: true }, networking: { prometheusExporterPort: 8080 } },
        path: 'spec.networking.prometheusExporterPort',
        words: ['Ironic Service'],
      },
    ],
  },
];

/** Problems of the two rules beyond upstream, left out of the upstream rule tables (they have their own). */
const BEYOND_UPSTREAM = ['spec.networkingService.enabled', 'spec.networking.bindInterface'];
const portProblem = (path: string): boolean => /^spec\.networking\.[a-zA-Z]*Port$/.test(path);
const relevant = (rule: string, problems: ReturnType<typeof validateIronic>) =>
  rule.startsWith('beyond upstream')
    ? problems
    : problems.filter((p) => !BEYOND_UPSTREAM.includes(p.path) && !(portProblem(p.path) && /already|below 1024/.test(p.message)));

const hasWords = (message: string, words: readonly string[]): boolean => words.every((w) => message.toLowerCase().includes(w.toLowerCase()));

for (const table of TABLES) {
  t.test(table.rule, async (t) => {
    for (const c of table.accepted) {
      t.same(relevant(table.rule, validateIronic(c.spec, c.old)), [], `accepts: ${c.name}`);
    }
    for (const c of table.refused) {
      const problems = relevant(table.rule, validateIronic(c.spec, c.old));
      t.same(
        problems.map((p) => p.path),
        c.paths ?? [c.path],
        `refuses at the expected paths: ${c.name}`,
      );
      const found = problems.find((p) => p.path === c.path && hasWords(p.message, c.words));
      t.ok(found, `refuses with the key words ${JSON.stringify(c.words)}: ${c.name}`, { problems });
    }
  });
}

t.test('every problem, in rule order', async (t) => {
  const spec = {
    highAvailability: true,
    networking: { ipAddress: '192.0.2.2', interface: 'eth0' },
    prometheusExporter: { enabled: true },
    tls: { bmcCA: { name: 'a', kind: 'ConfigMap' }, bmcCAName: 'b' },
    version: '36.0',
    overrides: { agentImages: [image('ftp://x/k')] },
  };
  t.same(
    validateIronic(spec).map((p) => p.path),
    [
      'spec.highAvailability',
      'spec.networking.ipAddress',
      'spec.prometheusExporter.disableServiceMonitor',
      'spec.tls.bmcCAName',
      'spec.version',
      'spec.overrides.agentImages[0].kernel',
    ],
  );
});

t.test('problems are not repeated when both keepalived forms miss the same field', async (t) => {
  const spec = { networking: { interface: 'eth0', ipAddressManager: 'keepalived', keepalived: { enabled: true } } };
  t.same(
    validateIronic(spec).map((p) => p.path),
    ['spec.networking.ipAddress', 'spec.networking.ipAddressManager'],
  );
});

t.test('schema problems are capped, with a summary', async (t) => {
  const problems = validateIronic({ networking: { macAddresses: Array.from({ length: 60 }, (_, i) => i) } });
  t.equal(problems.length, 51);
  t.equal(problems[0]?.path, 'spec.networking.macAddresses[0]');
  t.equal(problems[49]?.path, 'spec.networking.macAddresses[49]');
  t.same(problems[50], { path: 'spec', message: '10 more fields are invalid and were not listed: fix the ones above and check again' });
});

t.test('huge strings are refused quickly with short messages', async (t) => {
  const huge = 'x'.repeat(1_000_000);
  const digits = '1'.repeat(100_000);
  const specs = [
    { networking: { ipAddress: huge, externalIP: `${digits}.1.1.1` } },
    dhcpSpec({ networkCIDR: `${huge}/24`, rangeBegin: `${'1:'.repeat(100_000)}1`, rangeEnd: huge }),
    { version: `${digits}.0` },
    agentImages(image(`https://${huge}/k`, `${huge}:x`)),
    providers({ type: 'idle', mode: 'trunk', nativeVLAN: 1, allowedVLANs: [`${digits}-1`] }),
    { database: DB, databaseName: huge },
    { database: { ...DB, host: 'other.example.com' } },
  ];
  const started = Date.now();
  for (const spec of specs) {
    const problems = validateIronic(spec, { database: { host: huge, name: huge } });
    t.ok(problems.length > 0, 'refused');
    t.ok(
      problems.every((p) => p.message.length < 1000),
      'messages stay short',
      { problems: problems.map((p) => p.message.slice(0, 200)) },
    );
  }
  t.ok(Date.now() - started < 5000, 'fast');
});

// --- Property tests -----------------------------------------------------------------------------------

const isProblem = (p: unknown): p is Problem =>
  typeof p === 'object' && p !== null && 'path' in p && typeof p.path === 'string' && 'message' in p && typeof p.message === 'string';

const isProblemList = (value: unknown): value is Problem[] => Array.isArray(value) && value.every(isProblem);

const checkTotal = (spec: unknown, old?: unknown): boolean => {
  const first = validateIronic(spec, old);
  const second = validateIronic(spec, old);
  return (
    isProblemList(first) &&
    first.every((p) => p.path.startsWith('spec') && p.message.length > 0 && !p.message.includes('bug of the operator')) &&
    JSON.stringify(first) === JSON.stringify(second)
  );
};

const ipLike = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.string(),
  fc.constantFrom('', '192.0.2.1', '192.0.2.300', '2001:db8::1', 'fe80::1%eth0', '127.0.0.1', '::1', '::'),
);
const cidrLike = fc.oneof(
  fc.tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: -1, max: 130 })).map(([a, p]) => `${a}/${p}`),
  fc.string(),
  fc.constantFrom('192.0.2.0/24', '2001:db8::/64', '0.0.0.0/0'),
);
const anyValue = fc.anything({ maxDepth: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(arb, arb, anyValue);
const dhcpRange = fc.record(
  { networkCIDR: maybe(cidrLike), rangeBegin: maybe(ipLike), rangeEnd: maybe(ipLike), gatewayAddress: maybe(ipLike) },
  { requiredKeys: [] },
);
const dhcp = fc.oneof(
  fc.record(
    {
      networkCIDR: maybe(cidrLike),
      rangeBegin: maybe(ipLike),
      rangeEnd: maybe(ipLike),
      gatewayAddress: maybe(ipLike),
      dnsAddress: maybe(ipLike),
      serveDNS: maybe(fc.boolean()),
      extraRanges: maybe(fc.array(dhcpRange, { maxLength: 4 })),
    },
    { requiredKeys: [] },
  ),
  fc.object(),
);
const networking = fc.record(
  {
    ipAddress: maybe(ipLike),
    externalIP: maybe(ipLike),
    interface: maybe(fc.constantFrom('eth0', '', ' ')),
    macAddresses: maybe(fc.array(fc.string(), { maxLength: 2 })),
    disableHostNetwork: maybe(fc.boolean()),
    ipAddressManager: maybe(fc.constantFrom('', 'keepalived')),
    keepalived: maybe(
      fc.record(
        { enabled: fc.boolean(), additionalVIPs: fc.array(fc.record({ ipAddress: ipLike, interface: fc.string() }), { maxLength: 2 }) },
        { requiredKeys: ['enabled'] },
      ),
    ),
    dhcp,
    apiPort: maybe(fc.integer({ min: -1, max: 70000 })),
  },
  { requiredKeys: [] },
);
const specs = fc
  .tuple(
    fc.object(),
    fc.record(
      {
        highAvailability: maybe(fc.boolean()),
        database: maybe(fc.record({ credentialsName: fc.string(), host: fc.string(), name: fc.string() })),
        databaseName: maybe(fc.string()),
        version: maybe(fc.constantFrom('', 'latest', '35.0', '36.0', '37.0', '38.0', '0.1', '99.99')),
        networking: fc.oneof(networking, fc.object()),
        prometheusExporter: maybe(
          fc.record({ enabled: fc.boolean(), bindAddress: ipLike, disableServiceMonitor: fc.boolean() }, { requiredKeys: ['enabled'] }),
        ),
        tls: maybe(fc.record({ insecureRPC: fc.boolean(), bmcCAName: fc.string() }, { requiredKeys: [] })),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([noise, spec]) => ({ ...noise, ...spec }));

t.test('validateIronic never throws and is deterministic on anything', async (t) => {
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(fc.anything(), fc.option(fc.anything()), (spec, old) => checkTotal(spec, old ?? undefined)),
      { numRuns: 500 },
    ),
  );
});

t.test('validateIronic never throws and is deterministic on random networking specs', async (t) => {
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(specs, fc.option(specs), (spec, old) => checkTotal(spec, old ?? undefined)),
      { numRuns: 1000 },
    ),
  );
});

const BASE = 0x0a000000; // 10.0.0.0
const ipv4 = (offset: number): string => [24, 16, 8, 0].map((shift) => ((BASE + offset) >>> shift) & 0xff).join('.');
const interval = fc
  .tuple(fc.integer({ min: 0, max: 0xffffff }), fc.integer({ min: 0, max: 0xffffff }))
  .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);

t.test('pools overlap exactly when their inclusive intervals intersect', async (t) => {
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(interval, interval, ([a1, a2], [b1, b2]) => {
        const spec = dhcpSpec(
          {
            networkCIDR: '10.0.0.0/8',
            rangeBegin: ipv4(a1),
            rangeEnd: ipv4(a2),
            extraRanges: [{ networkCIDR: '10.0.0.0/8', rangeBegin: ipv4(b1), rangeEnd: ipv4(b2) }],
          },
          { interface: 'eth0' },
        );
        const overlap = Math.max(a1, b1) <= Math.min(a2, b2);
        const problems = validateIronic(spec);
        return JSON.stringify(problems.map((p) => p.path)) === JSON.stringify(overlap ? ['spec.networking.dhcp.extraRanges[0]'] : []);
      }),
      { numRuns: 500 },
    ),
  );
});

t.test('overrides the API server would refuse are refused with their field', async (t) => {
  const { validateOverrides } = await import('../../src/api/ironic/validate-overrides.js');
  const cases: readonly { scenario: string; overrides: Record<string, unknown>; path?: string; words?: string }[] = [
    {
      scenario: 'a fine sidecar',
      overrides: { containers: [{ name: 'sidecar', image: 'busybox' }], labels: { 'example.com/team': 'a-b.c' }, annotations: { note: 'any text at all' } },
    },
    {
      scenario: 'a container name with a space',
      overrides: { containers: [{ name: 'BAD NAME', image: 'busybox' }] },
      path: 'spec.overrides.containers[0].name',
      words: 'is not a valid name',
    },
    {
      scenario: 'a container without an image',
      overrides: { containers: [{ name: 'sidecar' }] },
      path: 'spec.overrides.containers[0].image',
      words: 'needs an image',
    },
    {
      scenario: 'an init container without an image',
      overrides: { initContainers: [{ name: 'init', image: ' ' }] },
      path: 'spec.overrides.initContainers[0].image',
      words: 'needs an image',
    },
    {
      scenario: 'a volume name too long',
      overrides: { volumes: [{ name: 'v'.repeat(64), emptyDir: {} }] },
      path: 'spec.overrides.volumes[0].name',
      words: 'at most 63',
    },
    { scenario: 'a bad label key', overrides: { labels: { 'bad key!': 'x' } }, path: 'spec.overrides.labels["bad key!"]', words: 'is not a valid label key' },
    {
      scenario: 'a label value of 100 characters',
      overrides: { labels: { team: 'x'.repeat(100) } },
      path: 'spec.overrides.labels["team"]',
      words: 'at most 63',
    },
    {
      scenario: 'a bad annotation prefix',
      overrides: { annotations: { 'Bad_Prefix/x': 'y' } },
      path: 'spec.overrides.annotations["Bad_Prefix/x"]',
      words: 'prefix must be a DNS subdomain',
    },
  ];
  for (const c of cases) {
    const problems = validateOverrides({ overrides: c.overrides });
    if (c.path === undefined) {
      t.same(problems, [], c.scenario);
      continue;
    }
    t.ok(
      problems.some((p) => p.path === c.path && p.message.includes(c.words ?? '')),
      `${c.scenario}: ${JSON.stringify(problems)}`,
    );
  }
});
