/**
 * Deletion through the finalize hooks: an IronicDatabase in use waits, says by whom, and keeps its
 * children; once the Ironic is deleted (its children go first), the database goes too.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startEmulator } from '../support/emulator.js';
import { objsAt } from '../support/paths.js';

const conditions = (status: Record<string, unknown>): Record<string, unknown>[] => (Array.isArray(status['conditions']) ? objsAt(status, 'conditions') : []);

t.test('an IronicDatabase in use is kept until its Ironic is gone', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  emulator.apply(readFileSync('examples/managed-database.yaml', 'utf8'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  const databaseChildren = emulator.children('IronicDatabase', 'ironic-db').map((c) => c.metadata.name);
  t.equal(databaseChildren.length, 4);

  emulator.delete('IronicDatabase', 'ironic-db');
  t.ok(emulator.get('IronicDatabase', 'ironic-db')?.metadata.deletionTimestamp, 'marked for deletion, held by the finalizer');
  await emulator.round();
  await emulator.round();
  const blocked = conditions(emulator.status('IronicDatabase', 'ironic-db')).find((c) => c['type'] === 'DeletionBlocked');
  t.match(blocked, { status: 'True', reason: 'InUse', message: /still used by: ironic/ }, 'the status says who blocks');
  t.same(
    emulator.children('IronicDatabase', 'ironic-db').map((c) => c.metadata.name),
    databaseChildren,
    'the database keeps running',
  );
  t.ok(emulator.get('IronicDatabase', 'ironic-db'), 'and is not deleted');

  emulator.delete('Ironic', 'ironic');
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 8 });
  t.ok(result.stable, `settled after ${result.rounds} rounds`);
  t.equal(emulator.get('Ironic', 'ironic'), undefined, 'the Ironic is gone');
  t.equal(emulator.get('IronicDatabase', 'ironic-db'), undefined, 'then the database');
  const deleted = result.writes.filter((w) => w.verb === 'delete').map((w) => w.object.replace('baremetal-operator-system/', ''));
  t.ok(deleted.includes('Deployment ironic-service') && deleted.includes('StatefulSet ironic-db-database'), 'children deleted by the finalize hooks');
  const ironicGone = result.writes.findIndex((w) => w.verb === 'delete' && w.object.endsWith('/ironic') && w.object.startsWith('Ironic '));
  const databaseGone = result.writes.findIndex((w) => w.verb === 'delete' && w.object.startsWith('IronicDatabase '));
  t.ok(ironicGone >= 0 && databaseGone > ironicGone, 'the Ironic went first');
  t.same(
    emulator.cluster.store.list().map((o) => `${o.kind} ${o.metadata.name}`),
    [],
    'nothing is left',
  );
});

t.test('a blocked deletion settles: the status does not change on every resync', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  emulator.apply(readFileSync('examples/managed-database.yaml', 'utf8'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  emulator.delete('IronicDatabase', 'ironic-db');
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.ok(result.stable, 'no status write once blocked');
});

t.test('an IronicImageCache in use is kept until its Ironic is gone', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  emulator.apply(readFileSync('examples/image-cache.yaml', 'utf8'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  const cacheChildren = emulator.children('IronicImageCache', 'ipa').map((c) => c.metadata.name);
  t.equal(cacheChildren.length, 3);
  t.same(emulator.status('IronicImageCache', 'ipa')['usedBy'], ['ironic'], 'the status names its user');

  emulator.delete('IronicImageCache', 'ipa');
  await emulator.round();
  await emulator.round();
  const blocked = conditions(emulator.status('IronicImageCache', 'ipa')).find((c) => c['type'] === 'DeletionBlocked');
  t.match(blocked, { status: 'True', reason: 'InUse', message: /still used by: ironic/ }, 'the status says who blocks');
  t.same(
    emulator.children('IronicImageCache', 'ipa').map((c) => c.metadata.name),
    cacheChildren,
    'the cache keeps serving',
  );
  const ironicReady = emulator.ready('Ironic', 'ironic');
  t.match(
    ironicReady,
    { status: 'False', message: /IronicImageCache baremetal-operator-system\/ipa is being deleted/ },
    'the Ironic says the cache is going away',
  );
  t.ok(
    emulator.children('Ironic', 'ironic').some((c) => c.kind === 'Deployment'),
    'and keeps running',
  );

  emulator.delete('Ironic', 'ironic');
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 8 });
  t.ok(result.stable, `settled after ${result.rounds} rounds`);
  t.equal(emulator.get('IronicImageCache', 'ipa'), undefined, 'then the cache is deleted');
  t.same(
    emulator.cluster.store.list().map((o) => `${o.kind} ${o.metadata.name}`),
    [],
    'nothing is left',
  );
});
