/**
 * A Galera IronicDatabase with backups and a restore in the emulated cluster (deploy/overlays/mariadb-operator and
 * the mariadb-operator stand-in): the new cluster runs, then the hooks' own Restore fills it; the database is Ready,
 * and its Backup made, only once that Restore reports its Job complete, and an Ironic using it waits until then. A
 * Restore whose Job failed stays failed (nobody deletes it): the database is not Ready and takes no backup.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator } from '../support/emulator.js';
import { objAtOrEmpty, present, valueAt } from '../support/paths.js';

const galera = (object: KubeResource): KubeResource =>
  object.kind === 'IronicDatabase'
    ? {
        ...object,
        spec: {
          ...objAtOrEmpty(object, 'spec'),
          engine: 'MariaDBOperator',
          backup: { schedule: '30 2 * * *', retention: { maxAge: '14d' } },
          restoreFrom: { backup: 'latest', claimName: 'old-ironic-db-backups' },
        },
      }
    : object;

t.test('Galera with backups and a restore: the Backup is scheduled, the restore completes, then the database and Ironic are Ready', async (t) => {
  const emulator = await startEmulator({ overlay: 'mariadb-operator' });
  t.teardown(() => emulator.close());
  emulator.apply(emulator.parse(readFileSync('examples/managed-database.yaml', 'utf8')).map(galera));

  await emulator.round();
  await emulator.round();
  const restoring = emulator.ready('IronicDatabase', 'ironic-db');
  t.match(restoring, { status: 'False', message: /restoring backup latest of claim old-ironic-db-backups/ }, 'not Ready while restoring');
  t.notMatch(emulator.ready('Ironic', 'ironic'), { status: 'True' }, 'the Ironic waits');

  const result = await emulator.runUntilStable({ autoReady: true });
  t.ok(result.stable, 'converges');
  t.match(emulator.ready('IronicDatabase', 'ironic-db'), { status: 'True' });
  t.match(emulator.status('IronicDatabase', 'ironic-db'), { restoredFrom: 'latest' });
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
  const mariadb = present(emulator.get('MariaDB', 'ironic-db-database'));
  t.equal(valueAt(mariadb, 'spec', 'bootstrapFrom'), undefined, 'no bootstrapFrom: mariadb-operator would count a failed restore as done');
  const restore = present(emulator.get('Restore', 'ironic-db-database-restore-backup'));
  t.match(valueAt(restore, 'spec'), { mariaDbRef: { name: 'ironic-db-database' }, volume: { persistentVolumeClaim: { claimName: 'old-ironic-db-backups' } } });
  t.match(valueAt(restore, 'status', 'conditions'), [{ type: 'Complete', status: 'True', reason: 'JobComplete' }], 'kept, with its proof');
  const backup = present(emulator.get('Backup', 'ironic-db-database-backup'));
  t.match(valueAt(backup, 'spec'), { maxRetention: '336h0m0s', schedule: { cron: '30 2 * * *' } });
  t.match(valueAt(backup, 'status', 'conditions'), [{ type: 'Complete', status: 'False', message: 'Scheduled' }]);
  t.match(emulator.status('IronicDatabase', 'ironic-db'), {
    conditions: [{ type: 'Ready' }, { type: 'BackupsFailing', status: 'False', message: /reports Scheduled/ }],
  });
});

t.test(
  'Galera with a restore that fails: the database says so and where the log is, takes no backup, and the Ironic waits; a new Restore runs once the failed one is deleted',
  async (t) => {
    const emulator = await startEmulator({ overlay: 'mariadb-operator' });
    t.teardown(() => emulator.close());
    emulator.apply(emulator.parse(readFileSync('examples/managed-database.yaml', 'utf8')).map(galera));
    // Everything runs but the restore, whose Job fails (a wrong source: no backup file in the claim).
    for (let round = 0; round < 12 && emulator.get('Job', 'ironic-db-database-restore-backup') === undefined; round += 1) {
      emulator.settleWorkloads();
      await emulator.round();
    }
    t.ok(emulator.get('Job', 'ironic-db-database-restore-backup'), "the Restore's Job runs once the cluster does");
    emulator.failJob('ironic-db-database-restore-backup', 'no valid backup files were found');
    for (let round = 0; round < 4; round += 1) {
      emulator.mariadbOperator.reconcile(emulator.cluster.store, emulator.now);
      await emulator.round();
    }
    t.match(emulator.ready('IronicDatabase', 'ironic-db'), {
      status: 'False',
      reason: 'DatabaseFailed',
      message:
        /^restoring backup latest of claim old-ironic-db-backups failed: mariadb-operator's Restore ironic-db-database-restore-backup reports its Job failed; the database is not used and no backup is taken until a restore succeeds: see kubectl -n baremetal-operator-system logs job\/ironic-db-database-restore-backup, .*then delete the Restore ironic-db-database-restore-backup to run it again/,
    });
    t.equal(valueAt(emulator.status('IronicDatabase', 'ironic-db'), 'restoredFrom'), undefined, 'not recorded as restored');
    t.equal(emulator.get('Backup', 'ironic-db-database-backup'), undefined, 'no scheduled Backup over the good files');
    t.notMatch(emulator.ready('Ironic', 'ironic'), { status: 'True' }, 'the Ironic waits');
    t.ok(emulator.get('Restore', 'ironic-db-database-restore-backup'), 'the failed Restore stays');

    // The cause fixed: the user deletes the Restore, and a new one runs.
    emulator.cluster.store.delete('Restore.k8s.mariadb.com/v1alpha1', 'baremetal-operator-system/ironic-db-database-restore-backup');
    emulator.cluster.store.delete('Job.batch/v1', 'baremetal-operator-system/ironic-db-database-restore-backup');
    const result = await emulator.runUntilStable({ autoReady: true });
    t.ok(result.stable, 'converges');
    t.match(emulator.ready('IronicDatabase', 'ironic-db'), { status: 'True' });
    t.match(emulator.status('IronicDatabase', 'ironic-db'), { restoredFrom: 'latest' });
    t.ok(emulator.get('Backup', 'ironic-db-database-backup'), 'and now the Backup');
  },
);
