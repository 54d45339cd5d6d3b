/**
 * The backup status of an IronicDatabase, from the backup Jobs and pods its customize hook asks for: the last
 * success with its file, the last failure with the last line of its log, the failures in a row, and the
 * BackupsFailing condition after BACKUP_FAILURES_THRESHOLD of them; what the CronJob's history no longer shows
 * is carried over from the previous status.
 */
import t from 'tap';
import { BACKUP_FAILURES_THRESHOLD, backupStatus, backupsFailingCondition } from '../../src/render/database/backup-status.js';
import { customizeIronicDatabase, syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { syncRequest, testContext } from '../helpers/hooks.js';
import { ironicDatabase } from '../fixtures/database-scenarios.js';
import type { KubeObject, ObjectMap } from '../../src/api/shared/hook.js';

const labels = { 'ironic.metal3.io/database': 'ironic-db', 'ironic.metal3.io/component': 'backup' };

const job = (name: string, outcome: 'Complete' | 'Failed' | 'Running', time: string): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'metal3', labels },
  status:
    outcome === 'Running'
      ? { active: 1 }
      : {
          ...(outcome === 'Complete' && { completionTime: time }),
          conditions: [
            {
              type: outcome,
              status: 'True',
              lastTransitionTime: time,
              reason: outcome === 'Failed' ? 'BackoffLimitExceeded' : 'Completed',
              message: outcome === 'Failed' ? 'Job has reached the specified backoff limit' : '',
            },
          ],
        },
});

const pod = (jobName: string, message: string, finishedAt: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${jobName}-x${finishedAt.slice(17, 19)}`, namespace: 'metal3', labels: { ...labels, 'batch.kubernetes.io/job-name': jobName } },
  status: { containerStatuses: [{ name: 'backup', state: { terminated: { exitCode: 0, finishedAt, message } } }] },
});

const mapOf = (objects: readonly KubeObject[]): ObjectMap => {
  const out: Record<string, Record<string, KubeObject>> = {};
  for (const o of objects) {
    const group = `${o.kind}.${o.apiVersion}`;
    out[group] = { ...out[group], [`${o.metadata.namespace ?? ''}/${o.metadata.name}`]: o };
  }
  return out;
};

const statusOf = (objects: readonly KubeObject[], previousStatus: unknown = {}) =>
  backupStatus({ related: mapOf(objects), children: {}, namespace: 'metal3', name: 'ironic-db', schedule: '30 2 * * *', previousStatus });

t.test('the last success, the last failure and the failures since', async (t) => {
  const ok = job('ironic-db-database-backup-100', 'Complete', '2026-01-01T02:31:00Z');
  const okPod = pod('ironic-db-database-backup-100', 'ironic-20260101T023000Z.sql.gz', '2026-01-01T02:31:00Z');
  t.same(statusOf([ok, okPod]), {
    lastSuccessfulTime: '2026-01-01T02:31:00Z',
    lastSuccessfulJob: 'ironic-db-database-backup-100',
    lastBackup: 'ironic-20260101T023000Z.sql.gz',
    consecutiveFailures: 0,
  });
  const failed = job('ironic-db-database-backup-200', 'Failed', '2026-01-02T02:35:00Z');
  const failedPod = pod(
    'ironic-db-database-backup-200',
    "mariadb-dump: Got error: 1045: \"Access denied for user 'ironic'@'10.0.0.5'\"\n",
    '2026-01-02T02:34:00Z',
  );
  const one = statusOf([ok, okPod, failed, failedPod]);
  t.match(one, {
    lastBackup: 'ironic-20260101T023000Z.sql.gz',
    lastFailureJob: 'ironic-db-database-backup-200',
    lastFailureReason: /^mariadb-dump: Got error: 1045: "Access denied/,
    consecutiveFailures: 1,
  });
  t.match(backupsFailingCondition(one, {}, '2026-01-02T03:00:00Z'), { status: 'False', message: /^the last backup failed \(mariadb-dump: Got error/ });
  const again = job('ironic-db-database-backup-300', 'Failed', '2026-01-03T02:35:00Z');
  const two = statusOf([ok, okPod, failed, failedPod, again, job('ironic-db-database-backup-400', 'Running', '')]);
  t.match(
    two,
    {
      consecutiveFailures: 2,
      lastFailureJob: 'ironic-db-database-backup-300',
      lastFailureReason: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
    },
    'without a pod message, the Job condition says why',
  );
  const condition = backupsFailingCondition(two, {}, '2026-01-03T03:00:00Z');
  t.equal(BACKUP_FAILURES_THRESHOLD, 2);
  t.match(condition, {
    type: 'BackupsFailing',
    status: 'True',
    reason: 'BackupJobsFailed',
    message: /^the last 2 backups failed .*the newest good backup is ironic-20260101T023000Z\.sql\.gz$/,
    lastTransitionTime: '2026-01-03T03:00:00Z',
  });
  t.equal(
    backupsFailingCondition(two, { conditions: [condition] }, '2026-01-04T00:00:00Z').lastTransitionTime,
    '2026-01-03T03:00:00Z',
    'the transition time stays',
  );
  const recovered = statusOf([failed, again, job('ironic-db-database-backup-500', 'Complete', '2026-01-04T02:31:00Z')], { backup: two });
  t.match(recovered, { consecutiveFailures: 0, lastSuccessfulJob: 'ironic-db-database-backup-500', lastFailureJob: 'ironic-db-database-backup-300' });
  t.notOk('lastBackup' in recovered, 'a success without its file name does not claim the old file');
});

t.test("what the history no longer shows is carried over, and other databases' Jobs are ignored", async (t) => {
  const previous = {
    backup: {
      lastSuccessfulTime: '2026-01-01T02:31:00Z',
      lastBackup: 'ironic-20260101T023000Z.sql.gz',
      lastFailureTime: '2026-01-05T02:35:00Z',
      consecutiveFailures: 3,
    },
  };
  t.same(statusOf([], previous), { ...previous.backup });
  const other = {
    ...job('other-database-backup-1', 'Failed', '2026-01-06T00:00:00Z'),
    metadata: { name: 'other-database-backup-1', namespace: 'metal3', labels: { ...labels, 'ironic.metal3.io/database': 'other' } },
  };
  t.same(statusOf([other]), { consecutiveFailures: 0 });
});

t.test('customize asks for the backup Jobs and pods by label, only when backups are configured', async (t) => {
  const rules = customizeIronicDatabase({ parent: ironicDatabase({ backup: { schedule: '@daily' } }) } as Parameters<
    typeof customizeIronicDatabase
  >[0]).relatedResources;
  t.match(
    rules.filter((r) => r.labelSelector !== undefined),
    [
      {
        apiVersion: 'batch/v1',
        resource: 'jobs',
        namespace: 'metal3',
        labelSelector: {
          matchLabels: { 'ironic.metal3.io/database': 'ironic-db' },
          matchExpressions: [{ key: 'ironic.metal3.io/component', operator: 'In', values: ['backup'] }],
        },
      },
      {
        apiVersion: 'v1',
        resource: 'pods',
        namespace: 'metal3',
        labelSelector: {
          matchLabels: { 'ironic.metal3.io/database': 'ironic-db' },
          matchExpressions: [{ key: 'ironic.metal3.io/component', operator: 'In', values: ['backup'] }],
        },
      },
    ],
  );
  t.ok(
    rules.some((r) => r.resource === 'cronjobs' && r.names?.includes('ironic-db-database-backup')),
    'and the names its backup children take, to find objects in the way',
  );
  const none = customizeIronicDatabase({ parent: ironicDatabase({}) } as Parameters<typeof customizeIronicDatabase>[0]).relatedResources;
  t.notOk(none.some((r) => r.labelSelector !== undefined));
});

t.test('the sync reports the backups, and keeps the last status when the spec turns invalid', async (t) => {
  const related = mapOf([
    job('ironic-db-database-backup-1', 'Failed', '2026-01-01T00:00:00Z'),
    job('ironic-db-database-backup-2', 'Failed', '2026-01-01T01:00:00Z'),
  ]);
  const response = syncIronicDatabase(syncRequest({ parent: ironicDatabase({ backup: { schedule: '@hourly' } }), children: {}, related }), testContext());
  t.match(response.status, { backup: { consecutiveFailures: 2 }, conditions: [{ type: 'Ready' }, { type: 'BackupsFailing', status: 'True' }] });
  const invalid = syncIronicDatabase(
    syncRequest({ parent: { ...ironicDatabase({ backup: { schedule: 'never' } }), status: response.status }, children: {}, related }),
    testContext(),
  );
  t.match(invalid.status, { backup: { consecutiveFailures: 2 }, conditions: [{ type: 'Ready', status: 'False' }] });
});

const cronJob = (status: Record<string, unknown>): ObjectMap => {
  const metadata = { name: 'ironic-db-database-backup', namespace: 'metal3', creationTimestamp: '2026-01-01T00:10:00Z' };
  return { 'CronJob.batch/v1': { 'metal3/ironic-db-database-backup': { apiVersion: 'batch/v1', kind: 'CronJob', metadata, status } } };
};

t.test('the next run: from the schedule and the last run, or the creation before any; none without the CronJob', async (t) => {
  const next = (schedule: string, children: ObjectMap): string | undefined =>
    backupStatus({ related: {}, children, namespace: 'metal3', name: 'ironic-db', schedule, previousStatus: {} }).nextScheduleTime;
  t.equal(next('30 2 * * *', cronJob({})), '2026-01-01T02:30:00Z', 'after the creation');
  t.equal(next('30 2 * * *', cronJob({ lastScheduleTime: '2026-01-03T02:30:00Z' })), '2026-01-04T02:30:00Z', 'after the last run');
  t.equal(next('@hourly', cronJob({ lastScheduleTime: '2026-01-03T02:00:00Z' })), '2026-01-03T03:00:00Z');
  t.equal(next('@midnight', cronJob({})), '2026-01-02T00:00:00Z', "the controller's @midnight");
  t.equal(next('0 6 * * mon-fri', cronJob({ lastScheduleTime: '2026-01-02T06:00:00Z' })), '2026-01-05T06:00:00Z', 'Friday to Monday');
  t.equal(next('0 0 13 * fri', cronJob({})), '2026-01-02T00:00:00Z', 'day of month or day of week, as cron');
  t.equal(next('30 2 * * *', {}), undefined, 'the CronJob is not observed yet');
  t.equal(next('0 0 31 2 *', cronJob({})), undefined, 'a schedule that never runs');
  const previous = { backup: { nextScheduleTime: '2026-01-01T02:30:00Z', lastBackup: 'ironic-20251231T023000Z.sql.gz' } };
  const kept = syncIronicDatabase(syncRequest({ parent: { ...ironicDatabase({}), status: previous }, children: {}, related: {} }), testContext());
  t.same(kept.status['backup'], { lastBackup: 'ironic-20251231T023000Z.sql.gz' }, 'backups removed: the last backup stays, the next run goes');
});

t.test('the size of the last backup, from its termination message', async (t) => {
  const ok = job('ironic-db-database-backup-100', 'Complete', '2026-01-01T02:31:00Z');
  const withSize = statusOf([ok, pod('ironic-db-database-backup-100', 'ironic-20260101T023000Z.sql.gz 48213', '2026-01-01T02:31:00Z')]);
  t.match(withSize, { lastBackup: 'ironic-20260101T023000Z.sql.gz', lastBackupBytes: 48213 });
  const older = statusOf([ok, pod('ironic-db-database-backup-100', 'ironic-20260101T023000Z.sql.gz', '2026-01-01T02:31:00Z')]);
  t.equal(older.lastBackup, 'ironic-20260101T023000Z.sql.gz', 'a message with the file only still names it');
  t.notOk('lastBackupBytes' in older);
  t.notOk('lastBackup' in statusOf([ok, pod('ironic-db-database-backup-100', 'not-a-backup 12', '2026-01-01T02:31:00Z')]));
  t.equal(statusOf([], { backup: withSize }).lastBackupBytes, 48213, 'carried over once the Job is gone');
});
