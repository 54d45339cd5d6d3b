/**
 * Every example, applied to the emulated cluster with its workloads becoming ready and its Jobs
 * completing as they are created, converges to Ready=True with one htpasswd Secret per Ironic and at most one
 * rollout, and then stays put: ten more resyncs, no write.
 */
import t, { type Test } from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { readObjects } from '../../src/cli/documents.js';
import { validateK8s } from '../helpers/k8s.js';
import { admissionProblems } from '../support/crd-schema.js';
import { startEmulator } from '../support/emulator.js';
import type { Write } from '../../src/cli/cluster.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';

const isParent = (o: { readonly kind: string }): boolean => PARENT_KINDS.some((k) => k.kind === o.kind);

const EXAMPLES = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** The deploy overlay an example needs: mariadb-operator's for a Galera database, else deploy/base. */
const overlayOf = (file: string): { overlay?: string } =>
  readFileSync(`examples/${file}`, 'utf8').includes('engine: MariaDBOperator') ? { overlay: 'mariadb-operator' } : {};

/** Rounds within which each example must settle (the managed database adds its own rollout and two Jobs). */
const MAX_ROUNDS = 8;

/**
 * Each Ironic of an example got exactly one htpasswd Secret and its workload rolled at most once: no sync
 * minted a second htpasswd while the first was not observed yet (defect 3).
 */
const oneHtpasswdOneRollout = (
  t: Test,
  parents: readonly { readonly kind: string; readonly metadata: { readonly name: string } }[],
  writes: readonly Write[],
): void => {
  for (const ironic of parents.filter((p) => p.kind === 'Ironic').map((p) => p.metadata.name)) {
    const htpasswd = writes.filter((w) => w.verb === 'create' && new RegExp(`^Secret [^/]+/${ironic}-htpasswd-`).test(w.object)).map((w) => w.object);
    t.equal(htpasswd.length, 1, `Ironic ${ironic}: one htpasswd Secret (${htpasswd.join(', ')})`);
    const rollouts = writes.filter((w) => w.verb === 'update' && new RegExp(`^(Deployment|DaemonSet) [^/]+/${ironic}-service$`).test(w.object));
    t.ok(rollouts.length <= 1, `Ironic ${ironic}: at most one rollout (${rollouts.length})`);
  }
};

t.test('the examples directory has the documented examples', async (t) => {
  for (const name of [
    'minimal.yaml',
    'tls-credentials.yaml',
    'generated-tls.yaml',
    'dhcp.yaml',
    'managed-database.yaml',
    'ha.yaml',
    'ipxe-tls.yaml',
    'image-cache.yaml',
  ])
    t.ok(EXAMPLES.includes(name), name);
});

for (const file of EXAMPLES) {
  t.test(`examples/${file} converges and stays converged`, async (t) => {
    const emulator = await startEmulator(overlayOf(file));
    t.teardown(() => emulator.close());
    const applied = emulator.apply(readFileSync(`examples/${file}`, 'utf8'));
    const parents = applied.filter(isParent);
    t.ok(parents.length > 0, 'has a parent');
    const result = await emulator.runUntilStable({ maxRounds: MAX_ROUNDS, autoReady: true });
    t.same(result.errors, [], 'no sync failed');
    t.ok(result.stable, `stable after ${result.rounds} rounds`);
    oneHtpasswdOneRollout(t, parents, result.writes);
    for (const parent of parents) {
      t.match(emulator.ready(parent.kind, parent.metadata.name), { status: 'True' }, `${parent.kind} ${parent.metadata.name} is Ready`);
      t.equal(emulator.status(parent.kind, parent.metadata.name)['observedGeneration'], parent.metadata.generation, 'observedGeneration');
    }
    const warnings = emulator.history.flatMap((r) => r.syncs.flatMap((s) => [...s.warnings, ...s.pending]));
    t.same(warnings, [], 'every child was accepted and nothing waits for OnDelete');
    for (let i = 0; i < 10; i += 1) {
      emulator.settleWorkloads();
      const round = await emulator.round();
      t.same(round.writes, [], `resync ${i + 1} writes nothing`);
    }
  });
}

for (const file of EXAMPLES) {
  t.test(`examples/${file} converges with event-driven syncs and lagging Secret and ConfigMap caches`, async (t) => {
    const emulator = await startEmulator({ eventDriven: true, laggingGroups: ['Secret.v1', 'ConfigMap.v1'], ...overlayOf(file) });
    t.teardown(() => emulator.close());
    const parents = emulator.apply(readFileSync(`examples/${file}`, 'utf8')).filter(isParent);
    const result = await emulator.runUntilStable({ maxRounds: 2 * MAX_ROUNDS, autoReady: true });
    t.same(result.errors, [], 'no sync failed');
    t.ok(result.stable, `stable after ${result.rounds} rounds`);
    oneHtpasswdOneRollout(t, parents, result.writes);
    for (const parent of parents)
      t.match(emulator.ready(parent.kind, parent.metadata.name), { status: 'True' }, `${parent.kind} ${parent.metadata.name} is Ready`);
    t.same(
      emulator.history.flatMap((r) => r.syncs.flatMap((s) => [...s.warnings, ...s.pending])),
      [],
      'no warning',
    );
    for (let i = 0; i < 10; i += 1) {
      emulator.settleWorkloads();
      t.same((await emulator.round()).writes, [], `round ${i + 1} after convergence writes nothing`);
    }
  });
}

t.test('every example is accepted by the API server', async (t) => {
  for (const file of EXAMPLES) {
    const { objects, errors, warnings } = readObjects([{ text: readFileSync(`examples/${file}`, 'utf8'), source: file }], 'default');
    t.same([...errors, ...warnings], [], `${file} reads cleanly`);
    for (const object of objects) {
      const what = `${file}: ${object.kind} ${object.metadata.name}`;
      if (isParent(object)) t.same(admissionProblems(object), [], `${what} passes its CRD`);
      else t.doesNotThrow(() => validateK8s(object), `${what} is a valid ${object.kind}`);
    }
  }
});

t.test('ha.yaml runs Ironic as a DaemonSet instead of the Deployment, on a Galera cluster of mariadb-operator', async (t) => {
  const emulator = await startEmulator({ overlay: 'mariadb-operator' });
  t.teardown(() => emulator.close());
  emulator.apply(readFileSync('examples/ha.yaml', 'utf8'));
  t.ok((await emulator.runUntilStable({ maxRounds: MAX_ROUNDS, autoReady: true })).stable);
  const workloads = emulator.children('Ironic', 'ironic').filter((c) => c.kind === 'Deployment' || c.kind === 'DaemonSet');
  t.same(
    workloads.map((w) => `${w.kind} ${w.metadata.name}`),
    ['DaemonSet ironic-service'],
  );
  const database = emulator
    .children('IronicDatabase', 'ironic-db')
    .map((c) => `${c.kind} ${c.metadata.name.replace(/-password-[0-9a-f]{10}$/, '-password-<hash>')}`);
  t.same(
    database.sort(),
    [
      'Database ironic-db-database',
      'Grant ironic-db-database',
      'MariaDB ironic-db-database',
      'Secret ironic-db-database-credentials',
      'Secret ironic-db-database-password-<hash>',
      'User ironic-db-database',
    ],
    'no StatefulSet: mariadb-operator objects, and the Secret the User reads its password from',
  );
  t.match(emulator.status('IronicDatabase', 'ironic-db'), {
    host: 'ironic-db-database-primary.baremetal-operator-system.svc',
    port: 3306,
    databaseName: 'ironic',
    credentialsName: 'ironic-db-database-credentials',
  });
  t.notMatch(emulator.ready('Ironic', 'ironic')?.message ?? '', /single point of failure/, 'no hint on a Galera database');
});
