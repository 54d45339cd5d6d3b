/**
 * Both IronicDatabase engines in the emulated cluster: the Builtin StatefulSet and a Galera cluster of
 * mariadb-operator (deploy/overlays/mariadb-operator, with the test's mariadb-operator stand-in). An Ironic
 * runs on either unchanged, its upgrade Jobs are the same against both, an HA Ironic on one MariaDB pod is
 * told so, and the engine of an existing database cannot change.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAt, objAtOrEmpty, present, valueAt } from '../support/paths.js';
import { ofKind } from '../helpers/children.js';

type Engine = 'Builtin' | 'MariaDBOperator';

const withEngine = (object: KubeResource, engine: Engine): KubeResource =>
  object.kind === 'IronicDatabase' ? { ...object, spec: { ...objAtOrEmpty(object, 'spec'), engine } } : object;

const atVersion = (object: KubeResource, version: string): KubeResource => ({ ...object, spec: { ...objAtOrEmpty(object, 'spec'), version } });

const managed = (emulator: Emulator, engine: Engine, version = '38.0'): KubeResource[] =>
  emulator.apply(
    emulator
      .parse(readFileSync('examples/managed-database.yaml', 'utf8'))
      .map((o) => withEngine(o, engine))
      .map((o) => (o.kind === 'Ironic' ? atVersion(o, version) : o)),
  );

const start = (engine: Engine): Promise<Emulator> => startEmulator(engine === 'MariaDBOperator' ? { overlay: 'mariadb-operator' } : {});

const HOSTS: Readonly<Record<Engine, string>> = {
  Builtin: 'ironic-db-database.baremetal-operator-system.svc',
  MariaDBOperator: 'ironic-db-database-primary.baremetal-operator-system.svc',
};

/** A Job's pod template with the host (the one engine-dependent value) replaced. */
const jobTemplate = (emulator: Emulator, name: string, host: string): string =>
  JSON.stringify(valueAt(emulator.get('Job', name), 'spec', 'template')).replaceAll(host, '<database host>');

for (const engine of ['Builtin', 'MariaDBOperator'] as const) {
  t.test(`${engine}: an Ironic runs on it and its upgrade Jobs run against it`, async (t) => {
    const emulator = await start(engine);
    t.teardown(() => emulator.close());
    const ironic = present(managed(emulator, engine, '37.0').find((o) => o.kind === 'Ironic'));
    t.ok((await emulator.runUntilStable({ autoReady: true })).stable, 'installed at 37.0');
    t.match(emulator.ready('IronicDatabase', 'ironic-db'), { status: 'True' });
    t.match(emulator.status('IronicDatabase', 'ironic-db'), {
      host: HOSTS[engine],
      port: 3306,
      databaseName: 'ironic',
      credentialsName: 'ironic-db-database-credentials',
    });
    t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
    t.notMatch(emulator.ready('Ironic', 'ironic')?.message ?? '', /single point of failure/, 'no hint without high availability');
    const env = ofKind(emulator.get('Deployment', 'ironic-service'), 'Deployment').spec?.template.spec?.containers[0]?.env;
    t.same(
      env?.find((e) => e.name === 'MARIADB_HOST'),
      { name: 'MARIADB_HOST', value: HOSTS[engine] },
      'Ironic connects to the published host',
    );

    emulator.apply(atVersion(ironic, '38.0'));
    await emulator.round();
    const pre = 'ironic-pre-37.0-to-38.0';
    t.ok(emulator.get('Job', pre), 'the pre-upgrade Job');
    emulator.completeJob(pre);
    const result = await emulator.runUntilStable({ autoReady: true });
    t.ok(result.stable);
    t.match(emulator.status('Ironic', 'ironic'), { installedVersion: '38.0' });
  });
}

t.test('the upgrade Jobs are identical for both engines but for the database host', async (t) => {
  const templates: string[] = [];
  for (const engine of ['Builtin', 'MariaDBOperator'] as const) {
    const emulator = await start(engine);
    const ironic = present(managed(emulator, engine, '37.0').find((o) => o.kind === 'Ironic'));
    await emulator.runUntilStable({ autoReady: true });
    emulator.apply(atVersion(ironic, '38.0'));
    await emulator.round();
    emulator.completeJob('ironic-pre-37.0-to-38.0');
    await emulator.round();
    emulator.settleWorkloads();
    await emulator.round();
    templates.push(['pre', 'post'].map((phase) => jobTemplate(emulator, `ironic-${phase}-37.0-to-38.0`, HOSTS[engine])).join('\n'));
    await emulator.close();
  }
  t.ok(templates[0]?.includes('rundatabase-upgrade'), 'the pre-upgrade Job runs the schema upgrade');
  t.equal(templates[0], templates[1]);
});

t.test('an HA Ironic on a Builtin database is Ready with a hint; on a Galera database without', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const ha = emulator.parse(readFileSync('examples/ha.yaml', 'utf8')).map((o) => {
    if (o.kind !== 'IronicDatabase') return o;
    const { engine: _engine, replicas: _replicas, ...spec } = objAt(o, 'spec');
    return { ...o, spec };
  });
  emulator.apply(ha);
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  t.match(emulator.ready('Ironic', 'ironic'), {
    status: 'True',
    message:
      /; note: IronicDatabase ironic-db is a single MariaDB pod, the last single point of failure; engine MariaDBOperator runs a Galera cluster instead$/,
  });
  t.ok((await emulator.runUntilStable({ autoReady: true, maxRounds: 2 })).stable, 'the hint causes no churn');
});

t.test('the engine of an existing database cannot change: refused at admission, and by the hook', async (t) => {
  const emulator = await start('MariaDBOperator');
  t.teardown(() => emulator.close());
  const database = present(managed(emulator, 'Builtin').find((o) => o.kind === 'IronicDatabase'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  t.throws(() => emulator.apply(withEngine(database, 'MariaDBOperator')), /engine cannot be changed once the database exists/);
  // As if the CRD's rule were missing (an older CRD): the hook refuses too, and keeps the StatefulSet.
  const stored = present(emulator.get('IronicDatabase', 'ironic-db'));
  emulator.cluster.store.update(withEngine(stored, 'MariaDBOperator'));
  const round = await emulator.round();
  t.same(
    round.writes.filter((w) => w.verb !== 'status'),
    [],
    'no child changes',
  );
  t.match(emulator.ready('IronicDatabase', 'ironic-db'), {
    status: 'False',
    reason: 'InvalidSpec',
    message: /spec\.engine: engine cannot be changed once the database exists.*\(Builtin\)/,
  });
  t.ok(emulator.get('StatefulSet', 'ironic-db-database'), 'the StatefulSet is kept');
});

t.test(
  'a change of a Galera database reaches its MariaDB in place (a main-resource update carries the status mariadb-operator wrote, which the API server ignores)',
  async (t) => {
    const emulator = await start('MariaDBOperator');
    t.teardown(() => emulator.close());
    const database = present(managed(emulator, 'MariaDBOperator').find((o) => o.kind === 'IronicDatabase'));
    t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
    emulator.apply({ ...database, spec: { ...(database['spec'] as object), replicas: 5, storage: { size: '30Gi' } } });
    const result = await emulator.runUntilStable({ autoReady: true });
    t.same(result.errors, []);
    t.same(
      emulator.history.flatMap((r) => r.syncs.flatMap((s) => s.warnings)),
      [],
      'nothing refused',
    );
    t.match(emulator.get('MariaDB', 'ironic-db-database'), { spec: { replicas: 5, storage: { size: '30Gi' } } });
    t.match(emulator.ready('IronicDatabase', 'ironic-db'), { status: 'True' });
  },
);

t.test('without the mariadb-operator overlay, engine MariaDBOperator says what to install and creates nothing', async (t) => {
  const emulator = await start('Builtin');
  t.teardown(() => emulator.close());
  emulator.apply(emulator.parse(readFileSync('examples/ha.yaml', 'utf8')).filter((o) => o.kind === 'IronicDatabase'));
  const result = await emulator.runUntilStable({ autoReady: true });
  t.same(result.errors, []);
  t.match(emulator.ready('IronicDatabase', 'ironic-db'), { status: 'False', reason: 'InvalidSpec', message: /deploy\/overlays\/mariadb-operator/ });
  t.same(emulator.children('IronicDatabase', 'ironic-db'), []);
});

t.test('a Galera database is deleted with its mariadb-operator objects once no Ironic uses it', async (t) => {
  const emulator = await start('MariaDBOperator');
  t.teardown(() => emulator.close());
  managed(emulator, 'MariaDBOperator');
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  emulator.delete('IronicDatabase', 'ironic-db');
  await emulator.runUntilStable({ autoReady: true, maxRounds: 3 });
  t.match(
    emulator.status('IronicDatabase', 'ironic-db'),
    {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'DeletionBlocked', status: 'True', message: /still used by: ironic/ },
      ],
    },
    'kept while the Ironic uses it',
  );
  t.ok(emulator.get('MariaDB', 'ironic-db-database'), 'the Galera cluster keeps running');
  emulator.delete('Ironic', 'ironic');
  await emulator.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.equal(emulator.get('IronicDatabase', 'ironic-db'), undefined, 'finalized');
  for (const kind of ['MariaDB', 'Database', 'User', 'Grant']) t.equal(emulator.get(kind, 'ironic-db-database'), undefined, `${kind} deleted`);
  t.equal(emulator.get('Service', 'ironic-db-database-primary'), undefined, 'and what mariadb-operator made with it');
});

t.test('an HA Ironic running more conductors than its IronicDatabase is sized for is Ready with a hint', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const ha = emulator.parse(readFileSync('examples/ha.yaml', 'utf8')).map((o) => {
    if (o.kind !== 'IronicDatabase') return o;
    const { engine: _engine, replicas: _replicas, ...spec } = objAt(o, 'spec');
    return { ...o, spec: { ...spec, maxConductors: 2 } };
  });
  emulator.apply(ha);
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  t.notMatch(emulator.ready('Ironic', 'ironic')?.message ?? '', /maxConductors/, 'one node scheduled: within the budget');
  emulator.markDaemonSetReady('ironic-service', { nodes: 3 });
  await emulator.round();
  t.match(emulator.ready('Ironic', 'ironic'), {
    status: 'True',
    message: /; note: this Ironic runs 3 conductors but IronicDatabase ironic-db is sized for 2 \(spec\.maxConductors\).*raise its maxConductors to at least 3/,
  });
  const database = present(ha.find((o) => o.kind === 'IronicDatabase'));
  emulator.apply({ ...database, spec: { ...objAt(database, 'spec'), maxConductors: 3 } });
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  emulator.markDaemonSetReady('ironic-service', { nodes: 3 });
  await emulator.round();
  const ready = emulator.ready('Ironic', 'ironic');
  t.equal(ready?.status, 'True');
  t.notMatch(ready?.message ?? '', /maxConductors/, 'gone once the database is sized for them');
});
