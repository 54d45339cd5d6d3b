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
/**
 * Ironic's database connection pool per conductor (`[database] max_pool_size`, `max_overflow`). oslo.db's
 * defaults (5 + 50) let two conductors open 110 connections; with one process per Ironic pod (API and
 * conductor share it), a conductor never holds more than their sum, and requests beyond it wait
 * (`[database] pool_timeout`, derived from the heartbeat settings in render/ironic/conductor.ts) instead of being
 * refused by MariaDB.
 */
export const DATABASE_POOL_SIZE = 10;
export const DATABASE_MAX_OVERFLOW = 20;
/** The most connections one conductor opens. */
export const CONNECTIONS_PER_CONDUCTOR = DATABASE_POOL_SIZE + DATABASE_MAX_OVERFLOW;
/** Connections of the Ironic user besides the conductors: the schema upgrade and data migration Jobs. */
export const JOB_CONNECTIONS = 10;
/** Connections kept for other accounts: root, the health checks, mariadb-operator and Galera. */
export const ADMIN_CONNECTIONS = 10;
/** Conductors a database is sized for by default: high availability on three control-plane nodes. */
export const DEFAULT_MAX_CONDUCTORS = 3;
export const MAX_CONDUCTORS_LIMIT = 64;

/**
 * The connection budget of a database used by up to `conductors` conductors: the Ironic user may open what
 * they and the Jobs need, and MariaDB accepts that plus room for administration, so that a full user
 * never locks out root, the health checks or the operator.
 */
export const connectionBudget = (conductors: number): { readonly maxUserConnections: number; readonly maxConnections: number } => {
  const maxUserConnections = conductors * CONNECTIONS_PER_CONDUCTOR + JOB_CONNECTIONS;
  return { maxUserConnections, maxConnections: maxUserConnections + ADMIN_CONNECTIONS };
};

/**
 * Conductor liveness: a heartbeat every 5 s, declared dead after 30 s without one (Ironic: 10 s and 60 s).
 * See the README's Sizing section for the trade-off.
 */
export const DEFAULT_HEARTBEAT_INTERVAL = 5;
export const DEFAULT_HEARTBEAT_TIMEOUT = 30;
/**
 * The database stall a conductor's heartbeats outlast with the default settings: a 15 s table lock was measured to
 * declare both conductors of an HA Ironic dead when the pool timeout was SQLAlchemy's 30 s (README, Sizing).
 */
export const DATABASE_STALL_SECONDS = 15;
/** Seconds kept between the latest a heartbeat can be and the heartbeat timeout. */
export const HEARTBEAT_MARGIN_SECONDS = 5;
/** SQLAlchemy's own `pool_timeout`: the derived one never waits longer. */
export const MAX_POOL_TIMEOUT = 30;
/** heartbeatTimeout must cover this many heartbeats, so that one late heartbeat never looks like a dead conductor. */
export const HEARTBEATS_PER_TIMEOUT = 3;
/** Seconds a stopping conductor waits for the nodes it holds (`[conductor] graceful_shutdown_timeout`, Ironic's default). */
export const DEFAULT_SHUTDOWN_TIMEOUT = 60;
/** `[agent] deploy_logs_collect` choices; on_failure (Ironic's default; ironic-image sets always). */
export const DEPLOY_LOGS_CHOICES = ['always', 'on_failure', 'never'] as const;
export type DeployLogs = (typeof DEPLOY_LOGS_CHOICES)[number];
export const DEFAULT_DEPLOY_LOGS: DeployLogs = 'on_failure';
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

/** VRRP: virtual router IDs, and PASS authentication, which keeps 8 characters of a password. */
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

/** The CPU architectures IPA downloads can name their files after (`IPA_ARCH`), as Ironic spells them. */
export const IPA_ARCHITECTURES = ['x86_64', 'aarch64'] as const;

/** The architecture an IronicImageCache downloads without `architectures`. */
export const DEFAULT_IPA_ARCHITECTURE = 'x86_64';

/** The name of the init container of an IronicImageCache that downloads one architecture (`download-x86-64`). */
export const cacheDownloadContainer = (architecture: string): string => `download-${architecture.replace(/_/g, '-')}`;

/** The default requests of a download of IPA: an Ironic's init container, and each download of an IronicImageCache. */
export const IPA_DOWNLOAD_REQUESTS = { cpu: '10m', memory: '64Mi' } as const;

/** The default requests of httpd: an Ironic's, and an IronicImageCache's. */
export const HTTPD_REQUESTS = { cpu: '10m', memory: '64Mi' } as const;

/**
 * Default requests of every container of an IronicImageCache pod (`spec.resources` of the cache changes
 * them per container): the downloads and the pruning as an Ironic's own IPA download, httpd as Ironic's.
 */
export const DEFAULT_CACHE_CONTAINER_REQUESTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ...Object.fromEntries(IPA_ARCHITECTURES.map((architecture) => [cacheDownloadContainer(architecture), IPA_DOWNLOAD_REQUESTS])),
  prune: IPA_DOWNLOAD_REQUESTS,
  httpd: HTTPD_REQUESTS,
};

/** The names of the containers of an IronicImageCache pod that its `spec.resources` may set. */
export const CACHE_CONTAINER_NAMES: readonly string[] = Object.keys(DEFAULT_CACHE_CONTAINER_REQUESTS);

/** The keys of the S3 credentials Secret of an IronicDatabase's backups (spec.backup.s3.credentialsSecretName). */
export const S3_ACCESS_KEY_ID = 'access-key-id';
export const S3_SECRET_ACCESS_KEY = 'secret-access-key';
