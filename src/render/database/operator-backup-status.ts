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
 * The schedule time of the CronJob's last run when that run is over without a success: it fired
 * (lastScheduleTime), no Job of it is active, and no success came at or after it. mariadb-operator reports such a
 * Backup `Scheduled` until its first success (pkg/condition/complete.go), however every run failed, so a Backup
 * that never worked (a bad bucket or credentials from day one) is found here. The CronJob controller updates
 * `active` and `lastSuccessfulTime` in one write when a Job ends, and `active` with `lastScheduleTime` when one starts.
 */
const unsucceededRun = (cronJob: KubeObject | undefined): string | undefined => {
  const scheduled = textOf(pathOf(cronJob, 'status', 'lastScheduleTime'));
  if (scheduled === undefined) return undefined;
  const active = pathOf(cronJob, 'status', 'active');
  if (Array.isArray(active) && active.length > 0) return undefined;
  const succeeded = textOf(pathOf(cronJob, 'status', 'lastSuccessfulTime'));
  return succeeded !== undefined && Date.parse(succeeded) >= Date.parse(scheduled) ? undefined : scheduled;
};

/** Where the last run stands: failed (with the schedule time of that run, when the CronJob tells it), or not. */
type LastRun = { readonly failed: false } | { readonly failed: true; readonly scheduled?: string; readonly reportedFailed: boolean };

const lastRun = (backup: KubeObject | undefined, cronJob: KubeObject | undefined): LastRun => {
  const reported = failedRun(backup);
  const unsucceeded = unsucceededRun(cronJob);
  if (reported === undefined && unsucceeded === undefined) return { failed: false };
  const scheduled = unsucceeded ?? textOf(pathOf(cronJob, 'status', 'lastScheduleTime')) ?? textOf(reported?.['lastTransitionTime']);
  return { failed: true, reportedFailed: reported !== undefined, ...(scheduled !== undefined && { scheduled }) };
};

/** Why the last run failed, and where its log is. */
const failureReason = (run: LastRun & { readonly failed: true }, name: string, namespace: string): string =>
  `${
    run.reportedFailed
      ? `mariadb-operator's Backup ${name} reports its last run Failed (after its retries)`
      : `mariadb-operator's Backup ${name} has had no success since its run${run.scheduled !== undefined ? ` scheduled at ${run.scheduled}` : ''} (it reports Scheduled until a first success, however the runs end)`
  }: kubectl -n ${namespace} logs job/<the newest Job of CronJob ${name}> says why`;

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
  const run = lastRun(backup, cronJob);
  // The time of the run that failed, not the time the Backup's condition last changed (it leaves Success once).
  const lastFailureTime = (run.failed ? run.scheduled : undefined) ?? previous.lastFailureTime;
  const lastFailureReason = run.failed ? failureReason(run, names.mariadbBackup, params.namespace) : previous.lastFailureReason;
  return {
    ...(lastScheduleTime !== undefined && { lastScheduleTime }),
    ...(lastSuccessfulTime !== undefined && { lastSuccessfulTime }),
    ...(lastFailureTime !== undefined && { lastFailureTime }),
    ...(lastFailureReason !== undefined && { lastFailureReason }),
  };
};

/**
 * BackupsFailing for a Galera database: True while its Backup reports the last run Failed (after mariadb-operator's
 * retries of that run: one failed run, where the Builtin engine waits for two), or while its CronJob's last run is
 * over without a success (a Backup that never succeeded), False otherwise.
 */
export const operatorBackupsFailing = (params: {
  readonly children: ObjectMap | null | undefined;
  readonly related: ObjectMap | null | undefined;
  readonly namespace: string;
  readonly name: string;
  readonly previousStatus: unknown;
  readonly now: string;
}): Condition => {
  const names = databaseNames(params.name);
  const backup = findObject(params.children, GROUP_KEYS.mariadbBackup, params.namespace, names.mariadbBackup);
  const run = lastRun(backup, findObject(params.related, GROUP_KEYS.cronJob, params.namespace, names.mariadbBackup));
  const failing = run.failed;
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
    message: run.failed
      ? failureReason(run, names.mariadbBackup, params.namespace)
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
