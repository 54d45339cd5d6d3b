/**
 * The `IronicDatabase` custom resource: a managed MariaDB for Ironic, with persistent storage, TLS and
 * safe deletion. An `Ironic` uses it through `spec.databaseName`.
 */
import { ImagePullSecrets } from '../shared/pull-secrets.js';
import { TLSProfile } from '../shared/tls-profile.js';
import { AGE_PATTERN, BACKUP_NAME_PATTERN } from '../shared/schema-messages.js';
import { Type, type Static } from '@sinclair/typebox';
import { Conditions, ObjectMeta, Quantity, StringEnum, StringMap } from '../shared/common.js';
import {
  DATABASE_ENGINES,
  DNS_SUBDOMAIN_PATTERN,
  DEFAULT_DATABASE_ENGINE,
  DEFAULT_DATABASE_SIZE,
  DEFAULT_GALERA_REPLICAS,
  DEFAULT_MARIADB_IMAGE,
  DEFAULT_WHEN_DELETED,
  DEFAULT_MAX_CONDUCTORS,
  MAX_CONDUCTORS_LIMIT,
  S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY,
  connectionBudget,
} from '../shared/constants.js';
import { ephemeralOf, storageTransitionRules, VolumeStorage } from '../shared/storage.js';
import { UsedByStatus, type UsedBy } from '../used-by.js';

/** An IronicDatabase is used by the Ironics whose spec.databaseName names it. */
export const DATABASE_USED_BY: UsedBy = { what: 'database', ironicField: 'databaseName' };

export const DatabaseStorage = VolumeStorage(
  {
    volume: 'data volume',
    defaultSize: DEFAULT_DATABASE_SIZE,
    sizeNote: 'Can only grow if the storage class allows expansion.',
    ephemeral:
      'Keep the data in an emptyDir instead of a PersistentVolumeClaim. The data is lost whenever the pod restarts: for tests only. Engine Builtin only (mariadb-operator refuses ephemeral storage for a Galera cluster).',
    description: 'Storage of the database. Persistent by default.',
  },
  {
    whenDeleted: Type.Optional(
      Type.Union([Type.Literal('Retain'), Type.Literal('Delete')], {
        description: 'What happens to the data volume when the IronicDatabase is deleted: Retain (the default) keeps it, Delete removes it.',
        default: DEFAULT_WHEN_DELETED,
      }),
    ),
  },
);
export type DatabaseStorage = Static<typeof DatabaseStorage>;

const Quantities = (description: string) => Type.Record(Type.String(), Quantity(), { description });

export const ResourceRequirements = Type.Object(
  {
    limits: Type.Optional(Quantities('Maximum amount of compute resources allowed, for example `memory: 1Gi`.')),
    requests: Type.Optional(Quantities('Minimum amount of compute resources required, for example `cpu: 100m`.')),
  },
  { description: 'Compute resources of the MariaDB container (of each Galera node with engine MariaDBOperator).' },
);

/** CEL, on the spec (`root` is self or oldSelf): the engine, defaulted. */
const engineOf = (root: string): string => `(has(${root}.engine) ? ${root}.engine : '${DEFAULT_DATABASE_ENGINE}')`;

/** CEL, on the spec: the size of the data volume, defaulted. */
const sizeOf = (root: string): string => `(has(${root}.storage) && has(${root}.storage.size) ? ${root}.storage.size : '${DEFAULT_DATABASE_SIZE}')`;

/** What mariadb-operator's webhook refuses of a MariaDB (it never shrinks storage), said once for the CRD and the status. */
export const GALERA_SHRINK_MESSAGE =
  'storage.size cannot decrease with engine MariaDBOperator: mariadb-operator never shrinks the volumes of a Galera cluster; set it back to at least their size';

export const DatabaseEngine = StringEnum(DATABASE_ENGINES, {
  description:
    'How the database runs. Builtin (the default): one MariaDB pod of the official image, a StatefulSet with its volume. MariaDBOperator: a Galera cluster of `replicas` MariaDB pods managed by mariadb-operator (k8s.mariadb.com), which must be installed, with the hooks deployed from deploy/overlays/mariadb-operator. Cannot be changed once the database exists.',
  default: DEFAULT_DATABASE_ENGINE,
});

/** The default number of backups kept, when the retention says neither a count nor an age. */
export const DEFAULT_BACKUP_COUNT = 7;
export const DEFAULT_BACKUP_SIZE = '10Gi';
/** The default retention of a Galera cluster's backups (mariadb-operator's own default, 30 days), which prunes by age only. */
export const DEFAULT_GALERA_BACKUP_MAX_AGE = '30d';

export const BackupRetention = Type.Object(
  {
    count: Type.Optional(
      Type.Integer({ description: 'How many backups are kept: the newest ones. The backup just taken always counts as one.', minimum: 1, maximum: 1000 }),
    ),
    maxAge: Type.Optional(
      Type.String({
        description: 'How old a backup may be before it is deleted, in hours (`36h`) or days (`30d`). The backup just taken is always kept.',
        pattern: AGE_PATTERN,
      }),
    ),
  },
  {
    description: `Which backups are kept, by count and/or age (both apply when both are given). Builtin: defaults to the newest ${DEFAULT_BACKUP_COUNT}. MariaDBOperator: by age only (mariadb-operator's maxRetention; count is refused), defaults to ${DEFAULT_GALERA_BACKUP_MAX_AGE}.`,
  },
);

export const BackupClaim = Type.Object(
  {
    size: Type.Optional(
      Type.String({
        description: `Size of the backup volume, as a Kubernetes quantity. Defaults to ${DEFAULT_BACKUP_SIZE}. Set when the claim is created; later, grow it with kubectl edit pvc.`,
        pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$',
        default: DEFAULT_BACKUP_SIZE,
      }),
    ),
    storageClassName: Type.Optional(Type.String({ description: 'StorageClass of the backup volume. Empty means the cluster default.', maxLength: 253 })),
  },
  {
    description:
      'Backups go to a PersistentVolumeClaim `<name>-database-backups` (the default destination). It is deleted with the IronicDatabase: use a storage class with reclaimPolicy Retain to keep the volume.',
  },
);

export const BackupS3 = Type.Object(
  {
    endpoint: Type.String({
      description: 'S3 endpoint, host and port without a scheme, like `minio.storage.svc:9000` or `s3.eu-west-1.amazonaws.com`.',
      minLength: 1,
    }),
    bucket: Type.String({ description: 'The bucket of the backups.', minLength: 1 }),
    prefix: Type.Optional(Type.String({ description: 'Prefix (folder) of the backups inside the bucket, like `ironic/`.' })),
    region: Type.Optional(Type.String({ description: 'Region of the bucket.' })),
    credentialsSecretName: Type.String({
      description: `Secret of this namespace with the keys \`${S3_ACCESS_KEY_ID}\` and \`${S3_SECRET_ACCESS_KEY}\` of the S3 account.`,
      minLength: 1,
      maxLength: 253,
    }),
    tls: Type.Optional(
      Type.Boolean({
        description: 'Whether the endpoint is reached over HTTPS (the default). false: plain HTTP, for an endpoint without TLS inside the cluster.',
        default: true,
      }),
    ),
    caSecretName: Type.Optional(
      Type.String({
        description: 'Secret of this namespace with `ca.crt`, a CA bundle trusted for the endpoint besides the system ones (for a private CA). Needs tls.',
        maxLength: 253,
      }),
    ),
  },
  { description: 'An S3-compatible bucket. Engine MariaDBOperator only (the official MariaDB image the Builtin engine runs has no S3 client).' },
);
export type BackupS3 = Static<typeof BackupS3>;

export const DatabaseBackup = Type.Object(
  {
    schedule: Type.String({
      description: 'When backups are taken, a CronJob schedule in UTC: five fields like `30 2 * * *` (02:30 every day), or `@daily`, `@hourly`.',
      minLength: 1,
      maxLength: 100,
    }),
    retention: Type.Optional(BackupRetention),
    beforeUpgrade: Type.Optional(
      Type.Boolean({
        description:
          "Whether an Ironic using this database takes a backup (the same run as a scheduled one, into the same destination) before it upgrades the schema to a new Ironic version, and holds the upgrade until that backup succeeded. Defaults to true. The Ironic's status.upgradeBackup names it.",
        default: true,
      }),
    ),
    persistentVolumeClaim: Type.Optional(BackupClaim),
    s3: Type.Optional(
      Type.Object(BackupS3.properties, { description: `Backups go to an S3-compatible bucket instead of a claim. ${BackupS3.description ?? ''}` }),
    ),
  },
  {
    description:
      "Scheduled backups of the ironic schema: a consistent dump (one transaction), compressed, pruned by the retention. Builtin: a CronJob writing ironic-<UTC time>.sql.gz; MariaDBOperator: mariadb-operator's Backup, writing backup.<UTC time>.sql.gz. Take one now with `kubectl create job --from=cronjob/<name>-database-backup <job name>` (README, section Backups).",
    'x-kubernetes-validations': [
      { rule: '!(has(self.s3) && has(self.persistentVolumeClaim))', message: 'backup has one destination: persistentVolumeClaim or s3, not both' },
    ],
  },
);
export type DatabaseBackup = Static<typeof DatabaseBackup>;

export const RestoreFrom = Type.Object(
  {
    backup: Type.String({
      description:
        'The backup to restore: a file name `ironic-<UTC time>.sql.gz` (status.backup.lastBackup of the database it comes from), or `latest` for the newest.',
      pattern: BACKUP_NAME_PATTERN,
    }),
    claimName: Type.Optional(
      Type.String({
        description:
          "A PersistentVolumeClaim of this namespace that holds the backup (a copy or a clone of another database's backup volume, for a restore into a new namespace). Defaults to this database's own backup volume: `<name>-database-backups` (Builtin), the claim of its Backup `<name>-database-backup` (MariaDBOperator).",
        maxLength: 253,
      }),
    ),
    s3: Type.Optional(
      Type.Object(BackupS3.properties, {
        description:
          'Restore from an S3-compatible bucket (the s3 of the backup of the database it comes from) instead of a claim. Engine MariaDBOperator only.',
      }),
    ),
  },
  {
    description:
      'Fill the new database from a backup before it is Ready, so that the Ironics using it start on the restored rows (they wait until then). Read once, when the database is created: the restore runs once, and a failed one is a Ready=False condition saying why. Builtin: a Job replays the file; MariaDBOperator: the MariaDB bootstraps from it (bootstrapFrom).',
    'x-kubernetes-validations': [{ rule: '!(has(self.s3) && has(self.claimName))', message: 'restoreFrom has one source: claimName or s3, not both' }],
  },
);
export type RestoreFrom = Static<typeof RestoreFrom>;

export const IronicDatabaseSpec = Type.Object(
  {
    credentialsName: Type.Optional(
      Type.String({
        description:
          'Name of a Secret with the `username` and `password` of the database user. When empty, `<name>-database-credentials` is generated. The password must use only letters, digits, `-` and `_`.',
        maxLength: 253,
      }),
    ),
    engine: Type.Optional(DatabaseEngine),
    image: Type.Optional(
      Type.String({
        description: `MariaDB image. Builtin: the official MariaDB image or a mirror of it (the hooks use its MARIADB_* variables, healthcheck.sh and /etc/mysql/conf.d), defaults to ${DEFAULT_MARIADB_IMAGE}. MariaDBOperator: the image of the Galera nodes, defaults to mariadb-operator's own.`,
      }),
    ),
    replicas: Type.Optional(
      Type.Integer({
        description: `MariaDBOperator only: the number of Galera nodes, odd and at least 3 (a Galera cluster works while a majority of its nodes is up). Defaults to ${DEFAULT_GALERA_REPLICAS}.`,
        minimum: 3,
        maximum: 9,
      }),
    ),
    maxConductors: Type.Optional(
      Type.Integer({
        description: `The most Ironic conductors (pods) that use this database at once, across every Ironic naming it: one per Ironic, or one per selected node with high availability (count a rolling update's extra pod too). Sizes the connection limits: MariaDB's max_connections and the user's max_user_connections are ${connectionBudget(1).maxConnections - connectionBudget(0).maxConnections} per conductor plus room for the upgrade Jobs and administration (README, section Sizing). Defaults to ${DEFAULT_MAX_CONDUCTORS} (not an upstream field).`,
        default: DEFAULT_MAX_CONDUCTORS,
        minimum: 1,
        maximum: MAX_CONDUCTORS_LIMIT,
      }),
    ),
    imagePullSecrets: Type.Optional(ImagePullSecrets),
    priorityClassName: Type.Optional(
      Type.String({
        description:
          'PriorityClass of the database pods, so that they are scheduled (and kept) before less important pods. When unset or empty, they get the default priority of the cluster.',
        maxLength: 253,
        pattern: DNS_SUBDOMAIN_PATTERN,
      }),
    ),
    tlsCertificateName: Type.Optional(
      Type.String({
        description: 'Name of a Secret (`tls.crt`, `tls.key`) with the server certificate. With it, clients must use TLS.',
        maxLength: 253,
      }),
    ),
    tlsProfile: Type.Optional(
      Type.Object(TLSProfile.properties, {
        description:
          "TLS versions and cipher suites MariaDB accepts, with tlsCertificateName (both engines): the profiles of the Ironic's spec.tls.profile, from Mozilla's server-side TLS guidelines (curves are not set: MariaDB has no such setting). Without it, MariaDB's defaults.",
        'x-kubernetes-validations': TLSProfile['x-kubernetes-validations'] as unknown,
      }),
    ),
    storage: Type.Optional(DatabaseStorage),
    resources: Type.Optional(ResourceRequirements),
    nodeSelector: Type.Optional(StringMap('Node labels the database pod must match.')),
    backup: Type.Optional(DatabaseBackup),
    restoreFrom: Type.Optional(RestoreFrom),
  },
  {
    description: 'Desired state of the managed database.',
    'x-kubernetes-validations': [
      ...storageTransitionRules('database', 'IronicDatabase'),
      {
        rule: `${engineOf('self')} != 'MariaDBOperator' || ${engineOf('oldSelf')} != 'MariaDBOperator' || !isQuantity(${sizeOf('self')}) || !isQuantity(${sizeOf('oldSelf')}) || !quantity(${sizeOf('self')}).isLessThan(quantity(${sizeOf('oldSelf')}))`,
        message: GALERA_SHRINK_MESSAGE,
      },
      {
        rule: `${engineOf('self')} == ${engineOf('oldSelf')}`,
        message:
          'engine cannot be changed once the database exists: the data stays with the engine that wrote it; create a new IronicDatabase with the other engine instead',
      },
      {
        rule: `!has(self.replicas) || ${engineOf('self')} == 'MariaDBOperator'`,
        message: 'replicas is only for engine MariaDBOperator: the Builtin engine runs one MariaDB pod',
      },
      {
        rule: `!${ephemeralOf('self')} || ${engineOf('self')} != 'MariaDBOperator'`,
        message: 'storage.ephemeral cannot be used with engine MariaDBOperator: mariadb-operator keeps the data of a Galera cluster on volumes only',
      },
      {
        rule: '!has(self.replicas) || self.replicas % 2 == 1',
        message:
          'replicas must be odd (3, 5, 7 or 9): Galera keeps working while a majority of its nodes is up, and an even number adds a node without surviving one more failure',
      },
    ],
  },
);
export type IronicDatabaseSpec = Static<typeof IronicDatabaseSpec>;

export const DatabaseBackupStatus = Type.Object(
  {
    lastScheduleTime: Type.Optional(Type.String({ description: 'When the backup CronJob last started a run.', format: 'date-time' })),
    lastSuccessfulTime: Type.Optional(Type.String({ description: 'When the last successful backup finished.', format: 'date-time' })),
    lastSuccessfulJob: Type.Optional(Type.String({ description: 'The Job of the last successful backup.' })),
    lastBackup: Type.Optional(Type.String({ description: 'The file of the last successful backup (ironic-<UTC time>.sql.gz): a name for spec.restoreFrom.' })),
    lastBackupBytes: Type.Optional(Type.Integer({ description: 'The size of that file, in bytes (compressed), as its backup Job reported it.', minimum: 0 })),
    nextScheduleTime: Type.Optional(
      Type.String({
        description:
          "When the schedule runs the next backup: its first time after the CronJob's last run (after its creation before the first). A time in the past means the CronJob missed that run (see its events).",
        format: 'date-time',
      }),
    ),
    lastFailureTime: Type.Optional(Type.String({ description: 'When the last failed backup gave up (after its retries).', format: 'date-time' })),
    lastFailureJob: Type.Optional(Type.String({ description: 'The Job of the last failed backup: `kubectl logs job/<it>` says more.' })),
    lastFailureReason: Type.Optional(Type.String({ description: 'The last line its log ended with.' })),
    consecutiveFailures: Type.Optional(Type.Integer({ description: 'Failed backups since the last successful one.', minimum: 0 })),
  },
  {
    description:
      "Backups (spec.backup): the last success and failure. Builtin: as the backup Jobs report them. MariaDBOperator: the times of the CronJob of mariadb-operator's Backup, and the last failure when the Backup reports its last run Failed (it reports no file names).",
  },
);
export type DatabaseBackupStatus = Static<typeof DatabaseBackupStatus>;

export const IronicDatabaseStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions),
    host: Type.Optional(Type.String({ description: 'Host name of the database service, for Ironic to connect to.' })),
    port: Type.Optional(Type.Integer({ description: 'Port of the database service.' })),
    databaseName: Type.Optional(Type.String({ description: 'Name of the database (schema) inside MariaDB.' })),
    credentialsName: Type.Optional(Type.String({ description: 'Secret with the `username` and `password` of the database user.' })),
    tlsCertificateName: Type.Optional(Type.String({ description: 'Secret with the server certificate, when TLS is on. Clients must use TLS.' })),
    tlsCAKey: Type.Optional(Type.String({ description: 'Key of tlsCertificateName that clients trust: ca.crt when present, else tls.crt.' })),
    usedBy: UsedByStatus(DATABASE_USED_BY),
    backup: Type.Optional(DatabaseBackupStatus),
    restoredFrom: Type.Optional(
      Type.String({
        description:
          'The backup the database was filled from (spec.restoreFrom), once its restore Job completed: it never runs again. Engine MariaDBOperator names no file: latest, or `the newest backup not newer than <the file named>` (a missing file restores an older one; the log of the restore Job names the file taken).',
      }),
    ),
    observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the spec the status was computed for.', minimum: 0 })),
  },
  { description: 'Observed state of the managed database.' },
);
export type IronicDatabaseStatus = Static<typeof IronicDatabaseStatus>;

export const IronicDatabase = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.Literal('IronicDatabase'),
    metadata: ObjectMeta,
    spec: Type.Optional(Type.Unknown()),
    status: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);
export type IronicDatabase = Static<typeof IronicDatabase>;
