/**
 * Backups and restores of an IronicDatabase with engine MariaDBOperator, as mariadb-operator's own objects
 * (k8s.mariadb.com/v1alpha1, as of 26.6.0): a logical `Backup` (mariadb-dump in one transaction, on a schedule,
 * pruned by age, to a claim or an S3 bucket), and `bootstrapFrom` on the MariaDB for a new cluster filled from one.
 * NOTE: a `PhysicalBackup` (mariadb-backup of the data directory) restores only a whole server of the same
 * MariaDB version; the logical dump of the ironic schema is small, restores into any MariaDB (a Builtin one
 * included) and is what the Builtin engine writes too.
 */
import type { S3Model } from '../../api/model.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } from '../../api/shared/constants.js';
import type { KubeChild } from '../child.js';
import { databaseNames } from '../names.js';
import { databaseLabels } from '../meta.js';
import { DATABASE_SCHEMA, type DatabaseRenderInput } from './input.js';
import { MARIADB_API_VERSION } from './operator.js';

type Spec = Record<string, unknown>;

/** The key of the CA bundle in the Secret named by s3.caSecretName. */
const S3_CA_KEY = 'ca.crt';

/** mariadb-operator's S3 (api/v1alpha1/base_types.go S3): the bucket, and the credentials and CA as Secret keys. */
export const operatorS3 = (s3: S3Model): Spec => ({
  bucket: s3.bucket,
  endpoint: s3.endpoint,
  ...(s3.prefix !== undefined && { prefix: s3.prefix }),
  ...(s3.region !== undefined && { region: s3.region }),
  accessKeyIdSecretKeyRef: { name: s3.credentialsSecretName, key: S3_ACCESS_KEY_ID },
  secretAccessKeySecretKeyRef: { name: s3.credentialsSecretName, key: S3_SECRET_ACCESS_KEY },
  ...(s3.tls && { tls: { enabled: true, ...(s3.caSecretName !== undefined && { caSecretKeyRef: { name: s3.caSecretName, key: S3_CA_KEY } }) } }),
});

/**
 * A retention in minutes as Go writes a metav1.Duration (`720h0m0s`): mariadb-operator writes its defaults back
 * into the spec in that form, so any other spelling of the same duration would be changed back and forth.
 */
export const goDuration = (minutes: number): string => `${Math.floor(minutes / 60)}h${minutes % 60}m0s`;

/**
 * The Backup of spec.backup: mariadb-dump of the ironic schema (one transaction; users and grants are the User
 * and Grant objects'), gzip, on the schedule in UTC, files older than the retention deleted by each run. One
 * destination: a claim mariadb-operator creates under the Backup's name, or the S3 bucket. mariadb-operator
 * refuses a change of the storage and of the retention once set (webhook): the plan reports such a change.
 */
export const renderMariaDBBackup = (input: DatabaseRenderInput): KubeChild | undefined => {
  const backup = input.model.backup;
  if (backup === undefined) return undefined;
  const { destination } = backup;
  const names = databaseNames(input.name);
  const storage =
    destination.kind === 'S3'
      ? { s3: operatorS3(destination) }
      : {
          persistentVolumeClaim: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: destination.size } },
            ...(destination.storageClassName !== undefined && { storageClassName: destination.storageClassName }),
          },
        };
  return {
    apiVersion: MARIADB_API_VERSION,
    kind: 'Backup',
    metadata: { name: names.mariadbBackup, namespace: input.namespace, labels: databaseLabels(input.name) },
    spec: {
      mariaDbRef: { name: names.mariadb },
      schedule: { cron: backup.schedule, suspend: false },
      timeZone: 'Etc/UTC',
      // parse.ts always sets an age for this engine (mariadb-operator prunes by age only).
      maxRetention: goDuration(backup.maxAgeMinutes ?? 0),
      compression: 'gzip',
      databases: [DATABASE_SCHEMA],
      storage,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      ...(Object.keys(input.model.nodeSelector).length > 0 && { nodeSelector: input.model.nodeSelector }),
      ...(input.model.priorityClassName !== undefined && { priorityClassName: input.model.priorityClassName }),
    },
  };
};

/** The time of a mariadb-operator backup file `backup.<RFC 3339 time>.sql…`; undefined for `latest`. */
const backupTime = (file: string): string | undefined => /^backup\.([^.]+)\.sql/.exec(file)?.[1];

/**
 * bootstrapFrom of a new MariaDB (spec.restoreFrom): mariadb-operator creates a Restore once the Galera nodes
 * run, and reports the MariaDB Ready only after it completed (BackupRestored). It restores the newest backup of
 * the claim or bucket that is not newer than targetRecoveryTime: the named file's time, or now for `latest`.
 */
export const renderBootstrapFrom = (input: DatabaseRenderInput): Spec | undefined => {
  const restore = input.model.restore;
  if (restore === undefined) return undefined;
  const time = backupTime(restore.backup);
  return {
    backupContentType: 'Logical',
    ...(restore.s3 !== undefined
      ? { s3: operatorS3(restore.s3) }
      : { volume: { persistentVolumeClaim: { claimName: restore.claimName ?? databaseNames(input.name).mariadbBackup } } }),
    ...(time !== undefined && { targetRecoveryTime: time }),
  };
};
