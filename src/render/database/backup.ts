/**
 * Backups of a Builtin IronicDatabase (spec.backup): a CronJob on the database's own MariaDB image that dumps
 * the ironic schema over the network as Ironic's user, and the PersistentVolumeClaim the dumps are kept on.
 * The scripts and the pod of a run are in ../shared/database-backup.ts (an Ironic runs the same before an upgrade).
 */
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { DatabaseBackupModel } from '../../api/ironic-database/model.js';
import { databaseNames } from '../names.js';
import { databaseLabels } from '../meta.js';
import { backupJobSpec, backupLabels, RESTORE_SCRIPT, scriptPodSpec, type ScriptPodInput } from '../shared/database-backup.js';
import type { DatabaseRenderInput } from './input.js';

export { BACKUP_DIR, BACKUP_FILE_PATTERN, BACKUP_SCRIPT, RESTORE_SCRIPT, backupLabels } from '../shared/database-backup.js';

/** What the pod of a backup or restore run needs of the database. */
export const scriptPodInput = (input: DatabaseRenderInput): ScriptPodInput => ({
  database: input.name,
  namespace: input.namespace,
  image: input.model.image ?? input.config.images.mariadb,
  nodeSelector: input.model.nodeSelector,
  ...(input.model.priorityClassName !== undefined && { priorityClassName: input.model.priorityClassName }),
  credentialsSecretName: input.credentials.secretName,
  imagePullSecrets: input.model.imagePullSecrets,
  ...(input.tls !== undefined && { tls: { secretName: input.tls.secretName, caKey: input.tls.caKey } }),
});

/** The claim the backups are kept on (destination persistentVolumeClaim). */
export const renderBackupClaim = (input: DatabaseRenderInput, backup: DatabaseBackupModel): IPersistentVolumeClaim | undefined =>
  backup.destination.kind === 'PersistentVolumeClaim'
    ? {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: databaseNames(input.name).backupClaim, namespace: input.namespace, labels: databaseLabels(input.name) },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: backup.destination.size } },
          ...(backup.destination.storageClassName !== undefined && { storageClassName: backup.destination.storageClassName }),
        },
      }
    : undefined;

/**
 * The CronJob of scheduled backups, in UTC. One run at a time (Forbid): a slow dump is never doubled. A failed
 * dump fails its Job, retried twice; the last three successful and failed Jobs are kept for their logs.
 */
export const renderBackupCronJob = (input: DatabaseRenderInput, backup: DatabaseBackupModel): ICronJob => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: databaseNames(input.name).backupCronJob, namespace: input.namespace, labels: databaseLabels(input.name) },
  spec: {
    schedule: backup.schedule,
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    // A run missed by more than an hour (the controller was down) is skipped, not started late in a burst.
    startingDeadlineSeconds: 3600,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 3,
    jobTemplate: {
      metadata: { labels: { ...databaseLabels(input.name), ...backupLabels(input.name) } },
      spec: backupJobSpec(scriptPodInput(input), backup),
    },
  },
});

/** The backup children of a Builtin IronicDatabase with spec.backup: its volume and its CronJob. */
export const renderBackupChildren = (input: DatabaseRenderInput): (IPersistentVolumeClaim | ICronJob)[] => {
  const backup = input.model.backup;
  if (backup === undefined || input.model.engine !== 'Builtin') return [];
  const claim = renderBackupClaim(input, backup);
  return [...(claim !== undefined ? [claim] : []), renderBackupCronJob(input, backup)];
};

/**
 * The Job that fills a new database from a backup (spec.restoreFrom), read-only on the claim that holds it. It is
 * retried twice (the restore replays the whole dump, tables dropped first, so a retry gives the same result); when
 * it fails, the database's status says why, and it runs again once its Job is deleted.
 */
export const renderRestoreJob = (input: DatabaseRenderInput, restore: { readonly backup: string; readonly claimName?: string }): IJob => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: databaseNames(input.name).restoreJob,
    namespace: input.namespace,
    labels: { ...databaseLabels(input.name), ...backupLabels(input.name, 'restore') },
  },
  spec: {
    backoffLimit: 2,
    template: {
      metadata: { labels: { ...databaseLabels(input.name), ...backupLabels(input.name, 'restore') } },
      spec: scriptPodSpec(scriptPodInput(input), {
        container: { name: 'restore', command: ['bash', '-c', RESTORE_SCRIPT, 'restore-database'] },
        claimName: restore.claimName ?? databaseNames(input.name).backupClaim,
        readOnly: true,
        env: [{ name: 'RESTORE_FROM', value: restore.backup }],
      }),
    },
  },
});
