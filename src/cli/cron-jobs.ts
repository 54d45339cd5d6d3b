/**
 * A stand-in for Kubernetes' CronJob controller (pkg/controller/cronjob, cronjob_controllerv2.go) in the in-memory
 * cluster: as the cluster's clock moves, each CronJob starts a Job at the most recent of its scheduled times that
 * passed since its last one (or since its creation), named `<CronJob>-<minutes since the epoch>` as the controller
 * names them, and its status says when it last scheduled and last succeeded. The kubelet's stand-in (kubelet.ts)
 * then runs that Job like any other.
 * NOTE: time zones other than UTC, `suspend` history, events and the `active` list are not modelled; the
 * schedule is read by the same function as the IronicDatabase's status.backup.nextScheduleTime.
 */
import { nextRun } from '../api/shared/cron.js';
import { controllerRef, groupKeyOf, isRecord, objectKeyOf, type Json, type KubeResource } from './objects.js';
import type { ObjectStore } from './store.js';

const CRON_JOBS = 'CronJob.batch/v1';
const JOBS = 'Job.batch/v1';
/** The annotation the controller puts on each Job it starts: the scheduled time. */
export const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** How many scheduled times one reconcile walks at most (a clock moved by years on a minutely schedule stops there). */
const MAX_STEPS = 100_000;

const at = (value: unknown, ...path: readonly string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);
const textAt = (value: unknown, ...path: readonly string[]): string | undefined => {
  const found = at(value, ...path);
  return typeof found === 'string' && found !== '' ? found : undefined;
};
const numberAt = (value: unknown, fallback: number, ...path: readonly string[]): number => {
  const found = at(value, ...path);
  return typeof found === 'number' ? found : fallback;
};

const stringMap = (value: unknown): Record<string, string> =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

const conditionTrue = (job: KubeResource, type: string): boolean => {
  const conditions = at(job, 'status', 'conditions');
  return Array.isArray(conditions) && conditions.some((c) => isRecord(c) && c['type'] === type && c['status'] === 'True');
};

/** The most recent scheduled time after `since` and not after `now`, if any (getMostRecentScheduleTime). */
export const mostRecentSchedule = (schedule: string, since: string, now: string): string | undefined => {
  const end = Date.parse(now);
  let last: string | undefined;
  let next = nextRun(schedule, since);
  for (let steps = 0; next !== undefined && Date.parse(next) <= end && steps < MAX_STEPS; steps += 1) {
    last = next;
    next = nextRun(schedule, next);
  }
  return last;
};

/** The Jobs a CronJob owns (its controller), oldest first. */
const jobsOf = (store: ObjectStore, cronJob: KubeResource): KubeResource[] =>
  store
    .list(JOBS)
    .filter((j) => (j.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === cronJob.metadata.uid))
    .sort(
      (a, b) =>
        (textAt(a.metadata, 'creationTimestamp') ?? '').localeCompare(textAt(b.metadata, 'creationTimestamp') ?? '') ||
        a.metadata.name.localeCompare(b.metadata.name),
    );

const finished = (job: KubeResource): boolean => conditionTrue(job, 'Complete') || conditionTrue(job, 'Failed');

/** The Job a CronJob starts for the scheduled time `time` (getJobFromTemplate2). */
const jobFor = (cronJob: KubeResource, time: string): KubeResource => {
  const template = at(cronJob, 'spec', 'jobTemplate');
  const labels = stringMap(at(template, 'metadata', 'labels'));
  const annotations = stringMap(at(template, 'metadata', 'annotations'));
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${cronJob.metadata.name}-${Math.floor(Date.parse(time) / 60_000)}`,
      ...(cronJob.metadata.namespace !== undefined && { namespace: cronJob.metadata.namespace }),
      labels: { ...labels },
      annotations: { ...annotations, [SCHEDULED_TIMESTAMP]: time },
      ownerReferences: [controllerRef(cronJob)],
    },
    spec: structuredClone(at(template, 'spec') ?? {}),
  };
};

/** Deletes the oldest finished Jobs beyond the history limits (successful 3, failed 1 by default). */
const pruneHistory = (store: ObjectStore, cronJob: KubeResource): number => {
  const jobs = jobsOf(store, cronJob).filter(finished);
  const limits = { succeeded: numberAt(cronJob, 3, 'spec', 'successfulJobsHistoryLimit'), failed: numberAt(cronJob, 1, 'spec', 'failedJobsHistoryLimit') };
  const succeeded = jobs.filter((j) => conditionTrue(j, 'Complete'));
  const failed = jobs.filter((j) => conditionTrue(j, 'Failed'));
  const extra = [...succeeded.slice(0, Math.max(0, succeeded.length - limits.succeeded)), ...failed.slice(0, Math.max(0, failed.length - limits.failed))];
  extra.forEach((j) => store.delete(groupKeyOf(j), objectKeyOf(j)));
  return extra.length;
};

/** The status the CronJob reports: its last scheduled time and the completion of its newest successful Job. */
const statusOf = (store: ObjectStore, cronJob: KubeResource, lastSchedule: string | undefined): Json => {
  const successes = jobsOf(store, cronJob)
    .map((j) => textAt(j, 'status', 'completionTime'))
    .filter((t): t is string => t !== undefined)
    .sort();
  const lastSuccess = successes.at(-1) ?? textAt(cronJob, 'status', 'lastSuccessfulTime');
  return { ...(lastSchedule !== undefined && { lastScheduleTime: lastSchedule }), ...(lastSuccess !== undefined && { lastSuccessfulTime: lastSuccess }) };
};

/** What a reconcile did: how many writes, and the Jobs it started (`namespace/name`). */
export type CronJobsResult = { readonly writes: number; readonly started: readonly string[] };

/** One CronJob at `now`: a Job when a scheduled time is due (and allowed), its history pruned, its status. */
const reconcileOne = (store: ObjectStore, cronJob: KubeResource, now: string): CronJobsResult => {
  let writes = pruneHistory(store, cronJob);
  const started: string[] = [];
  const schedule = textAt(cronJob, 'spec', 'schedule') ?? '';
  const previous = textAt(cronJob, 'status', 'lastScheduleTime');
  const since = previous ?? textAt(cronJob.metadata, 'creationTimestamp') ?? now;
  const due = at(cronJob, 'spec', 'suspend') === true ? undefined : mostRecentSchedule(schedule, since, now);
  const deadline = at(cronJob, 'spec', 'startingDeadlineSeconds');
  const tooLate = due !== undefined && typeof deadline === 'number' && Date.parse(now) - Date.parse(due) > deadline * 1000;
  const running = jobsOf(store, cronJob).some((j) => !finished(j));
  const forbidden = running && at(cronJob, 'spec', 'concurrencyPolicy') === 'Forbid';
  const start = due !== undefined && !tooLate && !forbidden ? due : undefined;
  if (start !== undefined) {
    const job = jobFor(cronJob, start);
    if (store.get(JOBS, objectKeyOf(job)) === undefined) {
      store.create(job);
      started.push(objectKeyOf(job));
      writes += 1;
    }
  }
  const status = statusOf(store, cronJob, start ?? previous);
  if (JSON.stringify(status) !== JSON.stringify(cronJob['status'] ?? {})) {
    store.updateStatus(cronJob, status);
    writes += 1;
  }
  return { writes, started };
};

/** Every CronJob of the store at the clock's `now` (deleted ones excepted). */
export const reconcileCronJobs = (store: ObjectStore, now: string): CronJobsResult =>
  store
    .list(CRON_JOBS)
    .filter((c) => c.metadata.deletionTimestamp === undefined)
    .map((cronJob) => reconcileOne(store, cronJob, now))
    .reduce((all, one) => ({ writes: all.writes + one.writes, started: [...all.started, ...one.started] }), { writes: 0, started: [] });
