/**
 * The emulator as strict as the real tools on day 2, with the real hooks: a refused write fails the sync
 * and the convergence, and a child that loses its selector label is released (and the Ironic says what is
 * in its way).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator } from '../support/emulator.js';

const NS = 'baremetal-operator-system';
const MINIMAL = readFileSync('examples/minimal.yaml', 'utf8');

t.test('a child write a webhook refuses fails the sync (a SyncError event), and the convergence with it', async (t) => {
  let denials = 1;
  const webhook = (child: KubeResource): string[] => {
    if (child.kind !== 'Deployment' || denials === 0) return [];
    denials -= 1;
    return ['admission webhook "policy.example.com" denied the request: not now'];
  };
  const e = await startEmulator({ namespace: NS, webhooks: [webhook] });
  t.teardown(() => e.close());
  e.apply(MINIMAL);
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 8 });
  t.match(result.errors, [/^Ironic baremetal-operator-system\/ironic: can't reconcile children for Ironic baremetal-operator-system\/ironic: can't create Deployment baremetal-operator-system\/ironic-service: admission webhook "policy.example.com" denied the request: not now$/]);
  t.notOk(result.stable, 'a quiet round after a refusal is no convergence');
  t.match(e.events, [{ round: 1, object: 'Ironic baremetal-operator-system/ironic', type: 'Warning', reason: 'SyncError', message: /^Sync error: can't reconcile children/ }]);
  t.ok(e.get('Deployment', 'ironic-service', NS), 'created on the retry');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
});

t.test('a child that loses its controller-uid label is released: the Ironic no longer updates it and says it is in the way', async (t) => {
  const e = await startEmulator({ namespace: NS });
  t.teardown(() => e.close());
  e.apply(MINIMAL);
  t.ok((await e.runUntilStable({ autoReady: true })).stable);
  const uid = e.get('Ironic', 'ironic', NS)?.metadata.uid ?? '';
  const service = e.get('Service', 'ironic', NS) as KubeResource;
  const { 'controller-uid': _removed, ...labels } = service.metadata.labels ?? {};
  e.apply({ ...service, metadata: { ...service.metadata, labels } });
  const released = await e.runUntilStable({ autoReady: true });
  t.ok(released.stable);
  t.same(released.writes.filter((w) => w.object === `Service ${NS}/ironic`).map((w) => w.verb), ['release']);
  t.same(e.get('Service', 'ironic', NS)?.metadata.ownerReferences, undefined, 'its ownerReference is gone');
  t.notOk('controller-uid' in (e.get('Service', 'ironic', NS)?.metadata.labels ?? {}), 'and no update put the label back');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'False', reason: 'ResourceConflict', message: /Service baremetal-operator-system\/ironic/ });
  // The label back: adopted again, and Ready again.
  const orphan = e.get('Service', 'ironic', NS) as KubeResource;
  e.apply({ ...orphan, metadata: { ...orphan.metadata, labels: { ...labels, 'controller-uid': uid } } });
  const adopted = await e.runUntilStable({ autoReady: true });
  t.ok(adopted.stable);
  t.same(adopted.writes.filter((w) => w.object === `Service ${NS}/ironic`).map((w) => w.verb), ['adopt']);
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
});
