/**
 * User Secrets seen through the emulated cluster: a changed TLS certificate or changed credentials roll
 * the Ironic pods exactly once; a deleted TLS Secret freezes the children and says why; restoring it
 * brings Ready back without touching a child.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { renewedCertificate } from '../fixtures/tls.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { present, stringMapAt } from '../support/paths.js';

const EXAMPLE = readFileSync('examples/tls-credentials.yaml', 'utf8');
const TLS_VERSION = 'ironic.metal3.io/tls-secret-version';
const API_VERSION = 'ironic.metal3.io/api-secret-version';

const secret = (name: string, type: string, stringData: Record<string, string>): KubeResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'baremetal-operator-system' },
  type,
  stringData,
});

const podAnnotations = (emulator: Emulator): Record<string, string> =>
  stringMapAt(emulator.get('Deployment', 'ironic-service'), 'spec', 'template', 'metadata', 'annotations');

/** Every child, as `Kind name` → resourceVersion: equal snapshots mean no child was written. */
const snapshot = (emulator: Emulator): Record<string, string> =>
  Object.fromEntries(emulator.children('Ironic', 'ironic').map((c) => [`${c.kind} ${c.metadata.name}`, c.metadata.resourceVersion ?? '']));

const converged = async (t: Test): Promise<Emulator> => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  emulator.apply(EXAMPLE);
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.ok(result.stable, 'the example converges first');
  return emulator;
};

/** The clouds hand-off Secret is replaced (OnDelete Secrets are never updated in place) when its content changes. */
const REPLACED_CLOUDS = ['delete Secret baremetal-operator-system/ironic-clouds', 'create Secret baremetal-operator-system/ironic-clouds'];

const childWrites = (writes: readonly { verb: string; object: string }[]): string[] =>
  writes.filter((w) => w.verb !== 'status' && w.verb !== 'finalizer').map((w) => `${w.verb} ${w.object}`);

t.test('a renewed TLS certificate rolls the pods exactly once', async (t) => {
  const emulator = await converged(t);
  const before = podAnnotations(emulator);
  const generation = emulator.get('Deployment', 'ironic-service')?.metadata.generation ?? 0;
  const renewed = renewedCertificate();
  emulator.apply(secret('ironic-tls', 'kubernetes.io/tls', { 'tls.crt': renewed.crt, 'tls.key': renewed.key }));
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.ok(result.stable, `stable after ${result.rounds} rounds`);
  t.same(
    childWrites(result.writes).sort(),
    [...REPLACED_CLOUDS, 'update Deployment baremetal-operator-system/ironic-service'].sort(),
    'one roll of the Deployment (and the clouds hand-off, whose CA changed, replaced)',
  );
  const after = podAnnotations(emulator);
  t.not(after[TLS_VERSION], before[TLS_VERSION], 'the TLS annotation of the pod template changed');
  t.equal(after[API_VERSION], before[API_VERSION], 'nothing else in it did');
  t.equal(emulator.get('Deployment', 'ironic-service')?.metadata.generation, generation + 1, 'one new pod template generation');
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
  for (let i = 0; i < 10; i += 1) {
    emulator.settleWorkloads();
    t.same((await emulator.round()).writes, [], `resync ${i + 1} writes nothing`);
  }
});

t.test('new API credentials get a new htpasswd Secret and roll the pods once', async (t) => {
  const emulator = await converged(t);
  const [oldHtpasswd] = emulator.children('Ironic', 'ironic').filter((c) => c.metadata.name.startsWith('ironic-htpasswd-'));
  emulator.apply(secret('ironic-credentials', 'kubernetes.io/basic-auth', { username: 'metal3', password: 'another-long-random-password' }));
  const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.ok(result.stable, `stable after ${result.rounds} rounds`);
  const [newHtpasswd] = emulator.children('Ironic', 'ironic').filter((c) => c.metadata.name.startsWith('ironic-htpasswd-'));
  t.not(newHtpasswd?.metadata.name, oldHtpasswd?.metadata.name, 'a new content-named Secret');
  t.same(
    childWrites(result.writes).sort(),
    [
      'create Secret baremetal-operator-system/ironic-clouds',
      `create Secret baremetal-operator-system/${newHtpasswd?.metadata.name ?? ''}`,
      'delete Secret baremetal-operator-system/ironic-clouds',
      `delete Secret baremetal-operator-system/${oldHtpasswd?.metadata.name ?? ''}`,
      'update Deployment baremetal-operator-system/ironic-service',
    ],
    'the clouds hand-off, with the new password, is replaced too',
  );
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
});

t.test('a deleted TLS Secret freezes the children until it is back', async (t) => {
  const emulator = await converged(t);
  const before = snapshot(emulator);
  const tls = present(emulator.get('Secret', 'ironic-tls'));
  emulator.delete('Secret', 'ironic-tls');
  const missing = await emulator.runUntilStable({ autoReady: true, maxRounds: 4 });
  t.ok(missing.stable, 'stable while it is missing');
  t.same(childWrites(missing.writes), [], 'no child written');
  t.same(snapshot(emulator), before, 'children unchanged');
  t.match(emulator.ready('Ironic', 'ironic'), {
    status: 'False',
    reason: 'MissingReference',
    message: /Secret baremetal-operator-system\/ironic-tls named in spec.tls.certificateName was not found/,
  });
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = tls.metadata;
  emulator.apply({ ...tls, metadata });
  const restored = await emulator.runUntilStable({ autoReady: true, maxRounds: 4 });
  t.ok(restored.stable);
  t.same(childWrites(restored.writes), [], 'the same content rolls nothing');
  t.same(snapshot(emulator), before);
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True', reason: 'DeploymentAvailable' });
});
