/**
 * A spec the CRD lets through but the hooks refuse: the status explains it and no child is written,
 * however many resyncs follow; fixing it brings Ready back, still without touching a child.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAt, objAtOrEmpty, present } from '../support/paths.js';

const snapshot = (emulator: Emulator): Record<string, string> =>
  Object.fromEntries(emulator.children('Ironic', 'ironic').map((c) => [`${c.kind} ${c.metadata.name}`, c.metadata.resourceVersion ?? '']));

const withAddress = (ironic: KubeResource, ipAddress: string): KubeResource => {
  const spec = objAt(ironic, 'spec');
  return { ...ironic, spec: { ...spec, networking: { ...objAtOrEmpty(spec, 'networking'), ipAddress } } };
};

t.test('an invalid spec writes no child and says what to fix', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const [ironic] = emulator.apply(readFileSync('examples/minimal.yaml', 'utf8'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  const before = snapshot(emulator);
  const status = emulator.status('Ironic', 'ironic');

  emulator.apply(withAddress(present(ironic), '192.0.2.300'));
  const invalid = await emulator.runUntilStable({ autoReady: true });
  t.ok(invalid.stable, `stable after ${invalid.rounds} rounds`);
  t.same(
    invalid.writes.map((w) => `${w.verb} ${w.object}`),
    ['status Ironic baremetal-operator-system/ironic'],
    'only the status is written',
  );
  t.same(snapshot(emulator), before, 'children unchanged');
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'False', reason: 'InvalidSpec', message: /spec\.networking\.ipAddress/ });
  t.equal(emulator.status('Ironic', 'ironic')['observedGeneration'], 2, 'for the new generation');
  t.equal(emulator.status('Ironic', 'ironic')['installedVersion'], status['installedVersion'], 'versions kept');
  for (let i = 0; i < 10; i += 1) t.same((await emulator.round()).writes, [], `resync ${i + 1} writes nothing`);

  emulator.apply(withAddress(present(ironic), '192.0.2.2'));
  const fixed = await emulator.runUntilStable({ autoReady: true });
  t.ok(fixed.stable);
  t.same(
    fixed.writes.map((w) => w.verb),
    ['status'],
    'fixed: only the status',
  );
  t.same(snapshot(emulator), before);
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
});

t.test('the CRD refuses what it can check before any hook runs', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const [ironic] = emulator.apply(readFileSync('examples/minimal.yaml', 'utf8'));
  t.throws(() => emulator.apply({ ...present(ironic), spec: { version: 'v38' } }), /refused: .*pattern/);
});
