/**
 * The backup status of a Builtin IronicDatabase, from what its sync observes: the backup Jobs of its CronJob and
 * their pods (customize asks for both by label: they belong to the CronJob, not to the IronicDatabase) and the
 * CronJob's own status. A backup pod writes the name of its file as its termination message; a failed one ends
 * with the tail of its log (terminationMessagePolicy FallbackToLogsOnError), which is the failure's reason.
 * What is no longer observed (Jobs beyond the CronJob's history) is carried over from the previous status. The
 * next run is worked out from the schedule and the CronJob's last run (or its creation), never from a clock.
 */
import type { KubeObject, ObjectMap } from '../../api/shared/hook.js';
import type { Condition } from '../../api/shared/common.js';
import type { DatabaseBackupStatus } from './status.js';
import { findCondition, previousTrueTime } from '../status.js';
import { isRecord, objectsOf, pathOf, textOf } from '../observed.js';
import { databaseNames, LABELS, labelValue } from '../names.js';
import { BACKUP_FILE_PATTERN } from './backup.js';
import { optionalFields } from '../../api/shared/fields.js';
import { nextRun } from '../../api/shared/cron.js';

/** Consecutive failed backup runs (each after its retries) that make the BackupsFailing condition True. */
export const BACKUP_FAILURES_THRESHOLD = 2;
export const BACKUPS_FAILING = 'BackupsFailing';
const JOBS = 'Job.batch/v1';
const PODS = 'Pod.v1';

type Run = { readonly job: string; readonly succeeded: boolean; readonly time: string; readonly message?: string };

/** The termination message of the backup container of a Job's newest finished pod. */
const podMessage = (pods: readonly KubeObject[], job: string): string | undefined => {
  const messages = pods
    .filter((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job || p.metadata.labels?.['job-name'] === job)
    .flatMap((p) => {
      const statuses = pathOf(p, 'status', 'containerStatuses');
      return Array.isArray(statuses) ? statuses.filter(isRecord) : [];
    })
    .map((s) => ({ at: textOf(pathOf(s, 'state', 'terminated', 'finishedAt')) ?? '', message: textOf(pathOf(s, 'state', 'terminated', 'message'))?.trim() }))
    .filter((m): m is { at: string; message: string } => m.message !== undefined && m.message !== '')
    .sort((a, b) => a.at.localeCompare(b.at));
  return messages.at(-1)?.message;
};

/** The termination message of the newest finished pod of a Job among the related pods (backup or restore). */
export const jobPodMessage = (related: ObjectMap | null | undefined, namespace: string, job: string): string | undefined =>
  podMessage(
    objectsOf(related, PODS).filter((p) => p.metadata.namespace === namespace),
    job,
  );

/** A successful backup's termination message: its file, then its size in bytes (older runs wrote the file only). */
const SUCCESS_MESSAGE = /^(\S+)(?: ([0-9]{1,15}))?$/;

/** The file and the size of a successful backup from its termination message, when it names a backup file. */
export const backupOfMessage = (message: string | undefined): { readonly file: string; readonly bytes?: number } | undefined => {
  const match = SUCCESS_MESSAGE.exec(message ?? '');
  const file = match?.[1];
  if (file === undefined || !BACKUP_FILE_PATTERN.test(file)) return undefined;
  const bytes = match?.[2];
  return { file, ...(bytes !== undefined && { bytes: Number(bytes) }) };
};

/** The last line of a log tail, short enough for a status field. */
export const reasonOf = (message: string): string =>
  (
    message
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? message
  ).slice(0, 500);

/** The finished runs among the observed Jobs, oldest first. */
const finishedRuns = (related: ObjectMap | null | undefined, namespace: string, name: string): Run[] => {
  const selected = (o: KubeObject): boolean =>
    o.metadata.namespace === namespace && o.metadata.labels?.[LABELS.database] === labelValue(name) && o.metadata.labels[LABELS.component] === 'backup';
  const pods = objectsOf(related, PODS).filter(selected);
  return objectsOf(related, JOBS)
    .filter(selected)
    .flatMap((job): Run[] => {
      const complete = findCondition(job['status'], 'Complete');
      const failed = findCondition(job['status'], 'Failed');
      const message = podMessage(pods, job.metadata.name);
      if (complete?.status === 'True') {
        const time = textOf(pathOf(job, 'status', 'completionTime')) ?? textOf(complete.lastTransitionTime) ?? '';
        return [{ job: job.metadata.name, succeeded: true, time, ...(message !== undefined && { message }) }];
      }
      if (failed?.status === 'True') {
        const why = message ?? [textOf(failed.reason), textOf(failed.message)].filter((w) => w !== undefined).join(': ');
        return [{ job: job.metadata.name, succeeded: false, time: textOf(failed.lastTransitionTime) ?? '', message: why }];
      }
      return [];
    })
    .sort((a, b) => a.time.localeCompare(b.time) || a.job.localeCompare(b.job));
};

const TEXT_FIELDS = [
  'lastScheduleTime',
  'lastSuccessfulTime',
  'lastSuccessfulJob',
  'lastBackup',
  'lastFailureTime',
  'lastFailureJob',
  'lastFailureReason',
] as const;

/**
 * The backup status of the previous status, field by field (anything of another type is dropped); undefined when
 * there is none. The next run is not carried: it is worked out anew, and there is none once backups stop.
 */
export const previousBackup = (previousStatus: unknown): DatabaseBackupStatus | undefined => {
  const backup = pathOf(previousStatus, 'backup');
  if (!isRecord(backup)) return undefined;
  const count = (key: string): number | undefined => {
    const value = backup[key];
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
  };
  const failures = count('consecutiveFailures');
  const bytes = count('lastBackupBytes');
  return {
    ...optionalFields(Object.fromEntries(TEXT_FIELDS.map((key) => [key, textOf(backup[key])]))),
    ...(bytes !== undefined && { lastBackupBytes: bytes }),
    ...(failures !== undefined && { consecutiveFailures: failures }),
  };
};

/**
 * The backup status: the last success (time, Job, file) and the last failure (time, Job, reason), each the newest
 * of what is observed and what the previous status said, and the failures since the last success.
 */
export const backupStatus = (params: {
  readonly related: ObjectMap | null | undefined;
  readonly children: ObjectMap | null | undefined;
  readonly namespace: string;
  readonly name: string;
  /** The schedule of spec.backup, for the next run. */
  readonly schedule: string;
  readonly previousStatus: unknown;
}): DatabaseBackupStatus => {
  const previous = previousBackup(params.previousStatus) ?? {};
  const runs = finishedRuns(params.related, params.namespace, params.name);
  const cronJob = objectsOf(params.children, 'CronJob.batch/v1').find((c) => c.metadata.name === databaseNames(params.name).backupCronJob);
  const lastSuccess = runs.filter((r) => r.succeeded).at(-1);
  const lastFailure = runs.filter((r) => !r.succeeded).at(-1);
  const cronSuccess = textOf(pathOf(cronJob, 'status', 'lastSuccessfulTime'));
  const written = backupOfMessage(lastSuccess?.message);
  const success =
    lastSuccess !== undefined && lastSuccess.time >= (previous.lastSuccessfulTime ?? '')
      ? {
          lastSuccessfulTime: lastSuccess.time,
          lastSuccessfulJob: lastSuccess.job,
          ...(written !== undefined && { lastBackup: written.file }),
          ...(written?.bytes !== undefined && { lastBackupBytes: written.bytes }),
        }
      : {
          ...optionalFields({ lastSuccessfulTime: previous.lastSuccessfulTime ?? cronSuccess }),
          ...(previous.lastSuccessfulJob !== undefined && { lastSuccessfulJob: previous.lastSuccessfulJob }),
          ...(previous.lastBackup !== undefined && { lastBackup: previous.lastBackup }),
          ...(previous.lastBackupBytes !== undefined && { lastBackupBytes: previous.lastBackupBytes }),
        };
  const failure =
    lastFailure !== undefined && lastFailure.time >= (previous.lastFailureTime ?? '')
      ? { lastFailureTime: lastFailure.time, lastFailureJob: lastFailure.job, lastFailureReason: reasonOf(lastFailure.message ?? 'the backup Job failed') }
      : {
          ...(previous.lastFailureTime !== undefined && { lastFailureTime: previous.lastFailureTime }),
          ...(previous.lastFailureJob !== undefined && { lastFailureJob: previous.lastFailureJob }),
          ...(previous.lastFailureReason !== undefined && { lastFailureReason: previous.lastFailureReason }),
        };
  const successSince = success.lastSuccessfulTime ?? '';
  const observedFailures = runs.filter((r) => !r.succeeded && r.time > successSince).length;
  // Jobs beyond the history limit are gone: never count fewer failures than before unless a success came since.
  const carried = (previous.lastSuccessfulTime ?? '') === successSince ? (previous.consecutiveFailures ?? 0) : 0;
  const lastSchedule = textOf(pathOf(cronJob, 'status', 'lastScheduleTime')) ?? previous.lastScheduleTime;
  // As the CronJob controller: the first run after the last one, or after the CronJob's creation before any.
  const since = lastSchedule ?? textOf(pathOf(cronJob, 'metadata', 'creationTimestamp'));
  const next = cronJob !== undefined && since !== undefined ? nextRun(params.schedule, since) : undefined;
  return {
    ...(lastSchedule !== undefined && { lastScheduleTime: lastSchedule }),
    ...(next !== undefined && { nextScheduleTime: next }),
    ...success,
    ...failure,
    consecutiveFailures: Math.max(observedFailures, carried),
  };
};

/** The BackupsFailing condition: True after BACKUP_FAILURES_THRESHOLD failed runs in a row, with the last reason. */
export const backupsFailingCondition = (backup: DatabaseBackupStatus, previousStatus: unknown, now: string): Condition => {
  const failures = backup.consecutiveFailures ?? 0;
  const failing = failures >= BACKUP_FAILURES_THRESHOLD;
  const previous = findCondition(previousStatus, BACKUPS_FAILING);
  const sameStatus = previous?.status === (failing ? 'True' : 'False');
  const since = failing ? previousTrueTime(previousStatus, BACKUPS_FAILING) : sameStatus ? textOf(previous.lastTransitionTime) : undefined;
  return {
    type: BACKUPS_FAILING,
    status: failing ? 'True' : 'False',
    reason: failing ? 'BackupJobsFailed' : 'BackupsSucceeding',
    message: failing
      ? `the last ${failures} backups failed (Job ${backup.lastFailureJob ?? 'unknown'}): ${backup.lastFailureReason ?? 'see the Job log'}; the newest good backup is ${backup.lastBackup ?? 'none'}`
      : failures > 0
        ? `the last backup failed (${backup.lastFailureReason ?? 'see the Job log'}); ${BACKUP_FAILURES_THRESHOLD} failures in a row make this condition True`
        : backup.lastSuccessfulTime !== undefined
          ? `the last backup succeeded at ${backup.lastSuccessfulTime}`
          : 'no backup has run yet',
    lastTransitionTime: since ?? now,
  };
};
