/**
 * A Galera IronicDatabase with backups and a restore in the emulated cluster (deploy/overlays/mariadb-operator and
 * the mariadb-operator stand-in): the Backup is created and reports Scheduled, the MariaDB bootstraps from the
 * backup through a Restore of mariadb-operator, the database is Ready only once the backup is restored, and an
 * Ironic using it waits until then.
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
  t.match(valueAt(mariadb, 'status', 'conditions'), [
    { type: 'Ready', status: 'True' },
    { type: 'BackupRestored', status: 'True' },
  ]);
  t.equal(emulator.get('Restore', 'ironic-db-database-restore'), undefined, 'mariadb-operator deletes its Restore once complete');
  const backup = present(emulator.get('Backup', 'ironic-db-database-backup'));
  t.match(valueAt(backup, 'spec'), { maxRetention: '336h0m0s', schedule: { cron: '30 2 * * *' } });
  t.match(valueAt(backup, 'status', 'conditions'), [{ type: 'Complete', status: 'False', message: 'Scheduled' }]);
  t.match(emulator.status('IronicDatabase', 'ironic-db'), {
    conditions: [{ type: 'Ready' }, { type: 'BackupsFailing', status: 'False', message: /reports Scheduled/ }],
  });
});
