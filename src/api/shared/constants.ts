/**
 * Every default and fixed number of the API, in one place: the schemas (CRD defaults and descriptions),
 * validation and the renderers all read them from here.
 */

/** Default ports of an Ironic (a missing or zero port gets these). */
export const DEFAULT_PORTS = {
  apiPort: 6385,
  imageServerPort: 6180,
  imageServerTLSPort: 6183,
  rpcPort: 6189,
  prometheusExporterPort: 9608,
  /** ironic-image's IPXE_TLS_PORT default. */
  ipxeTLSPort: 8084,
} as const;

/** Ports of the Ironic Service (fixed: clients reach the API on 80/443 and the image server on 8080/8443). */
export const SERVICE_PORTS = {
  api: 80,
  apiTLS: 443,
  imageServer: 8080,
  imageServerTLS: 8443,
} as const;

export const DEFAULT_EXPORTER_BIND_ADDRESS = '0.0.0.0';
/**
 * Seconds between two sensor data collections: ironic-image's ironic.conf sets 160 and warns against going
 * below 120, since the conductor already polls the power state every 60 s and BMCs should not be asked more
 * often (upstream ironic-standalone-operator defaults to, and allows down to, 60).
 */
export const DEFAULT_SENSOR_INTERVAL = 160;
export const DEFAULT_DATABASE_SIZE = '10Gi';

/** The engines of an IronicDatabase: one MariaDB pod of the official image, or a Galera cluster of mariadb-operator. */
export const DATABASE_ENGINES = ['Builtin', 'MariaDBOperator'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];
export const DEFAULT_DATABASE_ENGINE: DatabaseEngine = 'Builtin';
/** Galera nodes of the MariaDBOperator engine: three survive the loss of any one. */
export const DEFAULT_GALERA_REPLICAS = 3;
/** The official MariaDB image, on its long-term support line (11.8 LTS). */
export const DEFAULT_MARIADB_IMAGE = 'docker.io/library/mariadb:11.8';

/** A CA reference field, the deprecated name-only field it replaces, and the kind that field implies. */
export type CAField = { readonly ref: 'bmcCA' | 'trustedCA'; readonly legacy: 'bmcCAName' | 'trustedCAName'; readonly legacyKind: 'Secret' | 'ConfigMap' };

/** The legacy CA field mapping: bmcCAName is a Secret, trustedCAName a ConfigMap. */
export const CA_FIELDS: readonly CAField[] = [
  { ref: 'bmcCA', legacy: 'bmcCAName', legacyKind: 'Secret' },
  { ref: 'trustedCA', legacy: 'trustedCAName', legacyKind: 'ConfigMap' },
];

/** The lowest port an unprivileged process may listen on (the Ironic containers have no capabilities). */
export const UNPRIVILEGED_PORT_START = 1024;

/** Minimum seconds between two sensor data collections (see DEFAULT_SENSOR_INTERVAL). */
export const MIN_SENSOR_INTERVAL = 120;

/** Why MIN_SENSOR_INTERVAL, for messages. */
export const SENSOR_INTERVAL_REASON = `the power state is already polled every 60 s and ironic-image advises against collecting sensor data more often than every ${MIN_SENSOR_INTERVAL} s, so as not to overload the BMCs`;

/** A DNS-1123 subdomain (PriorityClass names, for example), empty allowed (unset). */
export const DNS_SUBDOMAIN_PATTERN = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$';

/**
 * Default requests of every container an Ironic runs, so that none is BestEffort (the first evicted under
 * pressure). Sized for an idle Ironic; `spec.resources` changes them per container. No default limits:
 * Ironic converts and checksums images, and a memory limit would kill it in the middle of a deployment.
 */
export const DEFAULT_CONTAINER_REQUESTS = {
  ironic: { cpu: '100m', memory: '400Mi' },
  httpd: { cpu: '10m', memory: '64Mi' },
  'ramdisk-logs': { cpu: '5m', memory: '16Mi' },
  dnsmasq: { cpu: '5m', memory: '16Mi' },
  keepalived: { cpu: '5m', memory: '16Mi' },
  'ironic-prometheus-exporter': { cpu: '10m', memory: '128Mi' },
  'ramdisk-downloader': { cpu: '10m', memory: '64Mi' },
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

/** keepalived's VRRP: virtual router IDs, and PASS authentication, which keeps 8 characters of a password. */
export const VRRP = { minRouterID: 1, maxRouterID: 255, defaultRouterID: 1, maxPasswordLength: 8 } as const;

/** The switch port mode of a provider network without one. */
export const DEFAULT_PROVIDER_NETWORK_MODE = 'access';

/** VLAN IDs a provider network may use (native and tagged). */
export const VLAN_IDS = { min: 1, max: 4094 } as const;

/** What happens to the data volume of a deleted IronicDatabase without `storage.whenDeleted`. */
export const DEFAULT_WHEN_DELETED = 'Retain';

/** The first Ironic release whose dnsmasq configuration supports `networking.dhcp.extraRanges`. */
export const EXTRA_RANGES_MIN_VERSION = { major: 37, minor: 0 } as const;

/**
 * The first Ironic release whose rundnsmasq and runhttpd accept the firmware the iPXE builder makes for
 * one architecture (they skip a missing `snponly-<arch>.efi`; 35.0 copies all three and fails).
 */
export const IPXE_TLS_MIN_VERSION = { major: 37, minor: 0 } as const;

/** The node label of a node's architecture (GOARCH: amd64, arm64, ...); pods with tls.ipxe need `amd64`. */
export const NODE_ARCH_LABEL = 'kubernetes.io/arch';

/** Size of the IPA cache volume without `storage.size`: a few IPA versions of two architectures. */
export const DEFAULT_IMAGE_CACHE_SIZE = '5Gi';

/**
 * The defaults get-resource.sh of the IPA downloader gives IPA_BASEURI, IPA_BRANCH and IPA_FLAVOR; its
 * tarball is `<IPA_BASEURI>/<IPA_FILENAME>`, by default `ipa-<flavor>-<branch with / as ->.tar.gz`.
 */
export const DOWNLOADER_DEFAULTS = { baseURI: 'https://tarballs.opendev.org/openstack/ironic-python-agent/dib', branch: 'master', flavor: 'centos9' } as const;

/** The CPU architectures the IPA downloader can name its files after (`IPA_ARCH`), as Ironic spells them. */
export const IPA_ARCHITECTURES = ['x86_64', 'aarch64'] as const;

/** The architecture an IronicImageCache downloads without `architectures`. */
export const DEFAULT_IPA_ARCHITECTURE = 'x86_64';

/** The name of the init container of an IronicImageCache that downloads one architecture (`download-x86-64`). */
export const cacheDownloadContainer = (architecture: string): string => `download-${architecture.replace(/_/g, '-')}`;

/**
 * Default requests of every container of an IronicImageCache pod (`spec.resources` of the cache changes
 * them per container): the downloads and the pruning as Ironic's own IPA downloader, httpd as Ironic's.
 */
export const DEFAULT_CACHE_CONTAINER_REQUESTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ...Object.fromEntries(IPA_ARCHITECTURES.map((architecture) => [cacheDownloadContainer(architecture), DEFAULT_CONTAINER_REQUESTS['ramdisk-downloader']])),
  prune: DEFAULT_CONTAINER_REQUESTS['ramdisk-downloader'],
  httpd: DEFAULT_CONTAINER_REQUESTS.httpd,
};

/** The names of the containers of an IronicImageCache pod that its `spec.resources` may set. */
export const CACHE_CONTAINER_NAMES: readonly string[] = Object.keys(DEFAULT_CACHE_CONTAINER_REQUESTS);
