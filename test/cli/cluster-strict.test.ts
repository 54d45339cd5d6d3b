/**
 * The in-memory Metacontroller and API server as strict as the real ones (issue 12's gaps), with
 * hand-written hooks: normalisation re-sends a non-canonical desired value on every sync, immutable
 * fields and merge errors fail the update (again on every sync), ownership, deletion, customize, order,
 * and the kubelet stand-in's nodes and replicas.
 */
import t from 'tap';
import { Cluster, type HookTransport } from '../../src/cli/cluster.js';
import { IRONIC_CONTROLLER, type ControllerSpec } from '../../src/cli/controllers.js';
import { readyDaemonSetStatus, settledStatus } from '../../src/cli/kubelet.js';
import type { Json, KubeResource } from '../../src/cli/objects.js';
import { resolveRelated } from '../../src/cli/related.js';
import { sentRequest, type SentRequest } from '../helpers/hooks.js';
import { objAt, objsAt, present } from '../support/paths.js';

type Request = SentRequest;
type Hook = (request: Request) => unknown;

const CONTROLLER: ControllerSpec = {
  ...IRONIC_CONTROLLER,
  childTypes: [
    { group: 'Deployment.apps/v1', strategy: 'InPlace' },
    { group: 'StatefulSet.apps/v1', strategy: 'InPlace' },
    { group: 'Secret.v1', strategy: 'InPlace' },
    { group: 'ConfigMap.v1', strategy: 'InPlace' },
    { group: 'Service.v1', strategy: 'InPlace' },
  ],
};

const PARENT = 'Ironic.ironic.metal3.io/v1alpha1';

const cluster = (sync: Hook, options: { customize?: () => unknown; clock?: () => string } = {}) => {
  const calls: string[] = [];
  const transport: HookTransport = async (path, body) => {
    calls.push(path);
    if (path.endsWith('/customize')) return { statusCode: 200, body: options.customize?.() ?? { relatedResources: [] } };
    return { statusCode: 200, body: sync(sentRequest(JSON.parse(body))) };
  };
  const c = new Cluster({ transport, controllers: [CONTROLLER], clock: options.clock ?? (() => '2026-01-01T00:00:00Z') });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  return { cluster: c, calls, parent: () => present(c.store.get(PARENT, 'ns/p')) };
};

const podTemplate = (resources: Json = {}): Json => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i:1', resources }] } });
const deployment = (spec: Json): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { selector: { matchLabels: { app: 'a' } }, template: podTemplate(), ...spec },
});
const verbs = (writes: readonly { verb: string; object: string }[]): string[] => writes.map((w) => `${w.verb} ${w.object}`);

t.test('gap 1: quantities are stored canonical; a non-canonical desired value is sent again on every sync', async (t) => {
  const { cluster: c } = cluster(() => ({
    status: {},
    children: [deployment({ template: podTemplate({ limits: { cpu: 1, memory: '1024Mi' }, requests: { cpu: 0.5 } }) })],
  }));
  await c.round();
  const stored = present(c.store.get('Deployment.apps/v1', 'ns/d'));
  t.match(stored, { spec: { template: { spec: { containers: [{ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }] } } } });
  for (let i = 0; i < 3; i += 1) t.same(verbs((await c.round()).writes), ['update Deployment ns/d'], `sync ${i + 2} sends the update again`);
  t.equal(c.store.get('Deployment.apps/v1', 'ns/d')?.metadata.resourceVersion, stored.metadata.resourceVersion, 'which changes nothing stored');
});

t.test('gap 1: canonical values settle', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [deployment({ template: podTemplate({ limits: { cpu: '1', memory: '1Gi' } }) })] }));
  await c.round();
  t.same((await c.round()).writes, []);
});

t.test('gap 1: defaulted fields of workloads, PVC templates and Services (a targetPort defaults to its port)', async (t) => {
  const set = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's' },
    spec: {
      serviceName: 's',
      selector: { matchLabels: { app: 'a' } },
      template: podTemplate(),
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } }],
    },
  };
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ name: 'api', port: 6385 }] } };
  const { cluster: c } = cluster(() => ({ status: {}, children: [deployment({}), set, service] }));
  await c.round();
  t.match(c.store.get('Deployment.apps/v1', 'ns/d'), {
    spec: {
      replicas: 1,
      revisionHistoryLimit: 10,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: { spec: { restartPolicy: 'Always', containers: [{ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' }] } },
    },
  });
  t.match(c.store.get('StatefulSet.apps/v1', 'ns/s'), {
    spec: {
      podManagementPolicy: 'OrderedReady',
      volumeClaimTemplates: [
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', spec: { volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } } },
      ],
    },
  });
  t.match(c.store.get('Service.v1', 'ns/svc'), {
    spec: { type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 6385, targetPort: 6385, protocol: 'TCP' }] },
  });
  const second = await c.round();
  t.same(verbs(second.writes), ['update StatefulSet ns/s'], 'a PVC template is atomic: the non-canonical storage is sent again');
});

t.test('gap 2: an immutable field answers 422, and the failed update repeats on every sync', async (t) => {
  let selector = 'a';
  const { cluster: c } = cluster(() => ({
    status: { n: selector },
    children: [deployment({ selector: { matchLabels: { app: selector } }, template: { ...podTemplate(), metadata: { labels: { app: selector } } } })],
  }));
  await c.round();
  selector = 'b';
  for (let i = 0; i < 2; i += 1) {
    const round = await c.round();
    t.match(round.syncs[0]?.error, /Deployment ns\/d is invalid: spec\.selector: Invalid value: .*field is immutable/);
  }
  t.same(objAt(c.store.get('Deployment.apps/v1', 'ns/d'), 'spec')['selector'], { matchLabels: { app: 'a' } }, 'nothing changed');
  t.same(c.store.get(PARENT, 'ns/p')?.['status'], { n: 'b', observedGeneration: 1 }, 'the status is written all the same');
});

t.test('gap 2: a Secret with immutable: true keeps its data', async (t) => {
  let value = 'eA==';
  const { cluster: c } = cluster(() => ({
    status: {},
    children: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, immutable: true, data: { k: value } }],
  }));
  await c.round();
  value = 'eQ==';
  t.match((await c.round()).syncs[0]?.error, /Secret ns\/s is invalid: data: Forbidden: field is immutable/);
});

t.test('gap 3: a map desired as a scalar or a list is no merge error (apply.go lets it through): the fields applied last time go', async (t) => {
  let data: unknown = { a: 'x' };
  const { cluster: c } = cluster(() => ({ status: {}, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data }] }));
  await c.round();
  const stored = present(c.store.get('ConfigMap.v1', 'ns/c'));
  c.store.update({ ...stored, data: { a: 'x', other: 'kept' } });
  data = ['a'];
  const round = await c.round();
  t.same(round.syncs[0]?.error, undefined, 'no error');
  t.same(verbs(round.writes), ['update ConfigMap ns/c']);
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.['data'], { other: 'kept' }, 'the key applied last time is gone, the other stays');
  t.same((await c.round()).writes, [], 'then quiet');
});

const withEnv = (env: Json[]): Json =>
  deployment({ template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i:1', env }] } } });
const envOf = (c: Cluster): unknown => objsAt(c.store.get('Deployment.apps/v1', 'ns/d'), 'spec', 'template', 'spec', 'containers')[0]?.['env'];

t.test('gap 3: duplicate env names are stored as given, then written once per duplicate with the last value', async (t) => {
  const { cluster: c } = cluster(() => ({
    status: {},
    children: [
      withEnv([
        { name: 'FOO', value: '1' },
        { name: 'FOO', value: '2' },
      ]),
    ],
  }));
  await c.round();
  t.same(
    envOf(c),
    [
      { name: 'FOO', value: '1' },
      { name: 'FOO', value: '2' },
    ],
    'created as given (a duplicate env name is only a warning)',
  );
  t.same(verbs((await c.round()).writes), ['update Deployment ns/d']);
  t.same(
    envOf(c),
    [
      { name: 'FOO', value: '2' },
      { name: 'FOO', value: '2' },
    ],
    'each stored duplicate becomes the last desired one',
  );
  t.same((await c.round()).writes, [], 'then quiet');
});

const withContainers = (names: readonly string[]): Json =>
  deployment({ template: { metadata: { labels: { app: 'a' } }, spec: { containers: names.map((name, i) => ({ name, image: `i:${i}` })) } } });
const imagesOf = (c: Cluster): unknown => objsAt(c.store.get('Deployment.apps/v1', 'ns/d'), 'spec', 'template', 'spec', 'containers').map((x) => x['image']);

t.test('gap 3: a create with duplicate container names is refused (422 Duplicate value), on every sync', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [withContainers(['c', 'c'])] }));
  for (let i = 0; i < 2; i += 1)
    t.match((await c.round()).syncs[0]?.error, /Deployment ns\/d is invalid: spec\.template\.spec\.containers\[1\]\.name: Duplicate value: "c"/);
  t.equal(c.store.get('Deployment.apps/v1', 'ns/d'), undefined);
});

t.test('gap 3: a desired duplicate of a stored container is merged into it (written once, the last wins) and the update passes', async (t) => {
  let names = ['c'];
  const { cluster: c } = cluster(() => ({ status: {}, children: [withContainers(names)] }));
  await c.round();
  names = ['c', 'c'];
  const round = await c.round();
  t.same(round.syncs[0]?.error, undefined);
  t.same(imagesOf(c), ['i:1'], 'one container, the image of the last duplicate');
  t.same((await c.round()).writes, []);
});

t.test('gap 3: the API server refuses repeated volume names, port names and mount paths', async (t) => {
  const { cluster: c } = cluster(() => ({ status: {}, children: [] }));
  const refused = (object: KubeResource): string => {
    try {
      c.store.create(object);
      return '';
    } catch (error) {
      return error instanceof Error ? error.message : '';
    }
  };
  const pod = (spec: Json): KubeResource => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'ns' }, spec });
  t.match(refused(pod({ containers: [{ name: 'a' }], initContainers: [{ name: 'a' }] })), /spec\.containers\[0\]\.name: Duplicate value: "a"/);
  t.match(refused(pod({ containers: [{ name: 'a' }], volumes: [{ name: 'v' }, { name: 'v' }] })), /spec\.volumes\[1\]\.name: Duplicate value: "v"/);
  t.match(
    refused(
      pod({
        containers: [
          {
            name: 'a',
            volumeMounts: [
              { name: 'v', mountPath: '/x' },
              { name: 'w', mountPath: '/x' },
            ],
          },
        ],
      }),
    ),
    /volumeMounts\[1\]\.mountPath: Invalid value: "\/x": must be unique/,
  );
  t.match(
    refused({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'ns' },
      spec: {
        ports: [
          { name: 'p', port: 1 },
          { name: 'p', port: 2 },
        ],
      },
    }),
    /spec\.ports\[1\]\.name: Duplicate value: "p"/,
  );
  t.equal(refused(pod({ containers: [{ name: 'a', env: [{ name: 'E' }, { name: 'E' }] }] })), '', 'duplicate env names are allowed');
});

t.test('gap 4: an object with a child name the parent does not own is never adopted (AlreadyExists, ignored)', async (t) => {
  const { cluster: c, parent } = cluster(() => ({
    status: {},
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }],
  }));
  c.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', labels: { 'controller-uid': 'someone-else' } }, data: { mine: 'yes' } });
  await c.round();
  await c.round();
  t.same(c.store.get('ConfigMap.v1', 'ns/c')?.['data'], { mine: 'yes' });
  t.same(c.store.ownedBy(parent().metadata.uid ?? ''), []);
});

t.test('gap 4: orphans of --cascade=orphan keep the old controller-uid label and are not children of a new parent', async (t) => {
  const { cluster: c } = cluster((request) => ({
    status: { seen: Object.keys(request.children['ConfigMap.v1'] ?? {}) },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }],
  }));
  await c.round();
  const oldUid = present(c.store.get(PARENT, 'ns/p')).metadata.uid;
  c.store.setFinalizers(present(c.store.get(PARENT, 'ns/p')), []);
  c.remove(PARENT, 'ns', 'p', 'Orphan');
  const orphan = present(c.store.get('ConfigMap.v1', 'ns/c'));
  t.same(orphan.metadata.ownerReferences, undefined, 'no owner left');
  t.equal(orphan.metadata.labels?.['controller-uid'], oldUid, 'the old label stays');
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  await c.round();
  t.same(objAt(c.store.get(PARENT, 'ns/p'), 'status')['seen'], [], 'not observed as a child');
  t.equal(c.store.get('ConfigMap.v1', 'ns/c')?.metadata.labels?.['controller-uid'], oldUid);
});

t.test('gap 5: finalize is called whenever deletionTimestamp is set, finalizer or not', async (t) => {
  const { cluster: c, calls } = cluster(() => ({ status: {}, children: [] }));
  await c.round();
  const p = present(c.store.get(PARENT, 'ns/p'));
  c.store.setFinalizers(p, ['someone.else/keep']);
  c.remove(PARENT, 'ns', 'p');
  await c.round();
  t.equal(calls.at(-1), '/ironic/finalize');
});

t.test('gap 5: foreground deletion: Metacontroller stops managing children and the garbage collector deletes them', async (t) => {
  const { cluster: c, calls } = cluster((request) => ({
    status: {},
    children: request.finalizing ? [deployment({})] : [deployment({})],
    finalized: request.finalizing,
  }));
  await c.round();
  c.remove(PARENT, 'ns', 'p', 'Foreground');
  t.match(c.store.get(PARENT, 'ns/p')?.metadata.finalizers, ['foregroundDeletion', 'metacontroller.io/compositecontroller-ironic']);
  t.equal(c.store.get('Deployment.apps/v1', 'ns/d'), undefined, 'the dependents go first');
  const round = await c.round();
  t.equal(calls.at(-1), '/ironic/finalize');
  t.notOk(verbs(round.writes).includes('create Deployment ns/d'), 'the child the finalize hook returns is not created again');
  t.equal(c.store.get(PARENT, 'ns/p'), undefined, 'gone once finalized and its dependents are gone');
});

t.test('gap 5: once its own finalizer is removed, Metacontroller no longer manages the children of a parent being deleted', async (t) => {
  const { cluster: c } = cluster((request) => ({ status: {}, children: request.finalizing ? [] : [deployment({})], finalized: request.finalizing }));
  await c.round();
  const p = present(c.store.get(PARENT, 'ns/p'));
  c.store.setFinalizers(p, [...(p.metadata.finalizers ?? []), 'someone.else/keep']);
  c.remove(PARENT, 'ns', 'p');
  const round = await c.round();
  t.same(c.store.get(PARENT, 'ns/p')?.metadata.finalizers, ['someone.else/keep'], 'finalized: our finalizer is gone');
  t.notOk(verbs(round.writes).includes('delete Deployment ns/d'), 'the child left out is not deleted');
  t.ok(c.store.get('Deployment.apps/v1', 'ns/d'), 'the child stays for the garbage collector');
});

t.test('gap 5: a parent with the orphan finalizer (a garbage collector finalizer) has its children left alone', async (t) => {
  const { cluster: c } = cluster((request) => ({ status: {}, children: request.finalizing ? [] : [deployment({})] }));
  await c.round();
  const p = present(c.store.get(PARENT, 'ns/p'));
  c.store.setFinalizers(p, ['orphan', ...(p.metadata.finalizers ?? [])]);
  c.remove(PARENT, 'ns', 'p');
  await c.round();
  t.ok(c.store.get('Deployment.apps/v1', 'ns/d'), 'not deleted by Metacontroller');
});

t.test('gap 5: a deleted or scaled-down workload keeps its pods for their termination grace period', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const { cluster: c } = cluster(() => ({ status: {}, children: [] }), { clock: () => new Date(now).toISOString() });
  const template = (grace?: number): Json => ({
    ...podTemplate(),
    spec: { containers: [{ name: 'c', image: 'i:1' }], ...(grace !== undefined && { terminationGracePeriodSeconds: grace }) },
  });
  const d = c.store.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template: template(60) },
  });
  c.store.updateStatus(d, { replicas: 2 });
  const s = c.store.create({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'ns' },
    spec: { serviceName: 's', selector: { matchLabels: { app: 'a' } }, template: template() },
  });
  c.store.updateStatus(s, { replicas: 1 });
  c.store.updateStatus(s, { replicas: 0 });
  c.remove('Deployment.apps/v1', 'ns', 'd');
  t.same(
    c.store.terminatingPods().map((p) => [p.kind, p.name, p.pods, p.until]),
    [
      ['StatefulSet', 's', 1, '2026-01-01T00:00:30Z'],
      ['Deployment', 'd', 2, '2026-01-01T00:01:00Z'],
    ],
  );
  now += 30 * 1000;
  t.same(
    c.store.terminatingPods().map((p) => p.name),
    ['d'],
    'the default grace period (30 s) is over',
  );
  now += 30 * 1000;
  t.same(c.store.terminatingPods(), [], 'and the template one (60 s)');
});

t.test('gap 6: a related rule with an empty names list selects every object of the namespace', async (t) => {
  const objects: KubeResource[] = [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'x' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b', namespace: 'x' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c', namespace: 'y' } },
  ];
  t.same(Object.keys(resolveRelated([{ apiVersion: 'v1', resource: 'secrets', namespace: 'x', names: [] }], objects)['Secret.v1'] ?? {}), ['x/a', 'x/b']);
});

t.test('gap 6: customize answers are cached per uid+generation for 20 minutes', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const { cluster: c, calls } = cluster(() => ({ status: {}, children: [] }), { clock: () => new Date(now).toISOString() });
  await c.round();
  now += 19 * 60 * 1000;
  await c.round();
  t.equal(calls.filter((p) => p.endsWith('/customize')).length, 1, 'cached for 19 minutes');
  now += 2 * 60 * 1000;
  await c.round();
  t.equal(calls.filter((p) => p.endsWith('/customize')).length, 2, 'asked again after 20');
});

t.test('gap 7: children are written in Metacontroller order (GetAllGVKs: group, version, kind), not response order', async (t) => {
  let all = true;
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: {} };
  const { cluster: c } = cluster(() => ({
    status: {},
    children: all
      ? [
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 1 }] } },
          deployment({}),
          secret,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} },
        ]
      : [],
  }));
  const round = await c.round();
  t.same(
    verbs(round.writes).filter((w) => w.startsWith('create')),
    ['create ConfigMap ns/c', 'create Secret ns/x', 'create Service ns/s', 'create Deployment ns/d'],
    'the core group before apps',
  );
  all = false;
  t.same(
    verbs((await c.round()).writes).filter((w) => w.startsWith('delete')),
    ['delete ConfigMap ns/c', 'delete Secret ns/x', 'delete Service ns/s', 'delete Deployment ns/d'],
    'deletions in the same order',
  );
});

t.test('kubelet: a DaemonSet runs on the emulated nodes its nodeSelector matches; a Deployment of 0 replicas has no pod', async (t) => {
  const ds = (nodeSelector?: Record<string, string>): KubeResource => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'x', generation: 1 },
    spec: { template: { spec: { ...(nodeSelector !== undefined && { nodeSelector }) } } },
  });
  t.match(readyDaemonSetStatus(ds()), { desiredNumberScheduled: 3, currentNumberScheduled: 3 });
  t.match(readyDaemonSetStatus(ds({ 'node-role.kubernetes.io/control-plane': '' })), { currentNumberScheduled: 1 });
  t.match(readyDaemonSetStatus(ds({ 'ironic.metal3.io/retired-workload': 'true' })), { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberReady: 0 });
  const none = settledStatus(
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 0 } },
    '2026-01-01T00:00:00Z',
  );
  t.match(none, { observedGeneration: 2, replicas: 0, readyReplicas: 0 });
});

t.test('gap 7: syncs on events, the resync period and resyncAfterSeconds, not every round', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  let resyncAfter: number | undefined = undefined;
  const transport: HookTransport = async (path) => ({
    statusCode: 200,
    body: path.endsWith('/customize')
      ? { relatedResources: [] }
      : { status: {}, children: [deployment({})], ...(resyncAfter !== undefined && { resyncAfterSeconds: resyncAfter }) },
  });
  const c = new Cluster({ transport, controllers: [CONTROLLER], clock: () => new Date(now).toISOString(), resyncPeriodSeconds: 300 });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  const syncs = async (): Promise<number> => {
    now += 1000;
    return (await c.round()).syncs.length;
  };
  t.equal(await syncs(), 1, 'the new parent');
  t.equal(await syncs(), 1, 'its own writes are events');
  t.equal(await syncs(), 0, 'nothing changed: no sync');
  c.store.updateStatus(present(c.store.get('Deployment.apps/v1', 'ns/d')), { readyReplicas: 1 });
  t.equal(await syncs(), 1, 'a child changed');
  t.equal(await syncs(), 0);
  now += 300 * 1000;
  t.equal(await syncs(), 1, 'the resync period');
  resyncAfter = 5;
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: { x: 1 } });
  t.equal(await syncs(), 1, 'the parent changed');
  t.equal(await syncs(), 1, 'the status write is an event');
  t.equal(await syncs(), 0);
  now += 5000;
  t.equal(await syncs(), 1, 'resyncAfterSeconds');
});

t.test('gap 7: a lagging cache shows a child a round late; its create is not repeated (AlreadyExists is ignored)', async (t) => {
  const seen: string[][] = [];
  const transport: HookTransport = async (path, body) => {
    if (path.endsWith('/customize')) return { statusCode: 200, body: { relatedResources: [] } };
    const request = sentRequest(JSON.parse(body));
    seen.push([...Object.keys(request.children['Secret.v1'] ?? {}), ...Object.keys(request.children['Deployment.apps/v1'] ?? {})]);
    return { statusCode: 200, body: { status: {}, children: [deployment({}), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: {} }] } };
  };
  const c = new Cluster({ transport, controllers: [CONTROLLER], clock: () => '2026-01-01T00:00:00Z', laggingGroups: ['Secret.v1'] });
  c.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'p', namespace: 'ns' }, spec: {} });
  await c.round();
  const second = await c.round();
  await c.round();
  t.same(seen, [[], ['ns/d'], ['ns/s', 'ns/d']], 'the Secret is observed a round after the Deployment');
  t.same(second.writes, [], 'no second create');
  t.same(second.syncs[0]?.warnings, []);
});
