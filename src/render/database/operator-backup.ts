/**
 * Backups and restores of an IronicDatabase with engine MariaDBOperator, as mariadb-operator's own objects
 * (k8s.mariadb.com/v1alpha1, as of 26.6.0): a logical `Backup` (mariadb-dump in one transaction, on a schedule,
 * pruned by age, to a claim or an S3 bucket), and `bootstrapFrom` on the MariaDB for a new cluster filled from one.
 * NOTE: a `PhysicalBackup` (mariadb-backup of the data directory) restores only a whole server of the same
 * MariaDB version; the logical dump of the ironic schema is small, restores into any MariaDB (a Builtin one
 * included) and is what the Builtin engine writes too.
 */
import { fiveFieldSchedule } from '../../api/shared/cron.js';
import type { KubeChild } from '../child.js';
import { databaseNames } from '../names.js';
import { databaseLabels } from '../meta.js';
import type { DatabaseRenderInput } from './input.js';
import { MARIADB_API_VERSION, operatorBackupSpec, operatorS3 } from '../shared/mariadb-operator-backup.js';

type Spec = Record<string, unknown>;

/**
 * The Backup of spec.backup, on the schedule in UTC (the shared spec: render/shared/mariadb-operator-backup.ts). One
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
  const { mariaDbRef, ...rest } = operatorBackupSpec({
    mariadb: names.mariadb,
    storage,
    // parse.ts always sets an age for this engine (mariadb-operator prunes by age only).
    maxAgeMinutes: backup.maxAgeMinutes ?? 0,
    nodeSelector: input.model.nodeSelector,
    ...(input.model.priorityClassName !== undefined && { priorityClassName: input.model.priorityClassName }),
  });
  return {
    apiVersion: MARIADB_API_VERSION,
    kind: 'Backup',
    metadata: { name: names.mariadbBackup, namespace: input.namespace, labels: databaseLabels(input.name) },
    spec: {
      mariaDbRef,
      // Five fields: mariadb-operator's webhook refuses a descriptor such as @daily.
      schedule: { cron: fiveFieldSchedule(backup.schedule), suspend: false },
      timeZone: 'Etc/UTC',
      ...rest,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
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
