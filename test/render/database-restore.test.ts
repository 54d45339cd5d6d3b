/**
 * spec.restoreFrom of a new Builtin IronicDatabase: the restore Job starts once MariaDB is up, the database is
 * Ready only after it completed (so the Ironics using it wait and never migrate an empty schema), a failed restore
 * is Ready=False with the end of its log, and once restored it never runs again. The restore script itself runs
 * against a real MariaDB in database-backup.test.ts.
 */
import t from 'tap';
import { syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { RESTORE_SCRIPT } from '../../src/render/database/backup.js';
import { syncRequest, testContext, type Obj } from '../helpers/hooks.js';
import { ironicDatabase, readyStatefulSet } from '../fixtures/database-scenarios.js';
import { related } from '../fixtures/ironic-scenarios.js';
import { childOf } from '../helpers/render.js';
import { observeAll, validateK8s } from '../helpers/k8s.js';
import { objAt, listAt, present } from '../support/paths.js';
import { validateIronicDatabase } from '../../src/api/ironic-database/validate.js';

const SPEC = { restoreFrom: { backup: 'latest', claimName: 'old-backups' } };
type Children = Record<string, Record<string, Obj>>;

const sync = (children: Children, rel: Obj[] = [], status?: Obj) =>
  syncIronicDatabase(syncRequest({ parent: ironicDatabase(SPEC, status !== undefined ? { status } : {}), children, related: related(...rel) }), testContext());

const readyOf = (status: unknown): Obj => objAt(listAt(status, 'conditions').find((c) => objAt(c)['type'] === 'Ready'));

const jobStatus = (outcome: 'Complete' | 'Failed' | 'Running'): Obj =>
  outcome === 'Running'
    ? { active: 1 }
    : {
        conditions: [{ type: outcome, status: 'True', reason: outcome === 'Failed' ? 'BackoffLimitExceeded' : 'Completed', message: 'Job finished' }],
        ...(outcome === 'Complete' && { completionTime: '2026-01-01T00:05:00Z' }),
      };

const restorePod = (message: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'ironic-db-database-restore-abcde',
    namespace: 'metal3',
    labels: { 'ironic.metal3.io/database': 'ironic-db', 'ironic.metal3.io/component': 'restore', 'batch.kubernetes.io/job-name': 'ironic-db-database-restore' },
  },
  status: { containerStatuses: [{ name: 'restore', state: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:04:00Z', message } } }] },
});

/** The children as observed, the StatefulSet ready and the restore Job (if any) in the given state. */
const observed = (children: readonly unknown[], job: 'Complete' | 'Failed' | 'Running' = 'Running'): Children =>
  observeAll(
    children.map((c) => objAt(c)),
    {},
    (o) => (o['kind'] === 'StatefulSet' ? readyStatefulSet(o) : o['kind'] === 'Job' ? jobStatus(job) : undefined),
  );

t.test('restoreFrom: validated, each engine with the files it writes', async (t) => {
  t.same(validateIronicDatabase(SPEC), []);
  t.same(validateIronicDatabase({ restoreFrom: { backup: 'ironic-20260101T023000Z.sql.gz' } }), []);
  t.match(validateIronicDatabase({ restoreFrom: { backup: '../etc/passwd' } }), [{ path: 'spec.restoreFrom.backup' }]);
  t.same(validateIronicDatabase({ engine: 'MariaDBOperator', restoreFrom: { backup: 'latest' } }), []);
  t.match(validateIronicDatabase({ engine: 'MariaDBOperator', restoreFrom: { backup: 'ironic-20260101T023000Z.sql.gz' } }), [
    { path: 'spec.restoreFrom.backup', message: /is a file of a Builtin backup/ },
  ]);
});

t.test('the restore waits for MariaDB, runs, and holds Ready until it completed', async (t) => {
  const first = sync({});
  t.equal(childOf(first.children, 'Job'), undefined, 'no restore before MariaDB runs');
  t.match(readyOf(first.status), { status: 'False', message: /then backup latest of claim old-backups is restored before the database is Ready$/ });

  const running = sync(observed(first.children));
  const job = present(childOf(running.children, 'Job'));
  t.doesNotThrow(() => validateK8s(objAt(job)));
  const pod = objAt(job, 'spec', 'template', 'spec');
  const container = objAt(listAt(pod, 'containers')[0]);
  t.same(container['command'], ['bash', '-c', RESTORE_SCRIPT, 'restore-database']);
  t.match(container['env'], [
    { name: 'DATABASE_HOST', value: 'ironic-db-database.metal3.svc' },
    { name: 'DATABASE_PORT' },
    { name: 'RESTORE_FROM', value: 'latest' },
  ]);
  t.match(listAt(pod, 'volumes'), [{ name: 'credentials' }, { name: 'backups', persistentVolumeClaim: { claimName: 'old-backups', readOnly: true } }]);
  t.match(readyOf(running.status), { status: 'False', message: /^restoring backup latest of claim old-backups/ });

  const withJob = observed(running.children, 'Running');
  t.match(readyOf(sync(withJob).status), {
    status: 'False',
    message: 'restoring backup latest of claim old-backups: Job ironic-db-database-restore is running',
  });

  const failed = sync(observed(running.children, 'Failed'), [
    restorePod(
      'restoring ironic-20260101T023000Z.sql.gz\nrestore failed: ironic-20260101T023000Z.sql.gz is corrupt (not a complete gzip file); nothing was changed\n',
    ),
  ]);
  t.match(readyOf(failed.status), {
    status: 'False',
    reason: 'DatabaseFailed',
    message:
      /^restoring backup latest of claim old-backups failed: restore failed: ironic-20260101T023000Z\.sql\.gz is corrupt .*delete Job ironic-db-database-restore to run the restore again$/,
  });
  t.notOk('restoredFrom' in objAt(failed.status), 'not restored');

  const done = sync(observed(running.children, 'Complete'), [restorePod('ironic-20260101T023000Z.sql.gz')]);
  t.match(readyOf(done.status), { status: 'True' });
  t.equal(objAt(done.status)['restoredFrom'], 'ironic-20260101T023000Z.sql.gz', 'the file latest was');

  const afterwards = observed(running.children.filter((c) => objAt(c)['kind'] !== 'Job'));
  const later = sync(afterwards, [], { restoredFrom: 'ironic-20260101T023000Z.sql.gz' });
  t.equal(childOf(later.children, 'Job'), undefined, 'a deleted restore Job is never created again: it would overwrite the rows written since');
  t.match(readyOf(later.status), { status: 'True' });
  t.equal(objAt(later.status)['restoredFrom'], 'ironic-20260101T023000Z.sql.gz');
});

t.test('restoreFrom added to a database that has been Ready: refused, nothing replayed over its rows', async (t) => {
  const first = sync({});
  const status = { conditions: [{ type: 'Ready', status: 'True', reason: 'DatabaseAvailable', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  const response = sync(observed(first.children), [], status);
  t.equal(childOf(response.children, 'Job'), undefined, 'no restore Job');
  t.ok(childOf(response.children, 'StatefulSet'), 'the database itself is kept');
  t.match(readyOf(response.status), {
    status: 'False',
    message: /^restoreFrom applies only to a new IronicDatabase, and this one has been Ready .*remove restoreFrom, or restore into a new IronicDatabase$/,
  });
});

t.test('the backup schedule is suspended until the restore is recorded', async (t) => {
  const withBackup = (status?: Obj) =>
    syncIronicDatabase(
      syncRequest({
        parent: ironicDatabase({ ...SPEC, backup: { schedule: '@daily' } }, status !== undefined ? { status } : {}),
        children: {},
        related: related(),
      }),
      testContext(),
    );
  t.match(objAt(childOf(withBackup().children, 'CronJob'), 'spec'), { suspend: true }, 'no backup of the empty schema while restoring');
  const after = objAt(childOf(withBackup({ restoredFrom: 'ironic-20260101T023000Z.sql.gz' }).children, 'CronJob'), 'spec');
  t.notOk('suspend' in after, 'scheduled once restored');
});
