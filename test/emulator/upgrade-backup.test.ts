/**
 * Backups of a managed database in the emulated cluster: the backup CronJob runs on schedule as the clock
 * moves, and a 37.0 → 38.0 upgrade first takes a backup (failed once, then taken again after its Job was
 * deleted) before the pre-upgrade Job, keeps it while the transition lasts, and deletes it with the other Jobs.
 * On a Galera database (deploy/overlays/mariadb-operator and mariadb-operator's stand-in) the same upgrade takes
 * a one-shot mariadb-operator Backup, whose Job (mariadb-operator's, named as the Backup) the test fails once.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAtOrEmpty, present } from '../support/paths.js';

const BACKUP = 'ironic-backup-37.0-to-38.0';
const PRE = 'ironic-pre-37.0-to-38.0';
const POST = 'ironic-post-37.0-to-38.0';

const jobs = (emulator: Emulator): string[] =>
  emulator
    .children('Ironic', 'ironic')
    .filter((c) => c.kind === 'Job')
    .map((c) => c.metadata.name)
    .sort();

const childWrites = async (emulator: Emulator): Promise<string[]> =>
  (await emulator.round()).writes
    .filter((w) => w.verb !== 'status' && w.object.startsWith('Job'))
    .map((w) => `${w.verb} ${w.object.replace('baremetal-operator-system/', '')}`);

const withSpec = (object: KubeResource, spec: Record<string, unknown>): KubeResource => ({ ...object, spec: { ...objAtOrEmpty(object, 'spec'), ...spec } });

/** The managed-database example with daily backups at 02:30, installed at 37.0. */
const installed = async (t: Test): Promise<{ emulator: Emulator; ironic: KubeResource }> => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const objects = emulator.apply(readFileSync('examples/managed-database.yaml', 'utf8'));
  emulator.apply(withSpec(present(objects.find((o) => o.kind === 'IronicDatabase')), { backup: { schedule: '30 2 * * *', retention: { count: 3 } } }));
  const ironic = withSpec(present(objects.find((o) => o.kind === 'Ironic')), { version: '37.0' });
  emulator.apply(ironic);
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable, 'installed at 37.0');
  return { emulator, ironic };
};

t.test('the backup CronJob runs on schedule as the clock moves, and the database reports it', async (t) => {
  const { emulator } = await installed(t);
  t.match(emulator.status('IronicDatabase', 'ironic-db'), { backup: { nextScheduleTime: '2026-01-01T02:30:00Z' } });
  const scheduled = `ironic-db-database-backup-${Date.parse('2026-01-01T02:30:00Z') / 60_000}`;
  t.notOk(emulator.get('Job', scheduled), 'no backup before its time');
  emulator.advance(2.5 * 3600);
  t.equal(emulator.runCronJobs(), 2, 'a Job, and the CronJob status');
  t.ok(emulator.get('Job', scheduled), 'the Job of 02:30, named by its minute');
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  t.match(emulator.status('IronicDatabase', 'ironic-db'), {
    backup: { lastScheduleTime: '2026-01-01T02:30:00Z', lastSuccessfulJob: scheduled, nextScheduleTime: '2026-01-02T02:30:00Z' },
  });
});

t.test('37.0 → 38.0: the backup first, held while it fails, then the upgrade; its Job goes with the others', async (t) => {
  const { emulator, ironic } = await installed(t);
  emulator.apply(withSpec(ironic, { version: '38.0' }));
  t.same(await childWrites(emulator), [`create Job ${BACKUP}`], '1. the backup Job, and no pre-upgrade Job yet');
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'False', message: /backing up IronicDatabase ironic-db before the upgrade from 37.0 to 38.0/ });
  t.match(emulator.status('Ironic', 'ironic'), { upgradeBackup: { kind: 'Job', name: BACKUP, state: 'Running' }, installedVersion: '37.0' });

  emulator.failJob(BACKUP);
  t.ok((await emulator.runUntilStable({ maxRounds: 4 })).stable);
  t.match(emulator.ready('Ironic', 'ironic'), {
    status: 'False',
    reason: 'DeploymentFailed',
    message: /the upgrade from 37.0 to 38.0 is held: the backup of IronicDatabase ironic-db before it failed/,
  });
  t.same(jobs(emulator), [BACKUP], '2. held: the failed Job is kept for its logs');
  t.match(emulator.status('IronicDatabase', 'ironic-db'), { backup: { lastFailureJob: BACKUP } }, 'the database counts it as one of its backups');

  emulator.delete('Job', BACKUP, 'baremetal-operator-system');
  t.same(await childWrites(emulator), [`create Job ${BACKUP}`], '3. deleted: the backup is taken again');
  emulator.completeJob(BACKUP);
  t.same(await childWrites(emulator), [`create Job ${PRE}`], '4. the backup succeeded: the pre-upgrade Job');
  t.match(emulator.status('Ironic', 'ironic'), { upgradeBackup: { kind: 'Job', name: BACKUP, state: 'Succeeded' } });

  emulator.completeJob(PRE);
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable, '5. the rollout and the post-upgrade Job');
  t.match(emulator.status('Ironic', 'ironic'), {
    installedVersion: '38.0',
    upgradeBackup: { kind: 'Job', name: BACKUP, state: 'Succeeded', toVersion: '38.0' },
  });
  t.same(jobs(emulator), [], 'every Job of the transition is deleted once it is over');
  t.notOk(emulator.get('Job', POST));
  t.match(emulator.status('IronicDatabase', 'ironic-db'), { backup: { lastSuccessfulJob: BACKUP, consecutiveFailures: 0 } }, 'a backup like the others');
});

/** The managed-database example on Galera with daily backups to the default claim, installed at 37.0. */
const installedOnGalera = async (t: Test): Promise<{ emulator: Emulator; ironic: KubeResource }> => {
  const emulator = await startEmulator({ overlay: 'mariadb-operator' });
  t.teardown(() => emulator.close());
  const objects = emulator.parse(readFileSync('examples/managed-database.yaml', 'utf8'));
  emulator.apply(
    withSpec(present(objects.find((o) => o.kind === 'IronicDatabase')), {
      engine: 'MariaDBOperator',
      backup: { schedule: '30 2 * * *', retention: { maxAge: '14d' } },
    }),
  );
  const ironic = withSpec(present(objects.find((o) => o.kind === 'Ironic')), { version: '37.0' });
  emulator.apply([...objects.filter((o) => o.kind !== 'IronicDatabase' && o.kind !== 'Ironic'), ironic]);
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable, 'installed at 37.0');
  return { emulator, ironic };
};

const backups = (emulator: Emulator): string[] =>
  emulator
    .children('Ironic', 'ironic')
    .filter((c) => c.kind === 'Backup')
    .map((c) => c.metadata.name);

t.test('37.0 → 38.0 on Galera: a one-shot mariadb-operator Backup first, held while it fails, then the upgrade', async (t) => {
  const { emulator, ironic } = await installedOnGalera(t);
  const namespace = present(emulator.get('Ironic', 'ironic')).metadata.namespace;
  emulator.apply(withSpec(ironic, { version: '38.0' }));
  const first = await emulator.round();
  t.same(
    first.writes.filter((w) => w.verb === 'create').map((w) => w.object.replace(`${namespace ?? ''}/`, '')),
    [`Backup ${BACKUP}`],
    "1. mariadb-operator's Backup, and no Job of the Ironic's",
  );
  t.same(jobs(emulator), []);
  const backup = present(emulator.get('Backup', BACKUP));
  t.match(backup['spec'], {
    mariaDbRef: { name: 'ironic-db-database' },
    maxRetention: '336h0m0s',
    storage: { volume: { persistentVolumeClaim: { claimName: 'ironic-db-database-backup' } } },
  });
  t.notOk(objAtOrEmpty(backup, 'spec')['schedule'], 'one-shot');
  t.match(emulator.status('Ironic', 'ironic'), { upgradeBackup: { kind: 'Backup', name: BACKUP, state: 'Running' }, installedVersion: '37.0' });

  // mariadb-operator starts its Job (named as the Backup), which fails after its retries.
  emulator.mariadbOperator.reconcile(emulator.cluster.store, emulator.now);
  t.ok(emulator.get('Job', BACKUP), "mariadb-operator's Job");
  await emulator.round();
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'False', message: new RegExp(`mariadb-operator's Backup ${BACKUP} reports Running`) });
  emulator.failJob(BACKUP);
  emulator.mariadbOperator.reconcile(emulator.cluster.store, emulator.now);
  t.ok((await emulator.runUntilStable({ maxRounds: 4 })).stable);
  t.match(emulator.ready('Ironic', 'ironic'), {
    status: 'False',
    reason: 'DeploymentFailed',
    message: new RegExp(
      `the upgrade from 37.0 to 38.0 is held: the backup of IronicDatabase ironic-db before it failed .*delete Backup ${BACKUP} to take the backup again`,
    ),
  });
  t.same(backups(emulator), [BACKUP], '2. held: the failed Backup is kept, with its Job for the logs');
  t.match(emulator.status('Ironic', 'ironic'), { upgradeBackup: { kind: 'Backup', state: 'Failed' }, installedVersion: '37.0' });

  // 3. Deleted (its Job with it): created again, and this time it completes; then the upgrade runs to its end.
  emulator.delete('Backup', BACKUP, namespace);
  t.notOk(emulator.get('Job', BACKUP), 'the Job goes with its Backup');
  await emulator.round();
  t.same(backups(emulator), [BACKUP], 'taken again');
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable, '4. the backup, the pre-upgrade Job, the rollout and the post-upgrade Job');
  t.match(emulator.status('Ironic', 'ironic'), {
    installedVersion: '38.0',
    upgradeBackup: { kind: 'Backup', name: BACKUP, state: 'Succeeded', toVersion: '38.0' },
  });
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
  t.ok(
    emulator.writes.some((w) => w.verb === 'create' && w.object === `Job ${namespace ?? ''}/${PRE}`),
    'the pre-upgrade Job ran',
  );
  t.same(backups(emulator), [], 'the one-shot Backup goes once the upgrade is over');
  t.same(jobs(emulator), []);
  t.notOk(emulator.get('Job', BACKUP), "and mariadb-operator's Job with it");
  t.ok(emulator.get('Backup', 'ironic-db-database-backup'), "the database's scheduled Backup stays");
});
