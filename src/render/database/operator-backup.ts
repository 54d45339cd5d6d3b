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
 * Where a restore reads (spec.restoreFrom): the claim as a volume, or the bucket, and for a named file its time,
 * mariadb-operator's targetRecoveryTime (it restores the newest backup not newer than that; `latest`: the newest).
 */
const restoreSource = (input: DatabaseRenderInput): Spec | undefined => {
  const restore = input.model.restore;
  if (restore === undefined) return undefined;
  const time = backupTime(restore.backup);
  return {
    ...(restore.s3 !== undefined
      ? { s3: operatorS3(restore.s3) }
      : { volume: { persistentVolumeClaim: { claimName: restore.claimName ?? databaseNames(input.name).mariadbBackup } } }),
    ...(time !== undefined && { targetRecoveryTime: time }),
  };
};

/**
 * The hooks' own Restore of spec.restoreFrom into a new, running Galera cluster. Not bootstrapFrom: mariadb-operator
 * counts a bootstrap Restore whose Job failed as complete, deletes it and reports the MariaDB restored
 * (mariadb_controller.go, pkg/condition/complete.go), so a failed restore read as a good one. Nobody deletes this
 * one: its Complete condition says JobComplete or JobFailed for good, and its Job (named as it) keeps the log.
 */
export const renderMariaDBRestore = (input: DatabaseRenderInput): KubeChild | undefined => {
  const source = restoreSource(input);
  if (source === undefined) return undefined;
  const names = databaseNames(input.name);
  return {
    apiVersion: MARIADB_API_VERSION,
    kind: 'Restore',
    metadata: { name: names.mariadbDataRestore, namespace: input.namespace, labels: databaseLabels(input.name) },
    spec: { mariaDbRef: { name: names.mariadb }, ...source },
  };
};
