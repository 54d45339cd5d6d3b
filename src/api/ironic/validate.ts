/**
 * Validation of an Ironic spec: the TypeBox schema first, then the rules of the upstream webhook
 * (pkg/ironic/validation.go, ValidateIronic) in their order. Unlike upstream, every problem is reported,
 * not only the first one. Differences from upstream are marked with NOTE comments.
 */
import { imagePullSecretsProblems } from '../shared/pull-secrets.js';
import {
  CA_FIELDS,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_PORTS,
  HEARTBEATS_PER_TIMEOUT,
  IPXE_TLS_MIN_VERSION,
  NODE_ARCH_LABEL,
  DEFAULT_PROVIDER_NETWORK_MODE,
  SERVICE_PORTS,
  UNPRIVILEGED_PORT_START,
  VLAN_IDS,
  type CAField,
} from '../shared/constants.js';
import { registerFormats } from '../shared/formats.js';
import { HEARTBEAT_RATIO_REASON, IronicSpec, type AgentImages, type Networking, type ProviderNetwork } from './schema.js';
import { nodeSelectorProblems } from '../shared/labels.js';
import { proxyProblems } from '../shared/proxy.js';
import { tlsProfileProblems } from '../shared/tls-profile.js';
import { isLoopback, parseIP } from '../shared/net.js';
import { compiledCheck, describeValue, fieldPath, isRecord, problem, schemaProblems, withoutThrowing, type Problem } from '../shared/problems.js';
import { resourcesProblems } from '../validate-resources.js';
import { DHCP_PATH, dhcpRules, invalidIPMessage, ipProblems, isBlank, nonEmpty } from './validate-network.js';
import { DEFAULT_VERSION, imageTagFor, isAtLeast, parseVersion, supportedVersionsText } from '../shared/version.js';

/** What the rules need to know about the previous spec (on update). */
type Previous = { readonly database?: { readonly host: string; readonly name: string }; readonly databaseName?: string };

type RuleInput = { readonly spec: IronicSpec; readonly previous: Previous };
type Rule = (input: RuleInput) => Problem[];

const MAX_MESSAGE_QUOTE = 200;

const isHA = (spec: IronicSpec): boolean => spec.highAvailability === true;

/** keepalived holds networking.ipAddress, in either form (keepalived.enabled, or the deprecated ipAddressManager). */
const keepalivedOn = (spec: IronicSpec): boolean => spec.networking?.keepalived?.enabled === true || spec.networking?.ipAddressManager === 'keepalived';

// --- Rules 1–3: the database ----------------------------------------------------------------------

// Rule 1. NOTE: a managed IronicDatabase (databaseName) is as good as an external database here.
const haNeedsDatabase: Rule = ({ spec }) =>
  isHA(spec) && spec.database === undefined && !nonEmpty(spec.databaseName)
    ? [
        problem(
          'spec.highAvailability',
          'high availability requires a database: set spec.database (an external MariaDB) or spec.databaseName (an IronicDatabase), or set highAvailability to false',
        ),
      ]
    : [];

// NOTE: not upstream (which has no databaseName): the two ways of naming a database exclude each other.
const oneDatabase: Rule = ({ spec }) =>
  spec.database !== undefined && nonEmpty(spec.databaseName)
    ? [
        problem(
          'spec.databaseName',
          'database and databaseName cannot both be set: keep databaseName for a managed IronicDatabase, or database for an external MariaDB',
        ),
      ]
    : [];

// Rule 2. NOTE: compares host and name only (upstream compares the whole object), so credentials and the
// TLS secret may change; also covers databaseName.
const databaseUnchanged: Rule = ({ spec, previous }) => {
  const before = previous.database;
  const now = spec.database;
  const changed = before !== undefined && now !== undefined && (before.host !== now.host || before.name !== now.name);
  const renamed = nonEmpty(previous.databaseName) && nonEmpty(spec.databaseName) && previous.databaseName !== spec.databaseName;
  return [
    ...(changed
      ? [
          problem(
            'spec.database',
            `cannot change to a different database (it was host ${describeValue(before.host)}, name ${describeValue(before.name)}): the data does not move with it; restore the previous host and name, or create a new Ironic`,
          ),
        ]
      : []),
    ...(renamed
      ? [
          problem(
            'spec.databaseName',
            `cannot change to a different IronicDatabase (it was ${describeValue(previous.databaseName)}): the data does not move with it; restore the previous name, or create a new Ironic`,
          ),
        ]
      : []),
  ];
};

// NOTE: not upstream (which has no image cache): the cache replaces the per-Ironic download settings.
const imageCacheAlone: Rule = ({ spec }) => {
  if (!nonEmpty(spec.imageCacheName)) return [];
  const replaced = [
    ...(nonEmpty(spec.images?.deployRamdiskBranch) ? ['images.deployRamdiskBranch'] : []),
    ...(nonEmpty(spec.images?.deployRamdiskDownloader) ? ['images.deployRamdiskDownloader'] : []),
    ...((spec.overrides?.agentImages ?? []).length > 0 ? ['overrides.agentImages'] : []),
  ];
  return replaced.length > 0
    ? [
        problem(
          'spec.imageCacheName',
          `imageCacheName cannot be used with ${replaced.length > 1 ? `${replaced.slice(0, -1).join(', ')} and ${replaced.at(-1) ?? ''}` : (replaced[0] ?? '')}: the image cache provides IPA; set the branch and downloader on the IronicImageCache, or remove imageCacheName`,
        ),
      ]
    : [];
};

// NOTE: not upstream. With tls.ipxe, iPXE boots only over HTTPS from this Ironic's httpd
// (IRONIC_IPA_BASE_URL becomes https://<ipAddress>:<ipxeTLSPort>, inspector.ipxe included), which holds no
// IPA when a cache serves it, and the cache's URLs are cluster-internal http(s) ones iPXE cannot use there.
const imageCacheWithoutIPXETLS: Rule = ({ spec }) =>
  nonEmpty(spec.imageCacheName) && spec.tls?.ipxe === true
    ? [
        problem(
          'spec.imageCacheName',
          "imageCacheName cannot be used with tls.ipxe: iPXE over TLS loads IPA only from this Ironic's own httpd, which has no IPA when an image cache provides it; remove imageCacheName (the Ironic downloads IPA itself), or remove tls.ipxe",
        ),
      ]
    : [];

const DATABASE_FIELDS = [
  ['credentialsName', 'the name of the Secret with the username and password'],
  ['host', 'the host name or IP address of the MariaDB server'],
  ['name', 'the name of the database'],
] as const;

// Rule 3 (the schema already refuses empty strings; this catches blank ones).
const databaseFieldsSet: Rule = ({ spec }) => {
  const database = spec.database;
  if (database === undefined) return [];
  return DATABASE_FIELDS.filter(([field]) => isBlank(database[field])).map(([field, what]) =>
    problem(`spec.database.${field}`, `credentialsName, host and name are required on database, but ${field} is blank: set it to ${what}`),
  );
};

// --- Rules 4–9: host network and addresses ----------------------------------------------------------

// Rule 4: a keepalived object conflicts even when it is disabled, as upstream.
const hostNetworkConflicts = (spec: IronicSpec): string[] => {
  const n = spec.networking ?? {};
  const conflicts: readonly (readonly [string, boolean])[] = [
    ['bindInterface', n.bindInterface === true],
    ['dhcp', n.dhcp !== undefined],
    ['interface', nonEmpty(n.interface)],
    ['ipAddress', nonEmpty(n.ipAddress)],
    ['macAddresses', (n.macAddresses ?? []).length > 0],
    ['keepalived', n.keepalived !== undefined],
  ];
  return conflicts.filter(([, set]) => set).map(([name]) => `networking.${name}`);
};

const hostNetworkRule: Rule = ({ spec }) => {
  const conflicts = spec.networking?.disableHostNetwork === true ? hostNetworkConflicts(spec) : [];
  return conflicts.length === 0
    ? []
    : [
        problem(
          'spec.networking.disableHostNetwork',
          `disableHostNetwork cannot be used together with ${conflicts.join(', ')}: remove them, or set disableHostNetwork to false`,
        ),
      ];
};

// Rules 5 and 6.
const addressesValid: Rule = ({ spec }) => [
  ...ipProblems('spec.networking.ipAddress', spec.networking?.ipAddress),
  ...ipProblems('spec.networking.externalIP', spec.networking?.externalIP),
];

// Rule 7.
const externalIPAlone: Rule = ({ spec }) => {
  const n = spec.networking ?? {};
  const others = n.ingress !== undefined || nonEmpty(n.externalCallbackURL) || nonEmpty(n.imageServerExternalURL);
  return nonEmpty(n.externalIP) && others
    ? [
        problem(
          'spec.networking.externalIP',
          'externalIP cannot be set together with networking.ingress, networking.externalCallbackURL or networking.imageServerExternalURL: remove externalIP, or remove the others',
        ),
      ]
    : [];
};

// Rule 8.
const externalURLsTogether: Rule = ({ spec }) => {
  const n = spec.networking ?? {};
  const callback = nonEmpty(n.externalCallbackURL);
  if (n.ingress !== undefined || callback === nonEmpty(n.imageServerExternalURL)) return [];
  const [missing, present] = callback ? ['imageServerExternalURL', 'externalCallbackURL'] : ['externalCallbackURL', 'imageServerExternalURL'];
  return [
    problem(
      `spec.networking.${missing}`,
      `without networking.ingress, externalCallbackURL and imageServerExternalURL must be set together: set ${missing} too, or remove ${present}`,
    ),
  ];
};

// Rule 9. NOTE: with keepalived, ipAddress is the virtual IP it moves between the nodes (DHCP in HA). An IPv6
// one is refused: the image takes the newest IPv6 address of the interface as Ironic's own, which on the node
// holding it would be the virtual IP.
const haWithoutIPAddress: Rule = ({ spec }) => {
  const ip = spec.networking?.ipAddress;
  if (!isHA(spec) || !nonEmpty(ip)) return [];
  return [
    ...(keepalivedOn(spec)
      ? []
      : [
          problem(
            'spec.networking.ipAddress',
            'networking.ipAddress needs keepalived with high availability: every replica uses its own node address, and ipAddress can only be the virtual IP that keepalived moves between the nodes: enable networking.keepalived, or remove ipAddress',
          ),
        ]),
    ...(ip.includes(':')
      ? [
          problem(
            'spec.networking.ipAddress',
            `networking.ipAddress with high availability must be an IPv4 address, not ${describeValue(ip)}: with an IPv6 virtual IP, the node holding it would take it as Ironic's own address`,
          ),
        ]
      : []),
  ];
};

// Rule 9b. With high availability every node listens on an address only the node knows (its interface's),
// which nothing can probe from the pod spec; the virtual IP is not it.
const haBindInterface: Rule = ({ spec }) => {
  const n = spec.networking;
  if (!isHA(spec) || n?.bindInterface !== true || !nonEmpty(n.ipAddress)) return [];
  return [
    problem(
      'spec.networking.bindInterface',
      'bindInterface cannot be used with high availability and a virtual IP: each node would listen only on its own address of the interface, which the probes and the other nodes cannot know; remove bindInterface',
    ),
  ];
};

// Rule 10 (DHCP) lives in validate-network.ts.
/**
 * DHCP in high availability without keepalived is refused as a whole, without looking inside it: the virtual
 * IP elects the one node that serves.
 */
const dhcpRule: Rule = ({ spec }) =>
  isHA(spec) && spec.networking?.dhcp !== undefined && !keepalivedOn(spec)
    ? [
        problem(
          DHCP_PATH,
          'DHCP with high availability needs keepalived, whose virtual IP elects the one node that serves DHCP: set networking.keepalived.enabled with networking.ipAddress (the virtual IP) and networking.interface, or remove networking.dhcp, or set highAvailability to false',
        ),
      ]
    : dhcpRules(spec);

// --- Rules 11–12: keepalived ------------------------------------------------------------------------

const keepalivedAddresses = (spec: IronicSpec): Problem[] => {
  const n = spec.networking ?? {};
  const missing = [
    ['ipAddress', 'the virtual IP to hold'],
    ['interface', 'the interface that carries it'],
  ] as const;
  return missing
    .filter(([field]) => !nonEmpty(n[field]))
    .map(([field, what]) =>
      problem(`spec.networking.${field}`, `keepalived requires both networking.ipAddress and networking.interface: set ${field} to ${what}`),
    );
};

// Rule 11 (the deprecated ipAddressManager). NOTE: upstream refuses it in HA; here it moves the DHCP server's VIP.
const legacyKeepalivedRules: Rule = ({ spec }) => {
  if (spec.networking?.ipAddressManager !== 'keepalived') return [];
  return keepalivedAddresses(spec);
};

const vipProblems = (vip: { readonly ipAddress: string; readonly interface: string }, index: number): Problem[] => {
  const path = fieldPath('spec.networking.keepalived.additionalVIPs', index);
  const ip = isBlank(vip.ipAddress)
    ? [problem(`${path}.ipAddress`, 'ipAddress is required: set the virtual IP address to hold')]
    : parseIP(vip.ipAddress) === undefined
      ? [problem(`${path}.ipAddress`, invalidIPMessage(vip.ipAddress))]
      : [];
  const iface = isBlank(vip.interface) ? [problem(`${path}.interface`, 'interface is required: set the interface that carries this virtual IP')] : [];
  return [...ip, ...iface];
};

/** As upstream's VRRP change: the router ID and password only configure a keepalived that runs. */
const vrrpNeedsKeepalived = (keepalived: NonNullable<Networking['keepalived']>): Problem[] =>
  !keepalived.enabled && (keepalived.vrid !== undefined || keepalived.passwordRef !== undefined)
    ? [problem('spec.networking.keepalived.enabled', 'vrid and passwordRef configure keepalived, which is disabled: set enabled to true, or remove them')]
    : [];

/**
 * Upstream's spelling (its pull request 686) of the same two settings: `networking.keepalivedVRID` and
 * `networking.keepalivedPasswordRef`. Both spellings may be given only with the same value, and only for a
 * keepalived that runs (in either form).
 */
const upstreamVRRPRules: Rule = ({ spec }) => {
  const n = spec.networking;
  if (n === undefined || (n.keepalivedVRID === undefined && n.keepalivedPasswordRef === undefined)) return [];
  const runs = n.keepalived?.enabled === true || n.ipAddressManager === 'keepalived';
  const vrid = n.keepalived?.vrid;
  const password = n.keepalived?.passwordRef?.name;
  return [
    ...(n.keepalivedVRID !== undefined && vrid !== undefined && vrid !== n.keepalivedVRID
      ? [
          problem(
            'spec.networking.keepalivedVRID',
            `keepalivedVRID (${n.keepalivedVRID}) and keepalived.vrid (${vrid}) are one setting under two names and differ: keep one`,
          ),
        ]
      : []),
    ...(n.keepalivedPasswordRef !== undefined && password !== undefined && password !== n.keepalivedPasswordRef.name
      ? [
          problem(
            'spec.networking.keepalivedPasswordRef',
            `keepalivedPasswordRef (Secret ${n.keepalivedPasswordRef.name}) and keepalived.passwordRef (Secret ${password}) are one setting under two names and differ: keep one`,
          ),
        ]
      : []),
    ...(!runs
      ? [
          problem(
            'spec.networking',
            'keepalivedVRID and keepalivedPasswordRef configure keepalived, which does not run: set keepalived.enabled to true, or remove them',
          ),
        ]
      : []),
  ];
};

// Rule 12. NOTE: upstream refuses keepalived in HA; here it elects the node that serves DHCP.
const keepalivedRules: Rule = ({ spec }) => {
  const keepalived = spec.networking?.keepalived;
  if (keepalived !== undefined && !keepalived.enabled) return vrrpNeedsKeepalived(keepalived);
  if (keepalived?.enabled !== true) return [];
  return [
    ...(spec.networking?.ipAddressManager === 'keepalived'
      ? [
          problem(
            'spec.networking.ipAddressManager',
            'keepalived and the deprecated ipAddressManager cannot be used together: remove ipAddressManager and keep keepalived',
          ),
        ]
      : []),
    ...keepalivedAddresses(spec),
    ...(keepalived.additionalVIPs ?? []).flatMap(vipProblems),
  ];
};

// --- Rules 13–15: the Prometheus exporter -----------------------------------------------------------

// Rule 13: any exporter object counts, even a disabled one, as upstream.
const haWithoutServiceMonitor: Rule = ({ spec }) =>
  isHA(spec) && spec.prometheusExporter !== undefined && spec.prometheusExporter.disableServiceMonitor !== true
    ? [
        problem(
          'spec.prometheusExporter.disableServiceMonitor',
          'a ServiceMonitor is not supported with high availability: set prometheusExporter.disableServiceMonitor to true, or remove prometheusExporter',
        ),
      ]
    : [];

// Rules 14 and 15. Zones are refused here: upstream parses bindAddress with net.ParseIP.
const bindAddressRules: Rule = ({ spec }) => {
  const exporter = spec.prometheusExporter;
  const bind = exporter?.bindAddress;
  if (exporter === undefined || !nonEmpty(bind)) return [];
  const ip = parseIP(bind, { allowZone: false });
  if (ip === undefined) return [problem('spec.prometheusExporter.bindAddress', invalidIPMessage(bind))];
  const scraped = exporter.enabled && exporter.disableServiceMonitor !== true;
  return scraped && isLoopback(ip)
    ? [
        problem(
          'spec.prometheusExporter.bindAddress',
          `the ServiceMonitor cannot scrape the loopback bindAddress ${bind}: use 0.0.0.0 (the default) or a routable address, or set disableServiceMonitor to true`,
        ),
      ]
    : [];
};

// --- Rules 17–19: TLS and version (rule 16, the HighAvailability feature gate, is dropped: HA is supported) ---

// Rule 17. NOTE: upstream refuses any insecureRPC value without HA, false included; an explicit false is
// harmless, so only true is refused here.
const insecureRPCNeedsHA: Rule = ({ spec }) =>
  spec.tls?.insecureRPC === true && !isHA(spec)
    ? [problem('spec.tls.insecureRPC', 'insecureRPC only makes sense with highAvailability (there is no JSON-RPC between replicas otherwise): remove it')]
    : [];

/** The kinds of cert-manager's own issuers, the only ones its webhook accepts in the group cert-manager.io. */
const CERT_MANAGER_ISSUER_KINDS = ['Issuer', 'ClusterIssuer'];

// NOTE: not upstream (which has no cert-manager issuer): one source of certificates, a name, and a kind that
// cert-manager's webhook accepts for the group (validateIssuerRef: in the group cert-manager.io, which an
// empty group stands for, only Issuer and ClusterIssuer), since it refuses the Certificate otherwise.
const issuerRules: Rule = ({ spec }) => {
  const issuer = spec.tls?.issuerRef;
  if (issuer === undefined) return [];
  // certificateName is allowed: it then names the Secret the CA is published into (see parse.ts).
  const other = spec.tls?.generateCertificate === true;
  const group = issuer.group === undefined || issuer.group === '' ? 'cert-manager.io' : issuer.group;
  const foreignKind = group === 'cert-manager.io' && issuer.kind !== undefined && issuer.kind !== '' && !CERT_MANAGER_ISSUER_KINDS.includes(issuer.kind);
  return [
    ...(isBlank(issuer.name)
      ? [problem('spec.tls.issuerRef.name', 'tls.issuerRef.name is required: set the name of the cert-manager Issuer or ClusterIssuer')]
      : []),
    ...(foreignKind
      ? [
          problem(
            'spec.tls.issuerRef.kind',
            `tls.issuerRef.kind ${describeValue(issuer.kind)} is not a kind of cert-manager.io, which has only Issuer and ClusterIssuer: for an external issuer set tls.issuerRef.group to its API group (cert-manager refuses the Certificate otherwise)`,
          ),
        ]
      : []),
    ...(other ? [problem('spec.tls.issuerRef', 'issuerRef cannot be used with generateCertificate: use one source of certificates (remove one of them)')] : []),
  ];
};

// NOTE: not upstream (which has no certificates of its own). networking.ipAddress and externalIP become IP
// SANs of a generated or cert-manager certificate, and a SAN has no zone: generated, `fe80::1%eth1` would be
// an invalid 17-byte address that makes Go clients reject the whole certificate; cert-manager refuses it.
const ZONED_FIELDS = ['ipAddress', 'externalIP'] as const;
const noZoneInCertificate: Rule = ({ spec }) => {
  const source = spec.tls?.generateCertificate === true ? 'tls.generateCertificate' : spec.tls?.issuerRef !== undefined ? 'tls.issuerRef' : undefined;
  if (source === undefined) return [];
  return ZONED_FIELDS.filter((field) => (spec.networking?.[field] ?? '').includes('%')).map((field) =>
    problem(
      `spec.networking.${field}`,
      `networking.${field} cannot have an IPv6 zone (the part after %) with ${source}: the address goes into the certificate, which cannot hold a zone; remove the zone, or use an address without one`,
    ),
  );
};

/** Whether the API is served over TLS: a certificate Secret, a generated certificate or a cert-manager issuer. */
const tlsEnabled = (spec: IronicSpec): boolean =>
  nonEmpty(spec.tls?.certificateName) || spec.tls?.generateCertificate === true || spec.tls?.issuerRef !== undefined;

// NOTE: not upstream (which has no iPXE over TLS). The firmware trusts the CA of the certificate, reaches the
// nodes through this pod's dnsmasq, and chains to networking.ipAddress, which it is built with.
const ipxeCertificateRule = (spec: IronicSpec): Problem[] =>
  tlsEnabled(spec)
    ? []
    : [
        problem(
          'spec.tls.ipxe',
          'ipxe needs a certificate (iPXE is built to trust its CA): set tls.generateCertificate, tls.certificateName or tls.issuerRef, or remove ipxe',
        ),
      ];

const ipxeNetworkRule = (spec: IronicSpec): Problem[] => {
  const n = spec.networking;
  const ip = n?.ipAddress;
  return [
    ...(n?.dhcp === undefined
      ? [
          problem(
            'spec.tls.ipxe',
            "tls.ipxe needs networking.dhcp: the firmware built with the CA reaches the nodes only through this pod's dnsmasq (TFTP), which runs only with networking.dhcp and without highAvailability",
          ),
        ]
      : []),
    ...(!nonEmpty(ip)
      ? [
          problem(
            'spec.tls.ipxe',
            'tls.ipxe needs networking.ipAddress: the firmware is built to chain to https://<ipAddress>:<ipxeTLSPort>/boot.ipxe; set the provisioning IP',
          ),
        ]
      : []),
    ...(nonEmpty(ip) && ip.includes(':')
      ? [
          problem(
            'spec.tls.ipxe',
            "tls.ipxe needs an IPv4 networking.ipAddress: ironic-image's ipxe_config.template cannot turn IPv6 URLs into https ones; use an IPv4 provisioning network, or remove ipxe",
          ),
        ]
      : []),
  ];
};

const ipxeVersionRule = (spec: IronicSpec): Problem[] => {
  const version = nonEmpty(spec.version) ? spec.version : DEFAULT_VERSION;
  const { major, minor } = IPXE_TLS_MIN_VERSION;
  return !parseVersion(version).ok || isAtLeast(version, major, minor)
    ? []
    : [
        problem(
          'spec.tls.ipxe',
          `tls.ipxe requires Ironic ${major}.${minor} or newer, but the version is ${describeValue(version)}: older images fail on firmware built for one architecture; set version to ${major}.${minor} or newer, or remove ipxe`,
        ),
      ];
};

// The builder always builds the i386 BIOS firmware (gcc -m32), which it cannot on arm64: the pods get an amd64
// node affinity, which a nodeSelector for another architecture would leave without a node.
const ipxeArchRule = (spec: IronicSpec): Problem[] => {
  const arch = spec.nodeSelector?.[NODE_ARCH_LABEL];
  return arch === undefined || arch === 'amd64'
    ? []
    : [
        problem(
          fieldPath('spec.nodeSelector', NODE_ARCH_LABEL),
          `tls.ipxe runs on amd64 nodes only (the iPXE builder always builds the i386 BIOS firmware, which it cannot on other architectures), but nodeSelector asks for ${describeValue(arch)}: select amd64, remove this entry, or remove tls.ipxe`,
        ),
      ];
};

const ipxeRules: Rule = ({ spec }) =>
  spec.tls?.ipxe === true ? [...ipxeCertificateRule(spec), ...ipxeNetworkRule(spec), ...ipxeVersionRule(spec), ...ipxeArchRule(spec)] : [];

// A blank name is reported, and so is a legacy field that names something else (a blank name included).
const caProblems = (spec: IronicSpec, { ref, legacy, legacyKind }: CAField): Problem[] => {
  const reference = spec.tls?.[ref];
  if (reference === undefined) return [];
  const legacyName = spec.tls?.[legacy];
  const consistent = !nonEmpty(legacyName) || (reference.kind === legacyKind && reference.name === legacyName);
  return [
    ...(isBlank(reference.name)
      ? [problem(`spec.tls.${ref}.name`, `tls.${ref}.name is required when tls.${ref} is set: set the name of the ${reference.kind} with the CA bundle`)]
      : []),
    ...(consistent
      ? []
      : [problem(`spec.tls.${legacy}`, `tls.${ref} and tls.${legacy} are both set but inconsistent: remove the deprecated ${legacy} and use tls.${ref} only`)]),
  ];
};

// Rule 18.
const caRules: Rule = ({ spec }) => CA_FIELDS.flatMap((field) => caProblems(spec, field));

/** Shortens a message that quotes user input. */
const clip = (text: string): string => (text.length > MAX_MESSAGE_QUOTE ? `${text.slice(0, MAX_MESSAGE_QUOTE)}…` : text);

const versionHint = (): string => `use one of ${supportedVersionsText()}, or remove version to get the default ${DEFAULT_VERSION}`;

// Rule 19. An absent or empty version is fine: it defaults.
const versionRule: Rule = ({ spec }) => {
  const version = spec.version;
  if (!nonEmpty(version)) return [];
  const parsed = parseVersion(version);
  if (!parsed.ok) return [problem('spec.version', `${clip(parsed.message)}: ${versionHint()}`)];
  return imageTagFor(version) === undefined ? [problem('spec.version', `version ${describeValue(version)} is not supported: ${versionHint()}`)] : [];
};

// --- Rule 20: agent images ----------------------------------------------------------------------------

const AGENT_URL_HINT = 'use file:///path, http(s)://host/path or oci://registry/repository:tag';

const parseURL = (text: string): URL | undefined => {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
};

/** Why a kernel/initramfs URL is refused, or undefined. `rest` is the text after `scheme:`. */
const schemeProblem = (url: URL, rest: string): string | undefined => {
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'file') {
    const absolute = rest.startsWith('/') && url.host === '' && !/^\/\/[^/]/.test(rest);
    return absolute ? undefined : 'file URL must use an absolute path without a host: write it as file:///path/to/file';
  }
  // NOTE: the WHATWG parser reads `http:///path` as host `path`; upstream refuses it, and so do we.
  if (scheme === 'http' || scheme === 'https')
    return /^\/\/[^/]/.test(rest) && url.host !== '' ? undefined : `${scheme} URL must include a host: write it as ${scheme}://host/path`;
  if (scheme === 'oci') return url.host !== '' ? undefined : 'oci URL must include a registry host: write it as oci://registry/repository:tag';
  return `unsupported protocol ${describeValue(scheme)}: ${AGENT_URL_HINT}`;
};

const agentURLProblems = (path: string, field: 'kernel' | 'initramfs', value: string): Problem[] => {
  if (isBlank(value)) return [problem(path, `${field} is required: set the URL of the IPA ${field} (${AGENT_URL_HINT})`)];
  const text = value.trim();
  // The API server refuses them: a leading one by its `uri` format (the schema check, before these rules, says
  // "has spaces around it" too, schema-messages.ts), a trailing one by a CEL rule of the CRD. So does validation.
  const spaces = text !== value ? [problem(path, `the ${field} URL has spaces around it: remove them`)] : [];
  const url = parseURL(text);
  if (url === undefined) return [...spaces, problem(path, `invalid URL format ${describeValue(text)}: ${AGENT_URL_HINT}`)];
  const message = schemeProblem(url, text.slice(text.indexOf(':') + 1));
  return [...spaces, ...(message === undefined ? [] : [problem(path, message)])];
};

const agentImageProblems = (images: AgentImages, index: number): Problem[] => {
  const path = fieldPath('spec.overrides.agentImages', index);
  return [...agentURLProblems(`${path}.kernel`, 'kernel', images.kernel), ...agentURLProblems(`${path}.initramfs`, 'initramfs', images.initramfs)];
};

const duplicateArchitectures = (list: readonly AgentImages[]): Problem[] =>
  list.flatMap((images, index) => {
    const architecture = images.architecture ?? '';
    if (list.findIndex((other) => (other.architecture ?? '') === architecture) === index) return [];
    const path = `${fieldPath('spec.overrides.agentImages', index)}.architecture`;
    return architecture === ''
      ? [problem(path, 'duplicate default (empty architecture) entry: keep a single entry without an architecture')]
      : [problem(path, `duplicate architecture ${JSON.stringify(architecture)}: keep a single entry per architecture`)];
  });

// Rule 20.
const agentImageRules: Rule = ({ spec }) => {
  const list = spec.overrides?.agentImages ?? [];
  return [...list.flatMap(agentImageProblems), ...duplicateArchitectures(list)];
};

// --- Rule 21: the networking service ----------------------------------------------------------------

const VLAN_ENTRY = /^([0-9]+)(?:-([0-9]+))?$/;
const { min: MIN_VLAN, max: MAX_VLAN } = VLAN_IDS;

const vlanEntryMessage = (entry: string): string | undefined => {
  const match = VLAN_ENTRY.exec(entry);
  if (!match) return `${describeValue(entry)} is not a valid VLAN ID: use a number from ${MIN_VLAN} to ${MAX_VLAN} or a range such as 100-200`;
  const texts = [match[1], match[2]].filter((id) => id !== undefined);
  const outOfRange = texts.find((id) => Number(id) < MIN_VLAN || Number(id) > MAX_VLAN);
  if (outOfRange !== undefined) return `VLAN ID ${clip(outOfRange)} is out of range (${MIN_VLAN}-${MAX_VLAN}): use a VLAN ID from ${MIN_VLAN} to ${MAX_VLAN}`;
  const [start, end] = texts.map(Number);
  return end !== undefined && start !== undefined && start >= end
    ? `invalid range ${describeValue(entry)}: start (${start}) must be less than end (${end}); write it as low-high`
    : undefined;
};

const allowedVLANsProblems = (network: ProviderNetwork, path: string): Problem[] => {
  const mode = network.mode ?? DEFAULT_PROVIDER_NETWORK_MODE;
  const vlans = network.allowedVLANs ?? [];
  const prefix = `${path.replace(/^spec\./, '')} (${network.type})`;
  const modeProblems =
    mode === 'access' && vlans.length > 0
      ? [problem(`${path}.allowedVLANs`, `${prefix}: allowedVLANs cannot be set in access mode: remove allowedVLANs, or use mode trunk or hybrid`)]
      : mode !== 'access' && vlans.length === 0
        ? [problem(`${path}.allowedVLANs`, `${prefix}: allowedVLANs required for ${mode} mode: list the tagged VLAN IDs or ranges, for example 100 or 200-210`)]
        : [];
  const entryProblems = vlans.flatMap((entry, j) => {
    const message = vlanEntryMessage(entry);
    return message === undefined ? [] : [problem(fieldPath(`${path}.allowedVLANs`, j), `${prefix}: ${message}`)];
  });
  return [...modeProblems, ...entryProblems];
};

const providerNetworkProblems = (network: ProviderNetwork, index: number, all: readonly ProviderNetwork[]): Problem[] => {
  const path = fieldPath('spec.networkingService.providerNetworks', index);
  const duplicate = all.findIndex((other) => other.type === network.type) !== index;
  return [
    ...(duplicate ? [problem(`${path}.type`, `duplicate provider network type ${JSON.stringify(network.type)}: keep a single entry per type`)] : []),
    ...allowedVLANsProblems(network, path),
  ];
};

// Rule 21: only when the networking service is enabled.
const networkingServiceRules: Rule = ({ spec }) => {
  const service = spec.networkingService;
  if (service?.enabled !== true) return [];
  return (service.providerNetworks ?? []).flatMap(providerNetworkProblems);
};

/**
 * Beyond upstream: with bindInterface, Ironic and httpd listen on the provisioning address only, and the
 * probes must reach them there. Without networking.ipAddress that address is only known inside the image
 * when it comes from an interface or MAC addresses, so the probes could never pass.
 */
const bindInterfaceNeedsAddress: Rule = ({ spec }) => {
  const n = spec.networking;
  if (n?.bindInterface !== true || nonEmpty(n.ipAddress)) return [];
  const byInterface = nonEmpty(n.interface) || (n.macAddresses ?? []).length > 0;
  return byInterface
    ? [
        problem(
          'spec.networking.bindInterface',
          'bindInterface needs networking.ipAddress (the address to listen on and to probe): set ipAddress, or remove bindInterface',
        ),
      ]
    : [];
};

/**
 * Beyond upstream: ports must differ, or the API server refuses the pod (duplicate host ports) or the
 * Service (duplicate ports), and the apply fails on every sync.
 */
type PortField = keyof typeof DEFAULT_PORTS;
type UsedPort = readonly [PortField, number];

const portOf = (networking: Networking, field: PortField): number => networking[field] ?? DEFAULT_PORTS[field];

/** The pod's ports in use, in the order of upstream's container ports. */
const usedPorts = (spec: IronicSpec, vmedia: boolean, ipxe: boolean): UsedPort[] => {
  const n = spec.networking ?? {};
  const inUse: readonly (readonly [PortField, boolean])[] = [
    ['apiPort', true],
    ['imageServerPort', true],
    ['imageServerTLSPort', vmedia],
    ['rpcPort', isHA(spec)],
    ['prometheusExporterPort', spec.prometheusExporter?.enabled === true],
    ['ipxeTLSPort', ipxe],
  ];
  return inUse
    .filter(([, on]) => on)
    .map(([field]): UsedPort => [field, portOf(n, field)])
    .filter(([, port]) => port > 0);
};

// The containers run as an unprivileged user without capabilities: they cannot bind privileged ports.
const privilegedPortProblems = (used: readonly UsedPort[]): Problem[] =>
  used
    .filter(([, port]) => port < UNPRIVILEGED_PORT_START)
    .map(([name, port]) =>
      problem(
        `spec.networking.${name}`,
        `port ${port} is below ${UNPRIVILEGED_PORT_START}, which Ironic's unprivileged containers cannot listen on: choose a port of ${UNPRIVILEGED_PORT_START} or more`,
      ),
    );

const repeatedPortProblems = (used: readonly UsedPort[]): Problem[] =>
  used.flatMap(([name, port], i) => {
    const earlier = used.slice(0, i).find(([, other]) => other === port);
    return earlier === undefined ? [] : [problem(`spec.networking.${name}`, `port ${port} is already used by networking.${earlier[0]}: choose another port`)];
  });

// The Service exposes the API and the image server (not in HA) next to the exporter port.
const servicePortProblems = (spec: IronicSpec, tls: boolean, vmedia: boolean): Problem[] => {
  const ha = isHA(spec);
  const servicePorts: number[] = [
    tls ? SERVICE_PORTS.apiTLS : SERVICE_PORTS.api,
    ...(!ha ? [vmedia ? SERVICE_PORTS.imageServerTLS : SERVICE_PORTS.imageServer] : []),
  ];
  const metrics = portOf(spec.networking ?? {}, 'prometheusExporterPort');
  return spec.prometheusExporter?.enabled === true && servicePorts.includes(metrics)
    ? [
        problem(
          'spec.networking.prometheusExporterPort',
          `port ${metrics} is already a port of the Ironic Service (${servicePorts.join(', ')}): choose another exporter port`,
        ),
      ]
    : [];
};

const distinctPorts: Rule = ({ spec }) => {
  const tls = tlsEnabled(spec);
  const vmedia = tls && spec.tls?.disableVirtualMediaTLS !== true;
  const used = usedPorts(spec, vmedia, tls && spec.tls?.ipxe === true);
  return [...privilegedPortProblems(used), ...repeatedPortProblems(used), ...servicePortProblems(spec, tls, vmedia)];
};

const proxyRule: Rule = ({ spec }) => proxyProblems(spec.proxy);

// Beyond upstream (which has no per-container resources).
const resourcesRule: Rule = ({ spec }) => resourcesProblems(spec.resources);

// Beyond upstream: the API server refuses a pod whose nodeSelector has a key that is not a qualified name or
// a value that is not a label value, after the hook has answered; the spec is refused first, naming the entry.
const nodeSelectorRule: Rule = ({ spec }) => nodeSelectorProblems('spec.nodeSelector', spec.nodeSelector);

// Beyond upstream (no such field): the CRD's rule, for a spec that reaches the hook without the API server.
const heartbeatRule: Rule = ({ spec }) => {
  const interval = spec.conductor?.heartbeatInterval ?? DEFAULT_HEARTBEAT_INTERVAL;
  const timeout = spec.conductor?.heartbeatTimeout ?? DEFAULT_HEARTBEAT_TIMEOUT;
  return timeout < HEARTBEATS_PER_TIMEOUT * interval
    ? [
        problem(
          'spec.conductor.heartbeatTimeout',
          `heartbeatTimeout (${timeout}) must be at least ${HEARTBEATS_PER_TIMEOUT} times heartbeatInterval (${interval}): ${HEARTBEAT_RATIO_REASON}; raise heartbeatTimeout to ${HEARTBEATS_PER_TIMEOUT * interval} or lower heartbeatInterval`,
        ),
      ]
    : [];
};

/** The semantic rules, in the order of upstream's ValidateIronic. */
const RULES: readonly Rule[] = [
  ({ spec }) => imagePullSecretsProblems(spec.imagePullSecrets),
  haNeedsDatabase,
  oneDatabase,
  databaseUnchanged,
  databaseFieldsSet,
  imageCacheAlone,
  imageCacheWithoutIPXETLS,
  hostNetworkRule,
  addressesValid,
  externalIPAlone,
  externalURLsTogether,
  haWithoutIPAddress,
  haBindInterface,
  dhcpRule,
  legacyKeepalivedRules,
  keepalivedRules,
  upstreamVRRPRules,
  haWithoutServiceMonitor,
  bindAddressRules,
  insecureRPCNeedsHA,
  ({ spec }) => tlsProfileProblems(spec.tls?.profile, 'spec.tls.profile'),
  issuerRules,
  noZoneInCertificate,
  ipxeRules,
  caRules,
  versionRule,
  agentImageRules,
  networkingServiceRules,
  bindInterfaceNeedsAddress,
  distinctPorts,
  resourcesRule,
  proxyRule,
  nodeSelectorRule,
  heartbeatRule,
];

const previousOf = (old: unknown): Previous => {
  if (!isRecord(old)) return {};
  const database = old['database'];
  const databaseName = old['databaseName'];
  const host = isRecord(database) ? database['host'] : undefined;
  const name = isRecord(database) ? database['name'] : undefined;
  return {
    ...(typeof host === 'string' && typeof name === 'string' && { database: { host, name } }),
    ...(typeof databaseName === 'string' && { databaseName }),
  };
};

const dedupe = (problems: readonly Problem[]): Problem[] => {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const isIronicSpec = (value: unknown): value is IronicSpec => compiledCheck(IronicSpec).Check(value);

const validateIronicUnsafe = (spec: unknown, old: unknown): Problem[] => {
  registerFormats();
  const shapeProblems = schemaProblems(IronicSpec, spec, 'spec');
  if (shapeProblems.length > 0) return shapeProblems;
  if (!isIronicSpec(spec)) return [problem('spec', 'the spec does not match the Ironic API: compare it with `kubectl explain ironic.spec`')];
  const input = { spec, previous: previousOf(old) };
  return dedupe(RULES.flatMap((rule) => rule(input)));
};

/**
 * Validates an Ironic spec. `old` is the previous spec on update (only its database fields are read).
 * Returns every problem, schema problems alone when the shape is wrong, otherwise the rule problems in rule
 * order. Pure and total: it never throws, whatever the input.
 */
export const validateIronic = (spec: unknown, old?: unknown): Problem[] => withoutThrowing(() => validateIronicUnsafe(spec, old));
