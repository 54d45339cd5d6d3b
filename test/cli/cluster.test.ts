/**
 * The in-memory Metacontroller, with hand-written hooks: how desired children become objects, which
 * strategy updates what, what refuses a sync, the status write and finalization.
 */
import t from 'tap';
import { Cluster, type HookTransport } from '../../src/cli/cluster.js';
import { IRONIC_CONTROLLER, type ControllerSpec } from '../../src/cli/controllers.js';
import type { Json, KubeResource } from '../../src/cli/objects.js';
import { resolveRelated, selectorMatches } from '../../src/cli/related.js';
import { LAST_APPLIED_ANNOTATION } from '../../src/render/child.js';
import { sentRequest, type SentRequest } from '../helpers/hooks.js';
import { present } from '../support/paths.js';

type Request = SentRequest;
type Hook = (request: Request) => unknown;

const NOW = '2026-01-01T00:00:00Z';

const CONTROLLER: ControllerSpec = {
  ...IRONIC_CONTROLLER,
  childTypes: [
    { group: 'Deployment.apps/v1', strategy: 'InPlace' },
    { group: 'Secret.v1', strategy: 'OnDelete' },
    { group: 'ConfigMap.v1', strategy: 'Recreate' },
    { group: 'Service.v1', strategy: 'InPlace' },
  ],
};

/** A cluster whose hooks are the given functions; `calls` records every path called. */
const cluster = (sync: Hook, options: { customize?: () => unknown; statusCode?: number; storedStatus?: (p: KubeResource, s: Json) => Json } = {}) => {
  const calls: string[] = [];
  const transport: HookTransport = async (path, body) => {
    calls.push(path);
    if (path.endsWith('/customize')) return { statusCode: 200, body: options.customize?.() ?? { relatedResources: [] } };
    return { statusCode: options.statusCode ?? 200, body: sync(sentRequest(JSON.parse(body))) };
  };
  const c = new Cluster({
    transport,
    controllers: [CONTROLLER],
    clock: () => NOW,
    ...(options.storedStatus !== undefined && { storedStatus: options.storedStatus }),
  });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  return { cluster: c, calls, parent: () => present(c.store.get('Ironic.ironic.metal3.io/v1alpha1', 'ns/p')) };
};

const deployment = (spec: Json, labels: Record<string, string> = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels },
  spec,
});
const configMap = (data: Json): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });
const secret = (data: Json): Json => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data });

const verbs = (writes: readonly { verb: string; object: string }[]): string[] => writes.map((w) => `${w.verb} ${w.object}`);

t.test('a created child gets the namespace, the controller-uid label, an owner and the last-applied annotation', async (t) => {
  const { cluster: c, parent } = cluster(() => ({
    status: {},
    children: [deployment({ replicas: 1 }), { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: {} }],
  }));
  const round = await c.round();
  t.same(verbs(round.writes), ['finalizer Ironic ns/p', 'create Service ns/s', 'create Deployment ns/d', 'status Ironic ns/p'], 'the core group before apps');
  const uid = parent().metadata.uid ?? '';
  const d = present(c.store.get('Deployment.apps/v1', 'ns/d'));
  t.match(d.metadata, { namespace: 'ns', labels: { 'controller-uid': uid }, generation: 1, creationTimestamp: NOW });
  t.same(d.metadata.ownerReferences, [{ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', name: 'p', uid, controller: true, blockOwnerDeletion: true }]);
  t.same(JSON.parse(d.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? ''), {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns', labels: { 'controller-uid': uid } },
    spec: { replicas: 1 },
  });
  const s = present(c.store.get('Service.v1', 'ns/s'));
  t.equal(s.metadata.generation, undefined, 'core objects have no generation');
  t.match(s['spec'], { clusterIP: /^10\.96\./ }, 'the server defaults the cluster IP');
  t.same(parent().metadata.finalizers, ['metacontroller.io/compositecontroller-ironic']);
});

t.test('the children and related maps of the request', async (t) => {
  let seen: Request | undefined;
  const { cluster: c } = cluster(
    (request) => {
      seen = request;
      return { status: {}, children: [secret({ a: 'YQ==' })] };
    },
    { customize: () => ({ relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: 'ns', names: ['x'] }] }) },
  );
  c.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns' }, data: {} });
  c.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y', namespace: 'ns' }, data: {} });
  await c.round();
  t.same(
    Object.keys(seen?.children ?? {}),
    CONTROLLER.childTypes.map((ct) => ct.group).sort(),
    'every declared type, empty (in the sorted order of the Go wire)',
  );
  t.same(Object.keys(seen?.related['ConfigMap.v1'] ?? {}), ['ns/x'], 'by name');
  await c.round();
  t.same(Object.keys(seen?.children['Secret.v1'] ?? {}), ['ns/s'], 'v2 keys');
  t.equal(seen?.finalizing, false);
});

t.test('InPlace: an update when the merge differs, generation moves with the spec only', async (t) => {
  let desired = deployment({ replicas: 1 });
  const { cluster: c } = cluster(() => ({ status: {}, children: [desired] }));
  await c.round();
  t.same(verbs((await c.round()).writes), [], 'unchanged: no write');
  desired = deployment({ replicas: 1 }, { team: 'a' });
  t.same(verbs((await c.round()).writes), ['update Deployment ns/d']);
  t.equal(c.store.get('Deployment.apps/v1', 'ns/d')?.metadata.generation, 1, 'a label is not a new generation');
  desired = deployment({ replicas: 2 }, { team: 'a' });
  t.same(verbs((await c.round()).writes), ['update Deployment ns/d']);
  t.equal(c.store.get('Deployment.apps/v1', 'ns/d')?.metadata.generation, 2);
});

t.test('OnDelete: never updated; recreated in the new form once deleted by someone', async (t) => {
  let desired = secret({ a: 'MQ==' });
  const { cluster: c } = cluster(() => ({ status: {}, children: [desired] }));
  await c.round();
  desired = secret({ a: 'Mg==' });
  const round = await c.round();
  t.same(verbs(round.writes), []);
  t.same(round.syncs[0]?.pending, ['Secret ns/s']);
  t.same(c.store.get('Secret.v1', 'ns/s')?.['data'], { a: 'MQ==' });
  c.store.delete('Secret.v1', 'ns/s');
  t.same(verbs((await c.round()).writes), ['create Secret ns/s']);
  t.same(c.store.get('Secret.v1', 'ns/s')?.['data'], { a: 'Mg==' });
});

t.test('Recreate: deleted when it differs, created on the next sync', async (t) => {
  let desired = configMap({ a: '1' });
  const { cluster: c } = cluster(() => ({ status: {}, children: [desired] }));
  await c.round();
  desired = configMap({ a: '2' });
  t.same(verbs((await c.round()).writes), ['delete ConfigMap ns/c']);
  t.same(verbs((await c.round()).writes), ['create ConfigMap ns/c']);
});

t.test('a child left out is deleted, with what it owns', async (t) => {
  let children: Json[] = [deployment({}), configMap({})];
  const { cluster: c } = cluster(() => ({ status: {}, children }));
  await c.round();
  const d = present(c.store.get('Deployment.apps/v1', 'ns/d'));
  c.put({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'rs',
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: d.metadata.uid ?? '', controller: true }],
    },
  });
  children = [configMap({})];
  const round = await c.round();
  t.same(
    round.writes.map((w) => `${w.verb} ${w.object} by ${w.by}`),
    ['delete Deployment ns/d by metacontroller', 'delete ReplicaSet ns/rs by garbage-collector'],
  );
});

const refused = [
  {
    scenario: 'a child whose controller-uid label is not the parent',
    child: deployment({}, { 'controller-uid': 'someone-else' }),
    error: /labels on desired child Deployment ns\/d don't match parent selector/,
  },
  {
    scenario: 'an undeclared child type',
    child: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } },
    error: /Job.batch\/v1 is not a child type of CompositeController ironic/,
  },
  {
    scenario: 'a child in another namespace',
    child: { ...deployment({}), metadata: { name: 'd', namespace: 'other' } },
    error: /must be in the namespace of its parent/,
  },
] as const;

for (const c of refused) {
  t.test(`${c.scenario} fails the whole sync: nothing applied, no status`, async (t) => {
    const { cluster: cl } = cluster(() => ({ status: { x: 1 }, children: [configMap({}), c.child] }));
    const round = await cl.round();
    t.match(round.syncs[0]?.error, c.error);
    t.same(verbs(round.writes), ['finalizer Ironic ns/p'], 'only the finalizer, added before the hook');
  });
}

t.test('a duplicate child fails the sync', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [configMap({}), configMap({})] }));
  t.match((await c.round()).syncs[0]?.error, /ConfigMap ns\/c is returned twice/);
});

const responses = [
  { scenario: 'an unknown top-level field (v2 strict)', body: { status: {}, children: [], message: 'hi' }, error: /strict validation failed .* message/ },
  {
    scenario: 'a child without kind',
    body: { status: {}, children: [{ apiVersion: 'v1', metadata: { name: 'x' } }] },
    error: /children\[0\] needs apiVersion, kind and metadata.name/,
  },
  { scenario: 'not an object', body: 'nope', error: /not a JSON object/ },
] as const;

for (const r of responses) {
  t.test(`a response with ${r.scenario} fails the sync`, async (t) => {
    const { cluster: c } = cluster(() => r.body);
    t.match((await c.round()).syncs[0]?.error, r.error);
  });
}

t.test('an HTTP error fails the sync', async (t) => {
  const { cluster: c } = cluster(() => ({ message: 'boom' }), { statusCode: 500 });
  t.match((await c.round()).syncs[0]?.error, /\/ironic\/sync: unsupported status code: 500 body: \{"message":"boom"\}/);
});

t.test('the status gets observedGeneration and is written only when it changes', async (t) => {
  let status: Json = { phase: 'a' };
  const { cluster: c, parent } = cluster(() => ({ status, children: [] }));
  await c.round();
  t.same(parent()['status'], { phase: 'a', observedGeneration: 1 });
  t.same(verbs((await c.round()).writes), []);
  status = { phase: 'b' };
  t.same(verbs((await c.round()).writes), ['status Ironic ns/p']);
});

t.test('a status the API server prunes is written on every sync (the hot loop it would be)', async (t) => {
  const { cluster: c } = cluster(() => ({ status: { unknownField: 1 }, children: [] }), {
    storedStatus: (_p, s) => ({ observedGeneration: s['observedGeneration'] }),
  });
  await c.round();
  t.same(verbs((await c.round()).writes), ['status Ironic ns/p']);
});

t.test('customize is called once per generation', async (t) => {
  const { cluster: c, calls, parent } = cluster(() => ({ status: {}, children: [] }));
  await c.round();
  await c.round();
  t.equal(calls.filter((p) => p.endsWith('/customize')).length, 1);
  c.put({ ...parent(), spec: { changed: true } });
  await c.round();
  t.equal(calls.filter((p) => p.endsWith('/customize')).length, 2);
});

t.test('deletion: finalize until finalized, then the parent and its children are gone', async (t) => {
  const {
    cluster: c,
    calls,
    parent,
  } = cluster((request) =>
    request.finalizing
      ? { status: {}, children: [], finalized: Object.keys(request.children['Deployment.apps/v1'] ?? {}).length === 0 }
      : { status: {}, children: [deployment({})] },
  );
  await c.round();
  c.remove('Ironic.ironic.metal3.io/v1alpha1', 'ns', 'p');
  t.ok(parent().metadata.deletionTimestamp);
  t.equal(parent().metadata.generation, 2, 'a graceful deletion bumps the generation');
  const first = await c.round();
  t.equal(calls.at(-1), '/ironic/finalize');
  t.same(verbs(first.writes), ['delete Deployment ns/d', 'status Ironic ns/p']);
  const second = await c.round();
  t.same(verbs(second.writes), ['finalizer Ironic ns/p', 'delete Ironic ns/p']);
  t.same(c.store.list(), []);
});

t.test('finalized: true from a plain sync drops the finalizer, which the next sync adds again', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [], finalized: true }));
  await c.round();
  t.same(verbs((await c.round()).writes), ['finalizer Ironic ns/p', 'finalizer Ironic ns/p']);
});

t.test('related objects: names, a whole namespace, label selectors', async (t) => {
  const object = (name: string, namespace: string, labels: Record<string, string> = {}): KubeResource => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels },
  });
  const objects = [object('a', 'x', { app: 'i' }), object('b', 'x'), object('a', 'y', { app: 'i' })];
  const keys = (rule: Json): string[] => Object.keys(resolveRelated([{ apiVersion: 'v1', resource: 'secrets', ...rule }], objects)['Secret.v1'] ?? {});
  t.same(keys({ namespace: 'x', names: ['a', 'z'] }), ['x/a']);
  t.same(keys({ names: ['a'] }), ['x/a', 'y/a'], 'names in every namespace');
  t.same(keys({ namespace: 'x' }), ['x/a', 'x/b'], 'a namespace only: all of it');
  t.same(keys({ labelSelector: { matchLabels: { app: 'i' } } }), ['x/a', 'y/a']);
  t.same(keys({ namespace: 'z' }), [], 'the group is there even when empty');
  t.throws(() => resolveRelated([{ apiVersion: 'v1', resource: 'endpoints' }], objects), /does not serve/);
  t.throws(() => resolveRelated([{ apiVersion: 'v1', resource: 'secrets', names: ['a'], labelSelector: {} }], objects), /both names and labelSelector/);
  t.ok(
    selectorMatches(
      {
        matchExpressions: [
          { key: 'app', operator: 'NotIn', values: ['x'] },
          { key: 'tier', operator: 'DoesNotExist' },
        ],
      },
      { app: 'i' },
    ),
  );
  t.notOk(selectorMatches({ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, {}));
});

t.test('a child the API server refuses fails the sync and is not written', async (t) => {
  const transport: HookTransport = async (path) => ({
    statusCode: 200,
    body: path.endsWith('/customize') ? { relatedResources: [] } : { status: {}, children: [configMap({ a: 1 })] },
  });
  const c = new Cluster({
    transport,
    controllers: [CONTROLLER],
    clock: () => NOW,
    admitChild: (child) => (child.kind === 'ConfigMap' ? ['data.a: must be a string'] : []),
  });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  const round = await c.round();
  t.equal(round.syncs[0]?.error, "can't reconcile children for Ironic ns/p: can't create ConfigMap ns/c: data.a: must be a string");
  t.same(round.syncs[0]?.warnings, []);
  t.equal(c.store.get('ConfigMap.v1', 'ns/c'), undefined);
});

t.test('a child that exists without being owned is left alone', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [configMap({ a: '1' })] }));
  c.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { mine: 'yes' } });
  const round = await c.round();
  t.match(round.syncs[0]?.warnings, [/ConfigMap ns\/c already exists and is not owned by Ironic ns\/p/]);
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.['data'], { mine: 'yes' });
});
