/**
 * What mariadb-operator reports of the backups and the restore of an IronicDatabase with engine MariaDBOperator.
 * A Backup's status has one condition, Complete, derived from its CronJob (pkg/condition/complete.go,
 * SetCompleteWithCronJob): False `Scheduled` (no run yet, or one pending), False `Running`, False `Failed` (the last
 * run failed after its retries), True `Success`. The CronJob, named as the Backup, has the times. A MariaDB with
 * bootstrapFrom is Ready=False (reason RestoreBackup) and BackupRestored=False while its Restore `<MariaDB>-restore`
 * runs, then BackupRestored=True; a failed Restore is Complete=True with reason JobFailed.
 */
import type { ObjectMap } from '../../api/shared/hook.js';
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import type { Condition } from '../../api/shared/common.js';
import type { DatabaseBackupStatus } from './status.js';
import { findCondition, previousTrueTime } from '../status.js';
import { findObject, pathOf, textOf } from '../observed.js';
import { databaseNames } from '../names.js';
import { BACKUPS_FAILING, previousBackup } from './backup-status.js';

/** The Backup's Complete condition, when it reports the last run failed. */
const failedRun = (backup: KubeObject | undefined): Record<string, unknown> | undefined => {
  const complete = findCondition(backup?.['status'], 'Complete');
  return complete?.status === 'False' && textOf(complete.message) === 'Failed' ? complete : undefined;
};

/**
 * status.backup from the Backup (children) and its CronJob (related): the CronJob's last schedule and success,
 * and the last failure while the Backup reports one (the time it turned Failed). Earlier values of the previous
 * status are kept when nothing newer is observed. mariadb-operator reports no file names nor failure counts.
 */
export const operatorBackupStatus = (params: {
  readonly children: ObjectMap | null | undefined;
  readonly related: ObjectMap | null | undefined;
  readonly namespace: string;
  readonly name: string;
  readonly previousStatus: unknown;
}): DatabaseBackupStatus => {
  const names = databaseNames(params.name);
  const previous = previousBackup(params.previousStatus) ?? {};
  const backup = findObject(params.children, GROUP_KEYS.mariadbBackup, params.namespace, names.mariadbBackup);
  const cronJob = findObject(params.related, GROUP_KEYS.cronJob, params.namespace, names.mariadbBackup);
  const lastScheduleTime = textOf(pathOf(cronJob, 'status', 'lastScheduleTime')) ?? previous.lastScheduleTime;
  const lastSuccessfulTime = textOf(pathOf(cronJob, 'status', 'lastSuccessfulTime')) ?? previous.lastSuccessfulTime;
  const failed = failedRun(backup);
  const lastFailureTime = textOf(failed?.['lastTransitionTime']) ?? previous.lastFailureTime;
  const lastFailureReason =
    failed !== undefined
      ? `mariadb-operator's Backup ${names.mariadbBackup} reports its last run Failed: kubectl -n ${params.namespace} logs job/<the newest Job of CronJob ${names.mariadbBackup}> says why`
      : previous.lastFailureReason;
  return {
    ...(lastScheduleTime !== undefined && { lastScheduleTime }),
    ...(lastSuccessfulTime !== undefined && { lastSuccessfulTime }),
    ...(lastFailureTime !== undefined && { lastFailureTime }),
    ...(lastFailureReason !== undefined && { lastFailureReason }),
  };
};

/**
 * BackupsFailing for a Galera database: True while its Backup reports the last run Failed (after mariadb-operator's
 * retries of that run: one failed run, where the Builtin engine waits for two), False otherwise.
 */
export const operatorBackupsFailing = (params: {
  readonly children: ObjectMap | null | undefined;
  readonly namespace: string;
  readonly name: string;
  readonly previousStatus: unknown;
  readonly now: string;
}): Condition => {
  const names = databaseNames(params.name);
  const backup = findObject(params.children, GROUP_KEYS.mariadbBackup, params.namespace, names.mariadbBackup);
  const failing = failedRun(backup) !== undefined;
  const previous = findCondition(params.previousStatus, BACKUPS_FAILING);
  const since = failing
    ? previousTrueTime(params.previousStatus, BACKUPS_FAILING)
    : previous?.status === 'False'
      ? textOf(previous.lastTransitionTime)
      : undefined;
  const state = textOf(findCondition(backup?.['status'], 'Complete')?.message);
  return {
    type: BACKUPS_FAILING,
    status: failing ? 'True' : 'False',
    reason: failing ? 'BackupJobsFailed' : 'BackupsSucceeding',
    message: failing
      ? `mariadb-operator's Backup ${names.mariadbBackup} reports its last run Failed (after its retries); see the logs of its newest Job`
      : state !== undefined
        ? `mariadb-operator's Backup ${names.mariadbBackup} reports ${state}`
        : `waiting for mariadb-operator to report Backup ${names.mariadbBackup}`,
    lastTransitionTime: since ?? params.now,
  };
};

/**
 * Where a MariaDB with bootstrapFrom stands: restored, restoring (with what mariadb-operator says, when it says
 * something), or failed (the Restore's Job failed).
 */
export type OperatorRestoreState = { readonly state: 'restored' } | { readonly state: 'restoring'; readonly message?: string } | { readonly state: 'failed' };

export const operatorRestoreState = (mariadb: KubeObject | undefined, restore: KubeObject | undefined): OperatorRestoreState => {
  if (findCondition(mariadb?.['status'], 'BackupRestored')?.status === 'True') return { state: 'restored' };
  const complete = findCondition(restore?.['status'], 'Complete');
  if (complete?.status === 'True' && textOf(complete.reason) === 'JobFailed') return { state: 'failed' };
  const message = textOf(complete?.message) ?? textOf(findCondition(mariadb?.['status'], 'Ready')?.message);
  return message !== undefined ? { state: 'restoring', message } : { state: 'restoring' };
};
