/**
 * The `Ironic` custom resource: a superset of upstream ironic-standalone-operator's v1alpha1 API.
 *
 * Additions over upstream: `spec.databaseName` (a managed `IronicDatabase`), `spec.imageCacheName` (an
 * `IronicImageCache`), `spec.overrides.tolerations`,
 * `spec.resources`, `spec.priorityClassName`, `spec.proxy`, `spec.networking.keepalived.vrid` and `passwordRef`
 * (also under the names upstream's pull request 686 proposes: `networking.keepalivedVRID` and
 * `networking.keepalivedPasswordRef`), `spec.tls.ipxe` with `spec.networking.ipxeTLSPort` and
 * `spec.images.ipxeBuilder` (iPXE over TLS, which upstream does not support), and `status.apiCredentialsName` / `status.observedGeneration`
 * (a hook cannot write the spec back).
 */
import { ImagePullSecrets } from '../shared/pull-secrets.js';
import { TLSProfile } from '../shared/tls-profile.js';
import { Type, type Static } from '@sinclair/typebox';
import { Conditions, EmbeddedObject, ObjectMeta, ResourceReference, ResourceReferenceWithKey, StringEnum, StringMap } from '../shared/common.js';
import {
  CA_FIELDS,
  DEFAULT_EXPORTER_BIND_ADDRESS,
  DEFAULT_PORTS,
  DEFAULT_PROVIDER_NETWORK_MODE,
  DEFAULT_DEPLOY_LOGS,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_SENSOR_INTERVAL,
  DEFAULT_SHUTDOWN_TIMEOUT,
  DEPLOY_LOGS_CHOICES,
  HEARTBEATS_PER_TIMEOUT,
  HTTPD_REQUESTS,
  IPA_DOWNLOAD_REQUESTS,
  DNS_SUBDOMAIN_PATTERN,
  EXTRA_RANGES_MIN_VERSION,
  MIN_SENSOR_INTERVAL,
  SENSOR_INTERVAL_REASON,
  VRRP,
  VLAN_IDS,
  type CAField,
} from '../shared/constants.js';
import { SUPPORTED_VERSIONS } from '../shared/version.js';
import { PROXY_CREDENTIALS_RULE, PROXY_URL_RULE } from '../shared/proxy.js';
import { resourcesByContainer } from '../shared/resources.js';
import { VERSION_PATTERN, VLAN_RANGE_PATTERN } from '../shared/schema-messages.js';

/** The supported releases, for descriptions (`latest` is named separately). */
const RELEASES = SUPPORTED_VERSIONS.map((v) => v.version)
  .filter((v) => v !== 'latest')
  .join(', ');

/**
 * CEL: the string at `field` (a path under self or oldSelf) is set and not empty. The validation of
 * validate-ironic.ts, like upstream, treats an empty string as unset, and the CEL rules say the same.
 */
const celGiven = (field: string): string => `(has(${field}) && ${field} != '')`;

/** CEL: the list at `field` has at least one item. */
const celNotEmpty = (field: string): string => `(has(${field}) && size(${field}) > 0)`;

/** CEL, on networking.dhcp: each field of the main pool is set. */
const CIDR_GIVEN = celGiven('self.networkCIDR');
const BEGIN_GIVEN = celGiven('self.rangeBegin');
const END_GIVEN = celGiven('self.rangeEnd');

const EXTRA_RANGES_REQUIREMENT = `Requires Ironic ${EXTRA_RANGES_MIN_VERSION.major}.${EXTRA_RANGES_MIN_VERSION.minor} or newer.`;

const Port = (description: string, defaultValue: number) =>
  Type.Integer({ description: `${description} Defaults to ${defaultValue}.`, minimum: 1, maximum: 65535, default: defaultValue });

/** Connection to an external MariaDB database. */
export const Database = Type.Object(
  {
    credentialsName: Type.String({
      description: 'Name of a Secret with the `username` and `password` of the database user. Mounted at /auth/mariadb.',
      minLength: 1,
      maxLength: 253,
    }),
    host: Type.String({ description: 'Host name or IP address of the MariaDB server, optionally with `:port`.', minLength: 1 }),
    name: Type.String({ description: 'Name of the database (schema) that Ironic uses.', minLength: 1, maxLength: 64 }),
    tlsCertificateName: Type.Optional(
      Type.String({
        description: 'Name of a Secret whose `tls.crt` is the CA of the database server. Without it the connection is not encrypted.',
        maxLength: 253,
      }),
    ),
  },
  {
    description:
      'An external MariaDB database. Required for high availability; without any database Ironic keeps its state in SQLite and loses it on every restart.',
  },
);
export type Database = Static<typeof Database>;

export const DeployRamdisk = Type.Object(
  {
    disableDownloader: Type.Optional(
      Type.Boolean({
        description:
          'Do not run the init container that downloads the IPA ramdisk. Use it together with `overrides.agentImages` or your own images in the shared volume.',
      }),
    ),
    extraKernelParams: Type.Optional(Type.String({ description: 'Extra kernel parameters for the IPA ramdisk (IRONIC_KERNEL_PARAMS).' })),
    sshKey: Type.Optional(Type.String({ description: 'Public SSH key to authorize in the IPA ramdisk, for debugging (IRONIC_RAMDISK_SSH_KEY).' })),
  },
  { description: 'Settings of the IPA (ironic-python-agent) deploy ramdisk.' },
);

export const ExtraConfig = Type.Object(
  {
    group: Type.Optional(Type.String({ description: 'ironic.conf section. Empty means DEFAULT.' })),
    name: Type.Optional(Type.String({ description: 'Option name inside the section. Entries without a name are ignored.' })),
    value: Type.Optional(Type.String({ description: 'Option value. Entries without a value are ignored.' })),
  },
  { description: 'One ironic.conf option, passed to Ironic as the environment variable OS_<GROUP>__<NAME>.' },
);
export type ExtraConfig = Static<typeof ExtraConfig>;

export const Images = Type.Object(
  {
    deployRamdiskBranch: Type.Optional(Type.String({ description: 'Branch of IPA to download (IPA_BRANCH of the downloader), for example `stable/2025.1`.' })),
    deployRamdiskDownloader: Type.Optional(Type.String({ description: 'Image of the IPA downloader init container.' })),
    ironic: Type.Optional(Type.String({ description: 'Ironic image, used by every Ironic container and job. Overrides the image derived from `version`.' })),
    ipxeBuilder: Type.Optional(
      Type.String({
        description: 'Image of the `ipxe-builder` init container (metal3-io/utility-images ipxe-builder) that builds the iPXE firmware for tls.ipxe.',
      }),
    ),
    keepalived: Type.Optional(Type.String({ description: 'Keepalived image.' })),
  },
  { description: 'Container image overrides.' },
);

/** Why heartbeatTimeout must cover several heartbeats, for messages. */
export const HEARTBEAT_RATIO_REASON = `one late heartbeat (a slow node, a busy database) must not make the other conductors take this conductor's nodes over`;

export const Conductor = Type.Object(
  {
    heartbeatInterval: Type.Optional(
      Type.Integer({
        description: `Seconds between two heartbeats of a conductor (\`[conductor] heartbeat_interval\`). Defaults to ${DEFAULT_HEARTBEAT_INTERVAL} (not Ironic's 10).`,
        default: DEFAULT_HEARTBEAT_INTERVAL,
        minimum: 1,
        maximum: 300,
      }),
    ),
    heartbeatTimeout: Type.Optional(
      Type.Integer({
        description: `Seconds without a heartbeat after which the other conductors declare a conductor dead and take its nodes over (\`[conductor] heartbeat_timeout\`). Defaults to ${DEFAULT_HEARTBEAT_TIMEOUT} (not Ironic's 60): lower recovers sooner from a crashed node, higher survives longer database stalls without false takeovers. At least ${HEARTBEATS_PER_TIMEOUT} times heartbeatInterval.`,
        default: DEFAULT_HEARTBEAT_TIMEOUT,
        minimum: 3,
        maximum: 3600,
      }),
    ),
    shutdownTimeout: Type.Optional(
      Type.Integer({
        description: `Seconds a stopping conductor waits for the nodes it is working on before it exits (\`[conductor] graceful_shutdown_timeout\`). Defaults to ${DEFAULT_SHUTDOWN_TIMEOUT}. The pods' terminationGracePeriodSeconds is derived from it (not an upstream field).`,
        default: DEFAULT_SHUTDOWN_TIMEOUT,
        minimum: 1,
        maximum: 3600,
      }),
    ),
  },
  {
    description:
      'Conductor liveness and shutdown (not an upstream field; passed as OS_CONDUCTOR__* variables, so extraConfig still wins). See the README, section Sizing, for the trade-offs.',
    'x-kubernetes-validations': [
      {
        rule: `(has(self.heartbeatTimeout) ? self.heartbeatTimeout : ${DEFAULT_HEARTBEAT_TIMEOUT}) >= ${HEARTBEATS_PER_TIMEOUT} * (has(self.heartbeatInterval) ? self.heartbeatInterval : ${DEFAULT_HEARTBEAT_INTERVAL})`,
        message: `heartbeatTimeout must be at least ${HEARTBEATS_PER_TIMEOUT} times heartbeatInterval: ${HEARTBEAT_RATIO_REASON}`,
      },
    ],
  },
);
export type Conductor = Static<typeof Conductor>;

export const Logging = Type.Object(
  {
    debug: Type.Optional(
      Type.Boolean({
        description: 'Log at DEBUG level (`[DEFAULT] debug`). Off by default: ironic-image turns it on, which is too much at fleet scale.',
        default: false,
      }),
    ),
    deployLogs: Type.Optional(
      StringEnum(DEPLOY_LOGS_CHOICES, {
        description: `When Ironic keeps the ramdisk's logs of a deployment or cleaning (\`[agent] deploy_logs_collect\`): always, on_failure or never. Defaults to ${DEFAULT_DEPLOY_LOGS} (ironic-image sets always).`,
        default: DEFAULT_DEPLOY_LOGS,
      }),
    ),
  },
  { description: 'Logging of Ironic (not an upstream field; passed as OS_* variables, so extraConfig still wins).' },
);
export type Logging = Static<typeof Logging>;

export const Inspection = Type.Object(
  {
    collectors: Type.Optional(Type.Array(Type.String(), { description: 'IPA inspection collectors (IRONIC_IPA_COLLECTORS).', maxItems: 64 })),
    vlanInterfaces: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Interfaces (or `interface.vlan`, or `all`) whose VLANs IPA inspects (IRONIC_ENABLE_VLAN_INTERFACES).',
        maxItems: 64,
      }),
    ),
  },
  { description: 'Settings of hardware inspection.' },
);

export const DHCPRange = Type.Object(
  {
    networkCIDR: Type.String({ description: 'CIDR of the network of this pool, for example 192.0.2.0/24.', minLength: 1 }),
    rangeBegin: Type.String({ description: 'First address handed out, inside networkCIDR.', minLength: 1 }),
    rangeEnd: Type.String({ description: 'Last address handed out, inside networkCIDR.', minLength: 1 }),
    gatewayAddress: Type.Optional(Type.String({ description: 'IPv4 router announced on this pool. Without it, no router is announced on this pool.' })),
  },
  { description: `An additional DHCP pool, for example for a routed provisioning network. ${EXTRA_RANGES_REQUIREMENT}` },
);
export type DHCPRange = Static<typeof DHCPRange>;

export const DHCP = Type.Object(
  {
    dnsAddress: Type.Optional(Type.String({ description: 'DNS server announced to hosts. Cannot be used with serveDNS.' })),
    extraRanges: Type.Optional(Type.Array(DHCPRange, { description: `Additional DHCP pools. ${EXTRA_RANGES_REQUIREMENT}`, maxItems: 32 })),
    gatewayAddress: Type.Optional(Type.String({ description: 'Router announced on the main pool.' })),
    hosts: Type.Optional(Type.Array(Type.String(), { description: 'dnsmasq `dhcp-host` entries.', maxItems: 1024 })),
    ignore: Type.Optional(Type.Array(Type.String(), { description: 'dnsmasq `dhcp-ignore` tags, combined with AND.', maxItems: 64 })),
    networkCIDR: Type.Optional(Type.String({ description: 'CIDR of the provisioning network (main pool). Set together with rangeBegin and rangeEnd.' })),
    rangeBegin: Type.Optional(Type.String({ description: 'First address of the main pool.' })),
    rangeEnd: Type.Optional(Type.String({ description: 'Last address of the main pool.' })),
    serveDNS: Type.Optional(
      Type.Boolean({
        description:
          "Serve DNS on port 53 of the provisioning IP (the virtual IP with high availability) and announce it to hosts as their DNS server; dnsmasq forwards what it does not know to the pod's resolvers.",
      }),
    ),
  },
  {
    description:
      'DHCP for the provisioning network, served by dnsmasq. With high availability it needs keepalived: only the node that holds the virtual IP serves.',
    'x-kubernetes-validations': [
      {
        rule: `!(has(self.serveDNS) && self.serveDNS && ${celGiven('self.dnsAddress')})`,
        message: 'dnsAddress cannot be set together with serveDNS: remove one of them',
      },
      {
        rule: `(${CIDR_GIVEN} == ${BEGIN_GIVEN}) && (${CIDR_GIVEN} == ${END_GIVEN})`,
        message: 'networkCIDR, rangeBegin and rangeEnd must be set together',
      },
      {
        rule: [CIDR_GIVEN, BEGIN_GIVEN, END_GIVEN, celNotEmpty('self.extraRanges')].join(' || '),
        message: 'set networkCIDR, rangeBegin and rangeEnd, or at least one entry of extraRanges',
      },
    ],
  },
);
export type DHCP = Static<typeof DHCP>;

export const KeepalivedIP = Type.Object(
  {
    ipAddress: Type.String({ description: 'Virtual IP address.', minLength: 1 }),
    interface: Type.String({ description: 'Interface that carries the virtual IP.', minLength: 1 }),
    prefix: Type.Optional(
      Type.Integer({ description: 'Prefix length of the virtual IP. Defaults to a single address (/32 or /128).', minimum: 0, maximum: 128 }),
    ),
  },
  { description: 'An additional virtual IP managed by keepalived.' },
);

const vrid = (description: string) =>
  Type.Integer({
    description: `${description} Without it, the image's ${VRRP.defaultRouterID}.`,
    minimum: VRRP.minRouterID,
    maximum: VRRP.maxRouterID,
  });

const PASSWORD_DESCRIPTION = `\`password\` key is the VRRP password (PASS authentication): 1 to ${VRRP.maxPasswordLength} printable ASCII characters (VRRP keeps only ${VRRP.maxPasswordLength}), without spaces, quotes, \`#\`, \`!\`, braces or backslashes. Routers of one virtual router ID must share it.`;

export const Keepalived = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Run keepalived to hold networking.ipAddress on networking.interface.' }),
    additionalVIPs: Type.Optional(Type.Array(KeepalivedIP, { description: 'More virtual IPs to hold.', maxItems: 32 })),
    vrid: Type.Optional(vrid('VRRP virtual router ID, unique on the layer 2 network: give each Ironic sharing one a different ID.')),
    passwordRef: Type.Optional(
      Type.Object(
        { name: Type.String({ description: 'Name of the Secret, in the namespace of the Ironic.', minLength: 1, maxLength: 253 }) },
        { description: `A Secret whose ${PASSWORD_DESCRIPTION}` },
      ),
    ),
  },
  {
    description:
      'A keepalived sidecar that keeps the provisioning IP on the node running Ironic. With high availability, keepalived runs on every node and one of them holds the virtual IP; that node serves DHCP.',
    'x-kubernetes-validations': [
      { rule: 'self.enabled || (!has(self.vrid) && !has(self.passwordRef))', message: 'vrid and passwordRef require enabled to be true' },
    ],
  },
);

export const Ingress = Type.Object(
  {
    annotations: Type.Optional(StringMap('Annotations of the Ingress, for example for cert-manager.')),
    ingressClassName: Type.Optional(Type.String({ description: 'IngressClass to use.' })),
    host: Type.Optional(Type.String({ description: 'Host name of the Ingress. Its TLS certificate is read from the Secret `<name>-ingress-tls`.' })),
  },
  { description: 'Expose the API and the image server through an Ingress.' },
);

export const Networking = Type.Object(
  {
    apiPort: Type.Optional(Port('Port of the Ironic API, also used as the host port.', DEFAULT_PORTS.apiPort)),
    bindInterface: Type.Optional(Type.Boolean({ description: 'Listen only on the provisioning interface instead of on every interface.' })),
    dhcp: Type.Optional(DHCP),
    disableHostNetwork: Type.Optional(
      Type.Boolean({
        description: 'Run the pod on the cluster network instead of the host network. Only virtual media provisioning works then.',
        default: false,
      }),
    ),
    externalCallbackURL: Type.Optional(
      Type.String({ description: 'URL that the ramdisk uses to reach Ironic, when it differs from the provisioning IP.', format: 'uri' }),
    ),
    externalIP: Type.Optional(Type.String({ description: 'External IP address of Ironic, for virtual media and callbacks across a NAT.' })),
    imageServerExternalURL: Type.Optional(Type.String({ description: 'URL that BMCs use to reach the image server.', format: 'uri' })),
    imageServerPort: Type.Optional(Port('Plain HTTP port of the image server, also used as the host port.', DEFAULT_PORTS.imageServerPort)),
    imageServerTLSPort: Type.Optional(Port('HTTPS port of the virtual media image server, also used as the host port.', DEFAULT_PORTS.imageServerTLSPort)),
    ingress: Type.Optional(Ingress),
    interface: Type.Optional(Type.String({ description: 'Provisioning network interface.' })),
    ipxeTLSPort: Type.Optional(
      Port('HTTPS port that iPXE loads its scripts, the kernel and the ramdisk from with tls.ipxe, also used as the host port.', DEFAULT_PORTS.ipxeTLSPort),
    ),
    ipAddress: Type.Optional(
      Type.String({
        description:
          'Provisioning IP address of Ironic. With high availability, only with keepalived: the virtual IP of the node that serves DHCP and the iPXE chain.',
      }),
    ),
    ipAddressManager: Type.Optional(
      StringEnum(['', 'keepalived'], { description: 'Deprecated: use keepalived.enabled. `keepalived` runs keepalived for the provisioning IP.' }),
    ),
    keepalived: Type.Optional(Keepalived),
    keepalivedVRID: Type.Optional(
      vrid(
        "The VRRP virtual router ID of keepalived (keepalived.enabled or ipAddressManager keepalived), under the name upstream's pull request 686 proposes; the same as keepalived.vrid.",
      ),
    ),
    keepalivedPasswordRef: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: 'Name of the Secret, in the namespace of the Ironic.', minLength: 1, maxLength: 253 }),
          kind: Type.Optional(StringEnum(['Secret'], { description: 'Secret, the only kind (upstream writes it).' })),
        },
        {
          description: `The VRRP password of keepalived (keepalived.enabled or ipAddressManager keepalived), under the name upstream's pull request 686 proposes; the same as keepalived.passwordRef. A Secret whose ${PASSWORD_DESCRIPTION}`,
        },
      ),
    ),
    macAddresses: Type.Optional(Type.Array(Type.String(), { description: 'MAC addresses used to find the provisioning interface.', maxItems: 64 })),
    prometheusExporterPort: Type.Optional(Port('Port of the Prometheus exporter.', DEFAULT_PORTS.prometheusExporterPort)),
    rpcPort: Type.Optional(Port('Port of the JSON-RPC server used between Ironic replicas.', DEFAULT_PORTS.rpcPort)),
  },
  {
    description: 'Networking of Ironic: ports, provisioning network, DHCP, virtual IPs and external access.',
    'x-kubernetes-validations': [
      {
        rule: `!(has(self.disableHostNetwork) && self.disableHostNetwork) || !((has(self.bindInterface) && self.bindInterface) || has(self.dhcp) || ${celGiven('self.interface')} || ${celGiven('self.ipAddress')} || ${celNotEmpty('self.macAddresses')} || has(self.keepalived))`,
        message: 'disableHostNetwork cannot be used with bindInterface, dhcp, interface, ipAddress, macAddresses or keepalived',
      },
      {
        rule: `!${celGiven('self.externalIP')} || !(has(self.ingress) || has(self.externalCallbackURL) || has(self.imageServerExternalURL))`,
        message: 'externalIP cannot be set together with ingress, externalCallbackURL or imageServerExternalURL',
      },
      {
        rule: 'has(self.ingress) || has(self.externalCallbackURL) == has(self.imageServerExternalURL)',
        message: 'without ingress, externalCallbackURL and imageServerExternalURL must be set together',
      },
      {
        rule: `!has(self.dhcp) || ${celGiven('self.ipAddress')} || ${celGiven('self.interface')} || ${celNotEmpty('self.macAddresses')}`,
        message: 'DHCP needs at least one of ipAddress, interface or macAddresses',
      },
      {
        rule: `!((has(self.keepalived) && self.keepalived.enabled) || (has(self.ipAddressManager) && self.ipAddressManager == 'keepalived')) || (${celGiven('self.ipAddress')} && ${celGiven('self.interface')})`,
        message: 'keepalived requires both ipAddress and interface',
      },
      {
        rule: "!(has(self.keepalived) && self.keepalived.enabled) || !(has(self.ipAddressManager) && self.ipAddressManager == 'keepalived')",
        message: 'keepalived and the deprecated ipAddressManager cannot be used together: keep keepalived only',
      },
      {
        rule: '!has(self.keepalivedVRID) || !has(self.keepalived) || !has(self.keepalived.vrid) || self.keepalivedVRID == self.keepalived.vrid',
        message: 'keepalivedVRID and keepalived.vrid are one setting under two names and differ: keep one',
      },
      {
        rule: '!has(self.keepalivedPasswordRef) || !has(self.keepalived) || !has(self.keepalived.passwordRef) || self.keepalivedPasswordRef.name == self.keepalived.passwordRef.name',
        message: 'keepalivedPasswordRef and keepalived.passwordRef are one setting under two names and name different Secrets: keep one',
      },
      {
        rule: "!(has(self.keepalivedVRID) || has(self.keepalivedPasswordRef)) || (has(self.keepalived) && self.keepalived.enabled) || (has(self.ipAddressManager) && self.ipAddressManager == 'keepalived')",
        message: 'keepalivedVRID and keepalivedPasswordRef configure keepalived, which does not run: set keepalived.enabled to true, or remove them',
      },
    ],
  },
);
export type Networking = Static<typeof Networking>;

export const ProviderNetwork = Type.Object(
  {
    type: StringEnum(['idle', 'inspection', 'cleaning', 'rescuing', 'servicing', 'provisioning'], {
      description: 'Which provisioning step this network serves.',
    }),
    mode: Type.Optional(
      StringEnum(['access', 'trunk', 'hybrid'], {
        description: `Switch port mode. Defaults to ${DEFAULT_PROVIDER_NETWORK_MODE}.`,
        default: DEFAULT_PROVIDER_NETWORK_MODE,
      }),
    ),
    nativeVLAN: Type.Integer({ description: 'Native (untagged) VLAN.', minimum: VLAN_IDS.min, maximum: VLAN_IDS.max }),
    allowedVLANs: Type.Optional(
      Type.Array(Type.String({ pattern: VLAN_RANGE_PATTERN }), {
        description: 'Tagged VLAN IDs or ranges `a-b`, for trunk and hybrid modes.',
        maxItems: VLAN_IDS.max,
      }),
    ),
    mtu: Type.Optional(Type.Integer({ description: 'MTU of the network.', minimum: 1280, maximum: 9216 })),
  },
  { description: 'Switch configuration of one provider network.' },
);
export type ProviderNetwork = Static<typeof ProviderNetwork>;

/**
 * CEL, on networkingService: `condition` holds for every provider network `p` while the service is enabled.
 * The provider networks of a disabled service are not used, and not checked (as keepalived's settings).
 */
const eachProviderNetworkWhenEnabled = (condition: string): string =>
  `!(has(self.enabled) && self.enabled) || !has(self.providerNetworks) || self.providerNetworks.all(p, ${condition})`;

export const NetworkingService = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Run the ironic-networking service that configures top-of-rack switches.', default: false })),
    providerNetworks: Type.Optional(
      Type.Array(ProviderNetwork, {
        description: 'Provider networks, at most one per type.',
        maxItems: 6,
      }),
    ),
    switchConfigSecretName: Type.Optional(Type.String({ description: 'Secret with switch-configs.conf. Defaults to `<name>-switch-config`.' })),
    switchCredentialsSecretName: Type.Optional(Type.String({ description: 'Secret with the switch credentials. Defaults to `<name>-switch-credentials`.' })),
  },
  {
    description: 'The ironic-networking service for switch automation (experimental).',
    'x-kubernetes-validations': [
      {
        rule: eachProviderNetworkWhenEnabled("(has(p.mode) && p.mode != 'access') || !has(p.allowedVLANs) || size(p.allowedVLANs) == 0"),
        message: 'allowedVLANs cannot be set in access mode',
      },
      {
        rule: eachProviderNetworkWhenEnabled("!has(p.mode) || p.mode == 'access' || (has(p.allowedVLANs) && size(p.allowedVLANs) > 0)"),
        message: 'allowedVLANs are required in trunk and hybrid modes',
      },
    ],
  },
);

export const AgentImages = Type.Object(
  {
    kernel: Type.String({ description: 'URL of the IPA kernel: file:///, http(s):// or oci://.', format: 'uri', minLength: 1 }),
    initramfs: Type.String({ description: 'URL of the IPA initramfs: file:///, http(s):// or oci://.', format: 'uri', minLength: 1 }),
    architecture: Type.Optional(StringEnum(['', 'x86_64', 'aarch64'], { description: 'CPU architecture. Empty means the default images.' })),
  },
  {
    description: 'IPA kernel and initramfs for one architecture.',
    'x-kubernetes-validations': [
      {
        rule: "[self.kernel, self.initramfs].all(u, !u.matches('^\\\\s|\\\\s$'))",
        message: 'the kernel and initramfs URLs must not have spaces around them: remove them',
      },
      {
        // Any letter case: URL schemes are case-insensitive. Leading spaces are the rule above's to report.
        rule: "[self.kernel, self.initramfs].all(u, !u.matches('^\\\\s*[hH][tT][tT][pP][sS]?:') || u.matches('^\\\\s*[hH][tT][tT][pP][sS]?://[^/]'))",
        message: 'http and https URLs must include a host: write them as http(s)://host/path',
      },
    ],
  },
);
export type AgentImages = Static<typeof AgentImages>;

const Container = EmbeddedObject(
  { name: Type.String({ description: 'Name of the container. A built-in container of the same name is replaced.', minLength: 1 }) },
  'A Kubernetes container (core/v1 Container).',
);
const Volume = EmbeddedObject(
  { name: Type.String({ description: 'Name of the volume. A built-in volume of the same name is replaced.', minLength: 1 }) },
  'A Kubernetes volume (core/v1 Volume).',
);
const Probe = (description: string) => EmbeddedObject({}, `${description} (core/v1 Probe).`);
const Toleration = EmbeddedObject({}, 'A Kubernetes toleration (core/v1 Toleration).');

export const Overrides = Type.Object(
  {
    annotations: Type.Optional(StringMap('Annotations added to the Ironic pods. Keys set by the operator win.')),
    agentImages: Type.Optional(
      Type.Array(AgentImages, {
        description: 'Custom IPA images, at most one per architecture.',
        maxItems: 3,
        'x-kubernetes-validations': [
          {
            rule: "self.all(a, self.exists_one(b, (has(b.architecture) ? b.architecture : '') == (has(a.architecture) ? a.architecture : '')))",
            message: 'each architecture (including the default, empty one) may appear only once',
          },
        ],
      }),
    ),
    containers: Type.Optional(
      Type.Array(Container, { description: 'Containers added to the Ironic pod; one with the name of a built-in container replaces it.' }),
    ),
    httpdLivenessProbe: Type.Optional(Probe('Liveness probe of the httpd container')),
    httpdReadinessProbe: Type.Optional(Probe('Readiness probe of the httpd container')),
    initContainers: Type.Optional(
      Type.Array(Container, { description: 'Init containers added to the Ironic pod; one with the name of a built-in init container replaces it.' }),
    ),
    labels: Type.Optional(StringMap('Labels added to the Ironic pods. Keys set by the operator win.')),
    tolerations: Type.Optional(Type.Array(Toleration, { description: 'Tolerations of the Ironic pods, for example to run on control-plane nodes.' })),
    volumes: Type.Optional(Type.Array(Volume, { description: 'Volumes added to the Ironic pods; one with the name of a built-in volume replaces it.' })),
  },
  { description: 'Low-level changes to the rendered pods. Use with care: they bypass the checks of the operator.' },
);
export type Overrides = Static<typeof Overrides>;

export const PrometheusExporter = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Collect sensor data and run the Prometheus exporter.' }),
    disableServiceMonitor: Type.Optional(Type.Boolean({ description: 'Do not create a ServiceMonitor for the exporter.' })),
    bindAddress: Type.Optional(
      Type.String({ description: `Address the exporter listens on. Defaults to ${DEFAULT_EXPORTER_BIND_ADDRESS}.`, default: DEFAULT_EXPORTER_BIND_ADDRESS }),
    ),
    sensorCollectionInterval: Type.Optional(
      Type.Integer({
        description: `Seconds between two sensor data collections. Defaults to ${DEFAULT_SENSOR_INTERVAL}, at least ${MIN_SENSOR_INTERVAL}: ${SENSOR_INTERVAL_REASON}. A lower value stored before this minimum existed is run as ${MIN_SENSOR_INTERVAL}.`,
        default: DEFAULT_SENSOR_INTERVAL,
        'x-kubernetes-validations': [
          {
            // NOTE: a rule rather than `minimum`, so that the refusal says why. On the field itself, without
            // oldSelf, so that validation ratcheting (Kubernetes 1.30+) lets an unchanged stored value
            // (the former default was 60) through when other fields change; the hook raises it to the minimum.
            rule: `self >= ${MIN_SENSOR_INTERVAL}`,
            message: `sensorCollectionInterval must be at least ${MIN_SENSOR_INTERVAL}: ${SENSOR_INTERVAL_REASON}`,
          },
        ],
      }),
    ),
  },
  { description: 'Hardware sensor metrics through the Ironic Prometheus exporter.' },
);

/**
 * Default requests of every container an Ironic runs, so that none is BestEffort (the first evicted under
 * pressure); a new container adds its row here, with its feature. Sized for an idle Ironic; `spec.resources`
 * changes them per container. No default limits: Ironic converts and checksums images, and a memory limit
 * would kill it in the middle of a deployment.
 */
export const DEFAULT_CONTAINER_REQUESTS = {
  ironic: { cpu: '100m', memory: '400Mi' },
  httpd: HTTPD_REQUESTS,
  'ramdisk-logs': { cpu: '5m', memory: '16Mi' },
  dnsmasq: { cpu: '5m', memory: '16Mi' },
  keepalived: { cpu: '5m', memory: '16Mi' },
  'ironic-prometheus-exporter': { cpu: '10m', memory: '128Mi' },
  'ramdisk-downloader': IPA_DOWNLOAD_REQUESTS,
  'rpc-certificate': { cpu: '10m', memory: '64Mi' },
  'tls-certificate': { cpu: '10m', memory: '64Mi' },
  // Compiles iPXE (gcc, make) at every pod start.
  'ipxe-builder': { cpu: '100m', memory: '256Mi' },
  'database-upgrade': { cpu: '100m', memory: '256Mi' },
  'online-data-migrations': { cpu: '100m', memory: '256Mi' },
  'ironic-networking': { cpu: '50m', memory: '128Mi' },
} as const satisfies Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The names of the containers (init containers and Job containers included) `spec.resources` may set. */
export type IronicContainerName = keyof typeof DEFAULT_CONTAINER_REQUESTS;
export const IRONIC_CONTAINER_NAMES = Object.keys(DEFAULT_CONTAINER_REQUESTS) as readonly IronicContainerName[];

/** `ironic (100m, 400Mi), httpd (...)`: the containers and their default requests, for descriptions. */
const DEFAULT_REQUESTS_TEXT = IRONIC_CONTAINER_NAMES.map((name) => `${name} (${Object.values(DEFAULT_CONTAINER_REQUESTS[name]).join(', ')})`).join(', ');

export const Resources = resourcesByContainer(
  IRONIC_CONTAINER_NAMES,
  `Compute resources by container name. Every container has default requests: ${DEFAULT_REQUESTS_TEXT} (CPU, memory). A request given here replaces the default of that resource; a limit below the default request and without a request lowers the request to the limit. A container of overrides.containers with the same name keeps its own resources.`,
);

export const Proxy = Type.Object(
  {
    httpProxy: Type.Optional(
      Type.String({
        description: 'Proxy for http:// URLs (HTTP_PROXY and http_proxy), for example `http://proxy.example.com:3128`. No user name or password in it.',
        maxLength: 2048,
      }),
    ),
    httpsProxy: Type.Optional(Type.String({ description: 'Proxy for https:// URLs (HTTPS_PROXY and https_proxy).', maxLength: 2048 })),
    noProxy: Type.Optional(
      Type.String({
        description:
          'Comma-separated hosts, domains (`.example.com`), IP addresses and CIDRs reached without the proxy (NO_PROXY and no_proxy). Loopback, `.svc`, the provisioning address and the DHCP networks are added.',
        maxLength: 4096,
      }),
    ),
  },
  {
    description:
      'HTTP(S) proxy of the containers that reach out: Ironic (images, BMCs, the ramdisk), the IPA downloader and the upgrade Jobs. Each field wins over the setting of the hook server (IPA_HTTP_PROXY, IPA_HTTPS_PROXY, IPA_NO_PROXY) for the downloader.',
    'x-kubernetes-validations': [PROXY_URL_RULE, PROXY_CREDENTIALS_RULE],
  },
);
export type Proxy = Static<typeof Proxy>;

const caField = (ref: CAField['ref']): CAField => {
  const field = CA_FIELDS.find((f) => f.ref === ref);
  if (field === undefined) throw new Error(`CA_FIELDS has no entry for ${ref}`);
  return field;
};

/** The deprecated name-only field of a CA reference, whose kind is implied. */
const legacyCAName = (ref: CAField['ref'], bundle: string) => {
  const { legacyKind } = caField(ref);
  return Type.Optional(Type.String({ description: `Deprecated: use ${ref}. Name of a ${legacyKind} with the ${bundle}.` }));
};

/** CEL: a CA reference and its deprecated field, when both are set, name the same object. */
const caConsistencyRule = ({ ref, legacy, legacyKind }: CAField) => ({
  rule: `!has(self.${ref}) || !${celGiven(`self.${legacy}`)} || (self.${ref}.kind == '${legacyKind}' && self.${ref}.name == self.${legacy})`,
  message: `${ref} and ${legacy} are both set but do not match: use ${ref} only`,
});

export const TLS = Type.Object(
  {
    bmcCA: Type.Optional(Type.Object(ResourceReference.properties, { description: 'CA bundle used to verify BMC certificates.' })),
    bmcCAName: legacyCAName('bmcCA', 'BMC CA bundle'),
    certificateName: Type.Optional(
      Type.String({
        description:
          'Name of a Secret (`tls.crt`, `tls.key`, optional `ca.crt`) with the certificate of the API and of virtual media. With generateCertificate or issuerRef it is instead the Secret the operator creates and keeps with the CA to trust (`tls.crt` and `ca.crt`, no key), for clients that read only the spec such as baremetal-operator in its use-irso mode; it must not exist beforehand.',
      }),
    ),
    disableVirtualMediaTLS: Type.Optional(
      Type.Boolean({ description: 'Serve virtual media over plain HTTP even when certificateName or generateCertificate is set.' }),
    ),
    issuerRef: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: 'Name of the issuer.', minLength: 1 }),
          kind: Type.Optional(
            Type.String({
              description: 'Kind of the issuer: `Issuer` (the default, in the namespace of this Ironic), `ClusterIssuer`, or that of an external issuer.',
            }),
          ),
          group: Type.Optional(Type.String({ description: 'API group of the issuer (default `cert-manager.io`).' })),
        },
        {
          description:
            'Have cert-manager issue and renew the certificate of the API and virtual media: the operator renders a cert-manager Certificate `<name>` for every Service name, networking address and Ingress host, and uses the Secret `<name>-serving-tls` it fills. Needs cert-manager and the hook server with CERT_MANAGER=true (deploy/components/cert-manager). Cannot be used with generateCertificate; with certificateName, the CA is also published into that Secret.',
        },
      ),
    ),
    generateCertificate: Type.Optional(
      Type.Boolean({
        description:
          'Serve the API and virtual media over TLS with certificates from a private CA the operator keeps for this Ironic: each pod issues its own at start (every Service name, networking address and Ingress host, the node and provisioning addresses), renewed every 60 days; clients trust the ConfigMap `<name>-ca` (key `ca.crt`) named in status.access.caCertificate; with certificateName, also the Secret of that name (`tls.crt`, `ca.crt`).',
      }),
    ),
    insecureRPC: Type.Optional(Type.Boolean({ description: 'Do not verify the JSON-RPC certificates between replicas. Only with high availability.' })),
    profile: Type.Optional(TLSProfile),
    ipxe: Type.Optional(
      Type.Boolean({
        description:
          'Boot over iPXE with TLS: the init container `ipxe-builder` builds x86 iPXE firmware (BIOS and UEFI; the pods therefore run on amd64 nodes only) that trusts the CA of the certificate and chains to https://<networking.ipAddress>:<networking.ipxeTLSPort>/boot.ipxe; dnsmasq hands it out over TFTP, and iPXE loads its scripts, the kernel and the ramdisk over HTTPS only. Needs a certificate (generateCertificate, certificateName or issuerRef), networking.dhcp, an IPv4 networking.ipAddress that the certificate covers, Ironic 37.0 or newer, and access from the pod to https://github.com/ipxe/ipxe (spec.proxy applies), where the builder clones the iPXE source at every pod start.',
      }),
    ),
    trustedCA: Type.Optional(
      Type.Object(ResourceReferenceWithKey.properties, { description: 'CA bundle trusted when downloading images and by the ramdisk.' }),
    ),
    trustedCAName: legacyCAName('trustedCA', 'trusted CA bundle'),
  },
  {
    description: 'TLS of the API, virtual media and JSON-RPC, and CA bundles.',
    'x-kubernetes-validations': [
      ...CA_FIELDS.map(caConsistencyRule),
      {
        rule: `!has(self.issuerRef) || !(has(self.generateCertificate) && self.generateCertificate)`,
        message: 'issuerRef cannot be used with generateCertificate: use one source of certificates',
      },
      {
        rule: `!(has(self.ipxe) && self.ipxe) || ${celGiven('self.certificateName')} || (has(self.generateCertificate) && self.generateCertificate) || has(self.issuerRef)`,
        message: 'ipxe needs a certificate: set generateCertificate, certificateName or issuerRef',
      },
    ],
  },
);
export type TLS = Static<typeof TLS>;

export const IronicSpec = Type.Object(
  {
    apiCredentialsName: Type.Optional(
      Type.String({
        description:
          'Name of a Secret with the `username` and `password` that clients use to reach the API. When empty, the operator generates `<name>-api-credentials` and reports it in status.apiCredentialsName.',
        maxLength: 253,
      }),
    ),
    conductor: Type.Optional(Conductor),
    database: Type.Optional(Database),
    databaseName: Type.Optional(
      Type.String({
        description: 'Name of an IronicDatabase in the same namespace that Ironic uses. Cannot be used with database.',
        minLength: 1,
        maxLength: 253,
      }),
    ),
    deployRamdisk: Type.Optional(DeployRamdisk),
    imageCacheName: Type.Optional(
      Type.String({
        description:
          'Name of an IronicImageCache in the same namespace that serves the IPA kernel and initramfs. Ironic then runs no downloader and waits until the cache is ready. Cannot be used with images.deployRamdiskBranch, images.deployRamdiskDownloader or overrides.agentImages.',
        minLength: 1,
        maxLength: 253,
      }),
    ),
    extraConfig: Type.Optional(
      Type.Array(ExtraConfig, { description: 'Extra ironic.conf options, passed as OS_<GROUP>__<NAME> environment variables.', maxItems: 256 }),
    ),
    highAvailability: Type.Optional(
      Type.Boolean({ description: 'Run one Ironic per selected node (a DaemonSet), talking JSON-RPC to each other. Requires a database.' }),
    ),
    images: Type.Optional(Images),
    imagePullSecrets: Type.Optional(ImagePullSecrets),
    inspection: Type.Optional(Inspection),
    logging: Type.Optional(Logging),
    networking: Type.Optional(Networking),
    networkingService: Type.Optional(NetworkingService),
    nodeSelector: Type.Optional(StringMap('Node labels the Ironic pods must match.')),
    overrides: Type.Optional(Overrides),
    priorityClassName: Type.Optional(
      Type.String({
        description:
          'PriorityClass of the Ironic pods, of the upgrade Jobs and of the networking service, for example `system-node-critical` (as OpenShift runs Ironic) or a class of your own, so that they are not the first evicted under pressure. The class must exist: pods naming a missing class are not created.',
        maxLength: 253,
        pattern: DNS_SUBDOMAIN_PATTERN,
      }),
    ),
    prometheusExporter: Type.Optional(PrometheusExporter),
    proxy: Type.Optional(Proxy),
    resources: Type.Optional(Resources),
    tls: Type.Optional(TLS),
    version: Type.Optional(
      Type.String({
        description: `Ironic version to run: \`latest\` or MAJOR.MINOR (supported: ${RELEASES}). Defaults to the newest supported release.`,
        pattern: VERSION_PATTERN,
      }),
    ),
  },
  {
    description: 'Desired state of Ironic.',
    'x-kubernetes-validations': [
      { rule: '!(has(self.database) && has(self.databaseName))', message: 'database and databaseName cannot both be set: use one database' },
      {
        rule: '!(has(self.highAvailability) && self.highAvailability) || has(self.database) || has(self.databaseName)',
        message: 'highAvailability requires a database: set database or databaseName',
      },
      {
        rule: '!has(oldSelf.database) || !has(self.database) || oldSelf.database.host == self.database.host && oldSelf.database.name == self.database.name',
        message: 'database cannot be changed to a different database once set',
      },
      {
        rule: '!has(oldSelf.databaseName) || !has(self.databaseName) || oldSelf.databaseName == self.databaseName',
        message: 'databaseName cannot be changed to a different IronicDatabase once set',
      },
      {
        rule: `!has(self.imageCacheName) || !((has(self.images) && (${celGiven('self.images.deployRamdiskBranch')} || ${celGiven('self.images.deployRamdiskDownloader')})) || (has(self.overrides) && ${celNotEmpty('self.overrides.agentImages')}))`,
        message:
          'imageCacheName cannot be used with images.deployRamdiskBranch, images.deployRamdiskDownloader or overrides.agentImages: the image cache provides IPA',
      },
      {
        rule: '!has(self.imageCacheName) || !(has(self.tls) && has(self.tls.ipxe) && self.tls.ipxe)',
        message:
          "imageCacheName cannot be used with tls.ipxe: iPXE over TLS loads IPA only from the Ironic's own httpd, which has no IPA when an image cache provides it",
      },
      {
        rule: `!(has(self.highAvailability) && self.highAvailability) || !has(self.networking) || !${celGiven('self.networking.ipAddress')} || ((has(self.networking.keepalived) && self.networking.keepalived.enabled) || (has(self.networking.ipAddressManager) && self.networking.ipAddressManager == 'keepalived'))`,
        message: 'networking.ipAddress needs keepalived with highAvailability: it can only be the virtual IP that keepalived moves between the nodes',
      },
      {
        rule: "!(has(self.highAvailability) && self.highAvailability) || !has(self.networking) || !has(self.networking.dhcp) || ((has(self.networking.keepalived) && self.networking.keepalived.enabled) || (has(self.networking.ipAddressManager) && self.networking.ipAddressManager == 'keepalived'))",
        message: 'networking.dhcp with highAvailability needs keepalived, whose virtual IP elects the node that serves DHCP',
      },
      {
        rule: `!(has(self.highAvailability) && self.highAvailability) || !has(self.networking) || !${celGiven('self.networking.ipAddress')} || !self.networking.ipAddress.contains(':')`,
        message: 'networking.ipAddress with highAvailability must be an IPv4 address',
      },
      {
        rule: `!(has(self.highAvailability) && self.highAvailability) || !has(self.networking) || !(has(self.networking.bindInterface) && self.networking.bindInterface) || !${celGiven('self.networking.ipAddress')}`,
        message: 'bindInterface cannot be used with highAvailability and a virtual IP (networking.ipAddress)',
      },
      {
        rule: '(has(self.highAvailability) && self.highAvailability) || !has(self.tls) || !has(self.tls.insecureRPC) || !self.tls.insecureRPC',
        message: 'tls.insecureRPC only makes sense with highAvailability',
      },
      {
        rule: `!(has(self.tls) && has(self.tls.ipxe) && self.tls.ipxe) || (has(self.networking) && has(self.networking.dhcp) && ${celGiven('self.networking.ipAddress')} && !self.networking.ipAddress.contains(':'))`,
        message: 'tls.ipxe needs networking.dhcp and an IPv4 networking.ipAddress',
      },
      {
        rule: "!(has(self.tls) && has(self.tls.ipxe) && self.tls.ipxe) || !has(self.nodeSelector) || !('kubernetes.io/arch' in self.nodeSelector) || self.nodeSelector['kubernetes.io/arch'] == 'amd64'",
        message: 'tls.ipxe runs on amd64 nodes only: nodeSelector kubernetes.io/arch must be amd64 or absent',
      },
      {
        rule: "!(has(self.tls) && ((has(self.tls.generateCertificate) && self.tls.generateCertificate) || has(self.tls.issuerRef))) || !has(self.networking) || ((!has(self.networking.ipAddress) || !self.networking.ipAddress.contains('%')) && (!has(self.networking.externalIP) || !self.networking.externalIP.contains('%')))",
        message:
          'networking.ipAddress and externalIP cannot have an IPv6 zone (%...) with tls.generateCertificate or tls.issuerRef: a certificate cannot hold it',
      },
    ],
  },
);
export type IronicSpec = Static<typeof IronicSpec>;

/** How clients reach this Ironic: what baremetal-operator, the `baremetal` CLI and openstacksdk need. */
export const ClientAccess = Type.Object(
  {
    apiURL: Type.String({ description: 'URL of the API for clients inside the cluster (through the Service).' }),
    externalAPIURL: Type.Optional(
      Type.String({
        description: 'URL of the API on the provisioning network or through the Ingress, when one address serves it (not with high availability).',
      }),
    ),
    imageServerURL: Type.Optional(Type.String({ description: 'URL of the image server that BMCs and hosts use.' })),
    credentialsName: Type.String({ description: 'Secret with the `username` and `password` of the API (HTTP basic authentication).' }),
    caCertificate: Type.Optional(
      Type.Object(
        {
          kind: StringEnum(['Secret', 'ConfigMap'], { description: 'Kind of the object that holds the CA.' }),
          name: Type.String({ description: 'Name of the object, in the namespace of this Ironic.' }),
          key: Type.String({ description: 'Key of the PEM CA bundle in the object.' }),
        },
        { description: 'Where the CA bundle that clients must trust is, when the API is served over TLS.' },
      ),
    ),
    cloudsSecretName: Type.String({
      description: 'Secret with a `clouds.yaml` (and `ca.crt` with TLS) for the `baremetal` CLI and openstacksdk; mount it at /etc/openstack.',
    }),
  },
  { description: 'How clients reach this Ironic.' },
);
export type ClientAccess = Static<typeof ClientAccess>;

/** The backup taken before the last schema upgrade (spec.backup.beforeUpgrade of the IronicDatabase). */
export const UpgradeBackupStatus = Type.Object(
  {
    kind: StringEnum(['Job', 'Backup'], {
      description:
        "Job: the database's backup run (engine Builtin). Backup: a one-shot mariadb-operator Backup (k8s.mariadb.com, engine MariaDBOperator), whose Job has its name.",
    }),
    name: Type.String({
      description: 'The backup Job or Backup: `kubectl logs job/<it>` says how it went. It is deleted once the upgrade completed (the backup file stays).',
    }),
    databaseName: Type.String({ description: 'The IronicDatabase backed up.' }),
    fromVersion: Type.String({ description: 'The version installed when the backup was taken.' }),
    toVersion: Type.String({ description: 'The version the upgrade goes to.' }),
    state: StringEnum(['Running', 'Succeeded', 'Failed'], {
      description: 'Running: the upgrade waits for it. Succeeded: the upgrade went on. Failed: the upgrade is held (the Ready condition says what to do).',
    }),
    completionTime: Type.Optional(Type.String({ description: 'When the backup completed.', format: 'date-time' })),
    backup: Type.Optional(
      Type.String({
        description:
          "The backup file (ironic-<UTC time>.sql.gz), as the IronicDatabase's status.backup.lastBackup reported it for this Job: a name for spec.restoreFrom of a new IronicDatabase. Engine Builtin only: mariadb-operator reports no file names (its newest file is the one `restoreFrom: latest` takes).",
      }),
    ),
  },
  { description: 'The backup taken before the last Ironic version upgrade, when the IronicDatabase asks for one (spec.backup.beforeUpgrade).' },
);
export type UpgradeBackupStatus = Static<typeof UpgradeBackupStatus>;

export const IronicStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions),
    requestedVersion: Type.Optional(Type.String({ description: 'The version the operator is installing or has installed.' })),
    installedVersion: Type.Optional(Type.String({ description: 'The last version that became ready.' })),
    apiCredentialsName: Type.Optional(
      Type.String({ description: 'The Secret with the `username` and `password` of the API: spec.apiCredentialsName, or the one generated by the operator.' }),
    ),
    observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the spec the status was computed for.', minimum: 0 })),
    access: Type.Optional(ClientAccess),
    upgradeBackup: Type.Optional(UpgradeBackupStatus),
  },
  { description: 'Observed state of Ironic.' },
);
export type IronicStatus = Static<typeof IronicStatus>;

/** The whole object as the hooks see it. `spec` is not checked here: validateIronic reports problems in status. */
export const Ironic = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.Literal('Ironic'),
    metadata: ObjectMeta,
    spec: Type.Optional(Type.Unknown()),
    status: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);
export type Ironic = Static<typeof Ironic>;
