/**
 * The CronJob controller's stand-in of the in-memory cluster: Jobs at the scheduled times as the clock moves,
 * named as Kubernetes names them, one at a time with Forbid, none past the starting deadline, the history pruned.
 */
import t from 'tap';
import { mostRecentSchedule, reconcileCronJobs, SCHEDULED_TIMESTAMP } from '../../src/cli/cron-jobs.js';
import { ObjectStore } from '../../src/cli/store.js';
import { completeJobStatus, failedJobStatus } from '../../src/cli/kubelet.js';
import type { KubeResource } from '../../src/cli/objects.js';

const cronJob = (spec: Record<string, unknown>): KubeResource => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'backup', namespace: 'metal3' },
  spec: {
    schedule: '@hourly',
    jobTemplate: { metadata: { labels: { component: 'backup' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } },
    ...spec,
  },
});

/** A store whose clock the test moves, with the CronJob created at 00:10. */
const scene = (spec: Record<string, unknown> = {}) => {
  let now = '2026-01-01T00:10:00Z';
  const store = new ObjectStore(() => now);
  store.create(cronJob(spec));
  return {
    store,
    at: (time: string) => {
      now = time;
      return reconcileCronJobs(store, time);
    },
    jobs: () => store.list('Job.batch/v1').map((j) => j.metadata.name),
    cronStatus: () => store.get('CronJob.batch/v1', 'metal3/backup')?.['status'],
    finish: (name: string, how: 'Complete' | 'Failed', time: string) => {
      const job = store.get('Job.batch/v1', `metal3/${name}`);
      if (job === undefined) throw new Error(`no Job ${name}`);
      store.updateStatus(job, how === 'Complete' ? completeJobStatus(time) : failedJobStatus(time));
    },
  };
};

const minutes = (time: string): number => Date.parse(time) / 60_000;

t.test('the most recent scheduled time in a window', async (t) => {
  t.equal(mostRecentSchedule('@hourly', '2026-01-01T00:10:00Z', '2026-01-01T00:59:00Z'), undefined);
  t.equal(mostRecentSchedule('@hourly', '2026-01-01T00:10:00Z', '2026-01-01T01:00:00Z'), '2026-01-01T01:00:00Z', 'the end is included');
  t.equal(mostRecentSchedule('@hourly', '2026-01-01T00:10:00Z', '2026-01-01T03:20:00Z'), '2026-01-01T03:00:00Z', 'missed runs: only the latest');
  t.equal(mostRecentSchedule('30 2 * * *', '2026-01-01T02:30:00Z', '2026-01-02T02:29:00Z'), undefined, 'the start is excluded');
});

t.test('a Job at each scheduled time as the clock moves, from the template, owned by the CronJob', async (t) => {
  const s = scene();
  t.same(s.at('2026-01-01T00:50:00Z'), { writes: 0, started: [] }, 'nothing before the first scheduled time');
  t.notOk(s.cronStatus(), 'no status yet');
  const first = `backup-${minutes('2026-01-01T01:00:00Z')}`;
  t.same(s.at('2026-01-01T01:00:30Z').started, [`metal3/${first}`]);
  const job = s.store.get('Job.batch/v1', `metal3/${first}`);
  t.match(job, {
    metadata: {
      labels: { component: 'backup' },
      annotations: { [SCHEDULED_TIMESTAMP]: '2026-01-01T01:00:00Z' },
      ownerReferences: [{ kind: 'CronJob', name: 'backup', controller: true }],
    },
    spec: { template: { spec: { containers: [{ name: 'c' }] } } },
  });
  t.same(s.cronStatus(), { lastScheduleTime: '2026-01-01T01:00:00Z' });
  t.same(s.at('2026-01-01T01:30:00Z').started, [], 'one Job per scheduled time');
  s.finish(first, 'Complete', '2026-01-01T01:02:00Z');
  s.at('2026-01-01T01:40:00Z');
  t.same(s.cronStatus(), { lastScheduleTime: '2026-01-01T01:00:00Z', lastSuccessfulTime: '2026-01-01T01:02:00Z' });
  t.same(s.at('2026-01-01T02:00:00Z').started, [`metal3/backup-${minutes('2026-01-01T02:00:00Z')}`]);
});

t.test('Forbid: no second Job while one runs; the starting deadline skips a run too late', async (t) => {
  const s = scene({ concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 600 });
  s.at('2026-01-01T01:00:00Z');
  t.same(s.at('2026-01-01T02:00:00Z').started, [], 'the 01:00 Job still runs');
  t.same(s.cronStatus(), { lastScheduleTime: '2026-01-01T01:00:00Z' });
  s.finish(`backup-${minutes('2026-01-01T01:00:00Z')}`, 'Complete', '2026-01-01T02:01:00Z');
  t.same(s.at('2026-01-01T02:05:00Z').started, [`metal3/backup-${minutes('2026-01-01T02:00:00Z')}`], 'started late, within the deadline');
  s.finish(`backup-${minutes('2026-01-01T02:00:00Z')}`, 'Complete', '2026-01-01T02:06:00Z');
  t.same(s.at('2026-01-01T03:20:00Z').started, [], '03:00 is more than 600 s ago');
  t.same(s.at('2026-01-01T04:00:00Z').started, [`metal3/backup-${minutes('2026-01-01T04:00:00Z')}`]);
});

t.test('the history keeps the newest finished Jobs up to the limits; a suspended CronJob starts none', async (t) => {
  const s = scene({ successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 });
  for (const [hour, how] of [
    ['01', 'Complete'],
    ['02', 'Failed'],
    ['03', 'Complete'],
    ['04', 'Failed'],
    ['05', 'Complete'],
  ] as const) {
    s.at(`2026-01-01T${hour}:00:00Z`);
    s.finish(`backup-${minutes(`2026-01-01T${hour}:00:00Z`)}`, how, `2026-01-01T${hour}:01:00Z`);
  }
  s.at('2026-01-01T05:30:00Z');
  t.same(s.jobs().sort(), ['03', '04', '05'].map((h) => `backup-${minutes(`2026-01-01T${h}:00:00Z`)}`).sort());
  const suspended = scene({ suspend: true });
  t.same(suspended.at('2026-01-01T05:00:00Z').started, []);
});
