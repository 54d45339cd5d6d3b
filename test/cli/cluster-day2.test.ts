/**
 * The in-memory Metacontroller on day 2, with hand-written hooks: a refused write fails the sync (event,
 * backoff, the status written regardless, as composite/controller.go does), related objects lag with the
 * children (one informer cache), and children are adopted and released by their controller-uid label
 * (controller_ref_manager.go).
 */
import t from 'tap';
import { Cluster, type HookTransport } from '../../src/cli/cluster.js';
import { IRONIC_CONTROLLER, type ControllerSpec } from '../../src/cli/controllers.js';
import type { KubeResource } from '../../src/cli/objects.js';
import { present } from '../support/paths.js';

type Request = { parent: KubeResource; children: Record<string, Record<string, KubeResource>>; related: Record<string, Record<string, KubeResource>> };

const PARENT = 'Ironic.ironic.metal3.io/v1alpha1';

const CONTROLLER: ControllerSpec = {
  ...IRONIC_CONTROLLER,
  childTypes: [
    { group: 'Secret.v1', strategy: 'OnDelete' },
    { group: 'ConfigMap.v1', strategy: 'InPlace' },
  ],
};

type Options = {
  readonly admitChild?: (child: KubeResource) => readonly string[];
  readonly laggingGroups?: readonly string[];
  readonly resyncPeriodSeconds?: number;
  readonly related?: unknown;
};

/** A cluster with one parent whose sync returns `children()`; `requests` records every sync request. */
const cluster = (children: () => unknown[], options: Options = {}) => {
  const requests: Request[] = [];
  let now = Date.parse('2026-01-01T00:00:00Z');
  const transport: HookTransport = async (path, body) => {
    if (path.endsWith('/customize')) return { statusCode: 200, body: { relatedResources: options.related ?? [] } };
    requests.push(JSON.parse(body) as Request);
    return { statusCode: 200, body: { status: { synced: true }, children: children() } };
  };
  const c = new Cluster({
    transport,
    controllers: [CONTROLLER],
    clock: () => new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(options.admitChild !== undefined && { admitChild: options.admitChild }),
    ...(options.laggingGroups !== undefined && { laggingGroups: options.laggingGroups }),
    ...(options.resyncPeriodSeconds !== undefined && { resyncPeriodSeconds: options.resyncPeriodSeconds }),
  });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  const parent = (): KubeResource => present(c.store.get(PARENT, 'ns/p'));
  return { cluster: c, requests, parent, tick: (seconds: number) => (now += seconds * 1000) };
};

const configMap = (name: string, data: Record<string, string> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const verbs = (writes: readonly { verb: string; object: string }[]): string[] => writes.map((w) => `${w.verb} ${w.object}`);

t.test('a write the API server or a webhook refuses fails the sync with a SyncError event; the status is written regardless', async (t) => {
  const { cluster: c, parent } = cluster(() => [configMap('good'), configMap('bad')], {
    admitChild: (child) => (child.metadata.name === 'bad' ? ['admission webhook "x" denied the request: no'] : []),
  });
  const round = await c.round();
  const sync = round.syncs[0];
  t.equal(sync?.error, `can't reconcile children for Ironic ns/p: can't create ConfigMap ns/bad: admission webhook "x" denied the request: no`);
  t.same(sync?.warnings, [], 'not a warning');
  t.same(
    verbs(round.writes),
    ['finalizer Ironic ns/p', 'create ConfigMap ns/good', 'status Ironic ns/p'],
    'the other children are applied, the status is written (controller.go writes it before returning the error)',
  );
  t.same(parent()['status'], { synced: true, observedGeneration: 1 });
  t.same(c.events, [{ round: 1, object: 'Ironic ns/p', type: 'Warning', reason: 'SyncError', message: `Sync error: ${sync?.error ?? ''}` }]);
  t.equal(c.store.get('ConfigMap.v1', 'ns/bad'), undefined);
});

t.test('a refused update fails the sync too, and the stored object stays as it was', async (t) => {
  let value = 'a';
  const { cluster: c } = cluster(() => [configMap('c', { k: value })], {
    admitChild: (child) => ((child['data'] as Record<string, string>)['k'] === 'b' ? ['data.k: Invalid value: "b"'] : []),
  });
  await c.round();
  value = 'b';
  const round = await c.round();
  t.match(round.syncs[0]?.error, /can't update ConfigMap ns\/c: data\.k: Invalid value: "b"/);
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.['data'], { k: 'a' });
  t.same(verbs(round.writes), [], 'no update was recorded');
});

t.test('a failed sync is retried with the work queue backoff (5 ms doubling), not at every round; a success forgets it', async (t) => {
  let refuse = true;
  const { cluster: c, tick } = cluster(() => [configMap('c')], { resyncPeriodSeconds: 300, admitChild: () => (refuse ? ['denied'] : []) });
  const synced: boolean[] = [];
  for (let i = 0; i < 12; i += 1) {
    tick(1);
    synced.push((await c.round()).syncs.length === 1);
  }
  // Failures 1-8 wait at most 640 ms; the 9th waits 1.28 s, the 10th 2.56 s, the 11th 5.12 s.
  t.same(synced, [true, true, true, true, true, true, true, true, true, false, true, false], 'the gaps grow once the backoff passes a second');
  t.equal(c.events.length, 10);
  refuse = false;
  tick(10);
  t.notOk((await c.round()).syncs[0]?.error, 'retried and succeeded');
  tick(1);
  t.equal((await c.round()).syncs.length, 1, 'the create it made is an event');
  tick(1);
  t.same((await c.round()).syncs, [], 'then only events or the resync period enqueue it');
});

t.test('related objects lag with the children: one informer cache for both', async (t) => {
  const { cluster: c, requests } = cluster(() => [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'child' }, data: {} }], {
    laggingGroups: ['Secret.v1'],
    related: [{ apiVersion: 'v1', resource: 'secrets', namespace: 'ns', names: ['user', 'child'] }],
  });
  c.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'user', namespace: 'ns' }, data: {} });
  const seen = (request: Request | undefined) => ({
    children: Object.keys(request?.children['Secret.v1'] ?? {}),
    related: Object.keys(request?.related['Secret.v1'] ?? {}),
  });
  const first = await c.round();
  t.same(seen(requests[0]), { children: [], related: [] }, 'round 1: the Secret cache has seen nothing yet, the user Secret neither');
  t.notOk(first.cacheCurrent, 'and the round says its cache is behind');
  await c.round();
  t.same(seen(requests[1]), { children: [], related: ['ns/user'] }, 'round 2: what existed before round 1, not the child created in it');
  await c.round();
  t.same(seen(requests[2]), { children: ['ns/child'], related: ['ns/child', 'ns/user'] }, 'round 3: the child, as a child and as a related object at once');
  const user = present(c.store.get('Secret.v1', 'ns/user'));
  c.put({ ...user, data: { k: 'dg==' } });
  const behind = await c.round();
  t.same(requests[3]?.related['Secret.v1']?.['ns/user']?.['data'], {}, 'an edit is not seen in the next round');
  t.notOk(behind.cacheCurrent, 'which says its cache is behind');
  t.ok((await c.round()).cacheCurrent);
  t.same(requests[4]?.related['Secret.v1']?.['ns/user']?.['data'], { k: 'dg==' }, 'but one round later');
});

t.test('a child that loses its controller-uid label is released and no longer updated', async (t) => {
  let data = { k: 'a' };
  const { cluster: c, requests, parent } = cluster(() => [configMap('c', data)]);
  await c.round();
  const uid = parent().metadata.uid ?? '';
  const stored = present(c.store.get('ConfigMap.v1', 'ns/c'));
  const { 'controller-uid': _removed, ...labels } = stored.metadata.labels ?? {};
  c.put({ ...stored, metadata: { ...stored.metadata, labels } });
  data = { k: 'b' };
  const round = await c.round();
  t.same(verbs(round.writes), ['release ConfigMap ns/c'], 'released (no update, no delete)');
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.metadata.ownerReferences, undefined, 'its ownerReference to the parent is gone');
  t.same(requests[1]?.children['ConfigMap.v1'], {}, 'not a child any more');
  t.match(
    round.syncs[0]?.warnings,
    [/ConfigMap ns\/c already exists and is not owned by Ironic ns\/p/],
    'the create the hook asks for again meets AlreadyExists',
  );
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.['data'], { k: 'a' }, 'never updated');
  t.same(verbs((await c.round()).writes), [], 'and left alone after that');
  // Relabelled: an orphan that matches the selector is adopted, and updated again.
  const released = present(c.store.get('ConfigMap.v1', 'ns/c'));
  c.put({ ...released, metadata: { ...released.metadata, labels: { ...labels, 'controller-uid': uid } } });
  const adopted = await c.round();
  t.same(verbs(adopted.writes), ['adopt ConfigMap ns/c', 'update ConfigMap ns/c']);
  t.match(c.store.get('ConfigMap.v1', 'ns/c'), { data: { k: 'b' }, metadata: { ownerReferences: [{ uid, controller: true, blockOwnerDeletion: true }] } });
});

t.test('an orphan the lagging cache still shows but the API server no longer has is skipped', async (t) => {
  const { cluster: c, parent, requests } = cluster(() => [], { laggingGroups: ['Secret.v1'] });
  await c.round();
  c.put({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'orphan', namespace: 'ns', labels: { 'controller-uid': parent().metadata.uid ?? '' } },
    data: {},
  });
  await c.round();
  c.remove('Secret.v1', 'ns', 'orphan');
  const round = await c.round();
  t.notOk(round.syncs[0]?.error, 'NotFound on adoption is no error');
  t.same(verbs(round.writes), []);
  t.same(requests[2]?.children['Secret.v1'], {}, 'and it is not a child');
});

t.test('a parent being deleted releases nothing and adopts nothing', async (t) => {
  const { cluster: c, parent } = cluster(() => []);
  await c.round();
  const uid = parent().metadata.uid ?? '';
  c.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'orphan', namespace: 'ns', labels: { 'controller-uid': uid } }, data: {} });
  c.put({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'stray',
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', name: 'p', uid, controller: true }],
    },
    data: {},
  });
  c.remove(PARENT, 'ns', 'p');
  const round = await c.round();
  t.same(
    verbs(round.writes).filter((w) => w.startsWith('adopt') || w.startsWith('release')),
    [],
  );
  t.same(c.store.get('ConfigMap.v1', 'ns/orphan')?.metadata.ownerReferences, undefined);
});
