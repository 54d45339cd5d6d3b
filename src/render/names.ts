/**
 * Every child name and label key in one place. Names that could overflow Kubernetes limits are
 * truncated and suffixed with a short hash of the full value, so distinct inputs stay distinct.
 */
import { hash } from 'node:crypto';
import { API_GROUP } from '../api/shared/common.js';
import { boundedMemo, type Memo } from '../api/shared/memo.js';

/** Prefix of every label and annotation the hooks put on children: the API group. */
const LABEL_PREFIX = API_GROUP;

export const LABELS = {
  app: `${LABEL_PREFIX}/app`,
  ironic: `${LABEL_PREFIX}/ironic`,
  version: `${LABEL_PREFIX}/version`,
  database: `${LABEL_PREFIX}/database`,
  imageCache: `${LABEL_PREFIX}/image-cache`,
  component: `${LABEL_PREFIX}/component`,
  /** On placeholder Secrets the user fills in (never overwritten). */
  managed: `${LABEL_PREFIX}/managed`,
  /** A node label no node carries: a DaemonSet selecting it runs nowhere (a workload being retired). */
  retiredWorkload: `${LABEL_PREFIX}/retired-workload`,
  /** Annotation: when a retired workload was first seen without pods. */
  podsGoneSince: `${LABEL_PREFIX}/pods-gone-since`,
  /** Annotation: the backup a Galera cluster is to be filled from by the hooks' own Restore (a new cluster only). */
  restoreFrom: `${LABEL_PREFIX}/restore-from`,
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

/** The pod-template annotation that records the version (content hash) of something the pods use. */
export const versionAnnotation = (what: string): string => `${LABEL_PREFIX}/${what}-version`;

/** Pod-template annotations with the content hash of the CA the pods trust: JSON-RPC's (HA), and generated certificates'. */
export const RPC_CA_ANNOTATION = versionAnnotation('rpc-ca');
export const TLS_CA_ANNOTATION = versionAnnotation('tls-ca');

/** Value of app.kubernetes.io/managed-by on every child. */
export const MANAGED_BY = 'ironic-metacontroller-hooks';

/** Label that upstream's operator requires on user Secrets; we put it on generated ones for compatibility. */
export const ENVIRONMENT_LABEL = 'environment.metal3.io/ironic-standalone-operator';

const shortHash = (value: string): string => hash('sha256', value, 'hex').slice(0, 8);

const fitTo = (value: string, max: number): string => (value.length <= max ? value : `${value.slice(0, max - 9).replace(/[-.]+$/, '')}-${shortHash(value)}`);

/** A DNS-1123 subdomain (most object names): at most 253 characters. */
export const objectName = (base: string, suffix = ''): string => fitTo(`${base}${suffix}`, 253);

/**
 * A DNS-1035 label (Service names): lower case letters, digits and '-', starting with a letter, at most `max`
 * (63 for a Service; less for a name others derive Service names from).
 */
export const dnsLabel = (base: string, suffix = '', max = 63): string => {
  const original = `${base}${suffix}`;
  const cleaned = original.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const lettered = /^[a-z]/.test(cleaned) ? cleaned : `x-${cleaned}`;
  // A name that had to change gets a hash of the original, so `a.b` and `a-b` never share a Service.
  if (lettered !== original) return `${lettered.slice(0, max - 9).replace(/-+$/, '')}-${shortHash(original)}`;
  return fitTo(lettered, max);
};

const STATEFUL_SET_NAME_MAX = 52;

/**
 * A StatefulSet name. Its pods are named `<name>-<ordinal>`, which becomes their hostname (a DNS-1123 label),
 * and carry the label `<name>-<revision hash>` (at most 63 characters): so a label of at most 52 characters.
 * A name that is one already is kept as it is (a renamed StatefulSet would leave its volumes behind); others,
 * such as `db.v1`, could never start a pod and get a label with a hash of the original.
 */
export const statefulSetName = (base: string, suffix: string): string => {
  const original = `${base}${suffix}`;
  if (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(original) && original.length <= STATEFUL_SET_NAME_MAX) return original;
  return `${original
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, STATEFUL_SET_NAME_MAX - 9)
    .replace(/-+$/, '')}-${shortHash(original)}`;
};

const workOutLabelValue = (value: string): string => {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '-');
  return fitTo(cleaned, 63)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
};

/** Label values worked out (parent names and versions: every child of a sync carries the same ones). Bounded. */
export const knownLabelValues: Memo<string> = boundedMemo(1024);

/** A label value: at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric. */
export const labelValue = (value: string): string => knownLabelValues.get(value, () => workOutLabelValue(value));

/** A content-named object: `<base>-<first 10 hex digits of the content hash>`. */
const CONTENT_HASH_LENGTH = 10;

/**
 * The part of a content-named object's name before its hash: shortened (with a hash of its own) so that the
 * whole name, hash included, fits a DNS subdomain; the same for every content of one parent.
 */
const contentBase = (name: string, suffix: string): string => `${fitTo(`${name}${suffix}`, 253 - 1 - CONTENT_HASH_LENGTH)}-`;

/** Values of the component label of our content-named Secrets, by which observed ones are found again. */
export const CONTENT_COMPONENTS = { htpasswd: 'htpasswd', rpcCA: 'rpc-ca', tlsCA: 'tls-ca' } as const;

/** The names of one kind of content-named Secret: `<name><suffix>-<hash>`, and what every one of them starts with. */
export type ContentNames = { readonly name: (contentHash: string) => string; readonly prefix: string };

/** The names of an Ironic's children. */
export type IronicNames = {
  readonly workload: string;
  readonly service: string;
  readonly apiCredentials: string;
  readonly htpasswd: (contentHash: string) => string;
  readonly htpasswdPrefix: string;
  readonly rpcCA: (contentHash: string) => string;
  readonly rpcCAPrefix: string;
  readonly tlsCA: (contentHash: string) => string;
  readonly tlsCAPrefix: string;
  /** The ConfigMap with the CA bundle clients trust (generated certificates). */
  readonly caBundle: string;
  /** The Secret cert-manager fills for the Certificate of spec.tls.issuerRef. */
  readonly certificateSecret: string;
  /** A feature's own content-named Secrets, by the suffix it gives them (`-<what>`). */
  readonly contentNamed: (suffix: string) => ContentNames;
  /** A feature's own child named by the parent's name, `<name><suffix>` (shortened to fit, as every name here). */
  readonly featureObject: (suffix: string) => string;
  readonly networking: string;
  readonly networkingService: string;
  readonly switchConfig: string;
  readonly switchCredentials: string;
  readonly upgradeJob: (phase: 'pre' | 'post', from: string, to: string) => string;
  /** The backup of the IronicDatabase taken before the schema upgrade of a transition (a Job, or mariadb-operator's Backup). */
  readonly upgradeBackup: (from: string, to: string) => string;
};

const workOutIronicNames = (name: string): IronicNames => ({
  workload: objectName(name, '-service'),
  service: dnsLabel(name),
  apiCredentials: objectName(name, '-api-credentials'),
  /**
   * The htpasswd Secret is named by its content: a changed password gets a new Secret (and the pods
   * roll), so Secrets never need updating in place and can use the OnDelete strategy.
   */
  htpasswd: (contentHash: string): string => `${contentBase(name, '-htpasswd')}${contentHash.slice(0, CONTENT_HASH_LENGTH)}`,
  /** What every htpasswd Secret name of this Ironic starts with. */
  htpasswdPrefix: contentBase(name, '-htpasswd'),
  /** The JSON-RPC CA Secret, named by its content (a renewal is a new Secret and a rolling restart). */
  rpcCA: (contentHash: string): string => `${contentBase(name, '-rpc-ca')}${contentHash.slice(0, CONTENT_HASH_LENGTH)}`,
  /** What every JSON-RPC CA Secret name of this Ironic starts with. */
  rpcCAPrefix: contentBase(name, '-rpc-ca'),
  /** The CA of generated API certificates, named by its content like the JSON-RPC CA. */
  tlsCA: (contentHash: string): string => `${contentBase(name, '-tls-ca')}${contentHash.slice(0, CONTENT_HASH_LENGTH)}`,
  tlsCAPrefix: contentBase(name, '-tls-ca'),
  caBundle: objectName(name, '-ca'),
  certificateSecret: objectName(name, '-serving-tls'),
  featureObject: (suffix: string): string => objectName(name, suffix),
  contentNamed: (suffix: string): ContentNames => {
    const prefix = contentBase(name, suffix);
    return { name: (contentHash: string): string => `${prefix}${contentHash.slice(0, CONTENT_HASH_LENGTH)}`, prefix };
  },
  networking: objectName(name, '-networking'),
  networkingService: dnsLabel(name, '-networking-service'),
  switchConfig: objectName(name, '-switch-config'),
  switchCredentials: objectName(name, '-switch-credentials'),
  /** Upgrade Jobs are named by the transition, as upstream: `<name>-pre-37.0-to-38.0`, `<name>-post-none-to-38.0`. */
  upgradeJob: (phase: 'pre' | 'post', from: string, to: string): string => fitTo(`${name}-${phase}-${from}-to-${to}`, 63),
  /** Named by the transition like the upgrade Jobs, `<name>-backup-37.0-to-38.0`: one backup per upgrade. */
  upgradeBackup: (from: string, to: string): string => fitTo(`${name}-backup-${from}-to-${to}`, 63),
});

/** The children's names of the Ironics synced, worked out once per parent name (a sync asks twice). Bounded, frozen. */
export const knownIronicNames: Memo<IronicNames> = boundedMemo(1024);

/** Names of the children of an Ironic. */
export const ironicNames = (name: string): IronicNames => knownIronicNames.get(name, () => Object.freeze(workOutIronicNames(name)));

/** The longest CronJob name: its Jobs are named `<CronJob>-<minutes since the epoch>`, and must fit a label value. */
const CRON_JOB_NAME_MAX = 52;
const BACKUP_SUFFIX = '-database-backup';

/** The names of an IronicDatabase's children. */
export type DatabaseNames = {
  /** The CronJob of scheduled backups (engine Builtin). */
  readonly backupCronJob: string;
  /** The PersistentVolumeClaim the backups are written to. */
  readonly backupClaim: string;
  /** The Job that fills a new database from a backup (spec.restoreFrom). */
  readonly restoreJob: string;
  readonly statefulSet: string;
  readonly service: string;
  readonly credentials: string;
  readonly config: string;
  readonly mariadb: string;
  readonly primaryService: string;
  readonly rootPassword: string;
  /**
   * mariadb-operator's Backup (engine MariaDBOperator): it names its CronJob and its claim after itself, so it
   * is a CronJob name ending in `-backup` (`<name>-database-backup` as the Builtin CronJob, for most names).
   */
  readonly mariadbBackup: string;
  /** The Restore mariadb-operator creates for a MariaDB bootstrapped from a backup (RestoreKey): `<MariaDB>-restore`. */
  readonly mariadbRestore: string;
  /** The hooks' own Restore that fills a new Galera cluster (its Job is named as it: a label value, 63 characters). */
  readonly mariadbDataRestore: string;
  /**
   * The User and Grant of a database user while the MariaDB's own name is held by those of another user
   * (mariadb-operator never renames a user: a new one gets new objects, and the old ones are dropped).
   */
  readonly otherUser: (username: string) => string;
  /** The Secret with the password of the User named `user`, named by `hash`, a keyed hash of the password. */
  readonly userPassword: (user: string, hash: string) => string;
};

/**
 * The longest MariaDB name (engine MariaDBOperator). mariadb-operator names its Services `<MariaDB>`,
 * `<MariaDB>-internal`, `-primary` and `-secondary` (api/v1alpha1 mariadb_keys.go) and its StatefulSet
 * `<MariaDB>`, whose pods carry the label `<MariaDB>-<revision hash>` and whose Galera recovery Jobs are
 * `<MariaDB>-<ordinal>-recovery`: all must be DNS labels of at most 63 characters.
 */
const MARIADB_NAME_MAX = 52;

const workOutDatabaseNames = (name: string): DatabaseNames => {
  // A DNS-1035 label, so that every Service mariadb-operator derives from it is one too: `<name>-database`
  // for names that are labels already (`db.v1` or `1db`, valid object names, get a hashed label).
  const mariadb = dnsLabel(name, '-database', MARIADB_NAME_MAX);
  return {
    statefulSet: statefulSetName(name, '-database'),
    service: dnsLabel(name, '-database'),
    credentials: objectName(name, '-database-credentials'),
    config: objectName(name, '-database-config'),
    // The suffix stays whole (a long name is shortened before it), so alerts can select backup CronJobs by name.
    backupCronJob: `${fitTo(name, CRON_JOB_NAME_MAX - BACKUP_SUFFIX.length)}${BACKUP_SUFFIX}`,
    backupClaim: objectName(name, '-database-backups'),
    // A Job's name is a label value of its pods: at most 63 characters.
    restoreJob: fitTo(`${name}-database-restore`, 63),
    // mariadb-operator (engine MariaDBOperator): the MariaDB and its Database, User and Grant share one name;
    // mariadb-operator names the Service of the current primary `<MariaDB>-primary` (PrimaryServiceKey) and
    // generates the root password under rootPassword.
    mariadb,
    primaryService: `${mariadb}-primary`,
    rootPassword: objectName(name, '-database-root'),
    mariadbBackup: `${fitTo(mariadb, CRON_JOB_NAME_MAX - '-backup'.length)}-backup`,
    mariadbRestore: `${mariadb}-restore`,
    mariadbDataRestore: fitTo(`${mariadb}-restore-backup`, 63),
    otherUser: (username) => objectName(mariadb, `-${shortHash(username)}`),
    userPassword: (user, hash) => objectName(user, `-password-${hash.slice(0, CONTENT_HASH_LENGTH)}`),
  };
};

/**
 * The children's names of the parents synced, worked out once per parent name: every renderer of a sync
 * asks for them. Bounded, and frozen, since every sync of a parent shares them.
 */
export const knownDatabaseNames: Memo<DatabaseNames> = boundedMemo(1024);

/** Names of the children of an IronicDatabase. */
export const databaseNames = (name: string): DatabaseNames => knownDatabaseNames.get(name, () => Object.freeze(workOutDatabaseNames(name)));

/** The names of an IronicImageCache's children. */
export type ImageCacheNames = { readonly statefulSet: string; readonly service: string; readonly config: string };

export const knownImageCacheNames: Memo<ImageCacheNames> = boundedMemo(1024);

/** Names of the children of an IronicImageCache. */
export const imageCacheNames = (name: string): ImageCacheNames =>
  knownImageCacheNames.get(name, () =>
    Object.freeze({
      statefulSet: statefulSetName(name, '-ipa-cache'),
      service: dnsLabel(name, '-ipa-cache'),
      config: objectName(name, '-ipa-cache-config'),
    }),
  );
