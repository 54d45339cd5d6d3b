/**
 * The IronicImageCache plan as tables: what a sync and a finalize decide from the observed objects and
 * the spec alone, with no HTTP and no hook.
 */
import t from 'tap';
import type { KubeObject, ObjectMap } from '../../src/api/shared/hook.js';
import type { ParentView } from '../../src/render/parent.js';
import { finalizeCache, finishCache, prepareCache } from '../../src/render/image-cache/plan.js';
import { usersOf } from '../../src/render/used-by.js';
import { IMAGE_CACHE_USED_BY } from '../../src/api/ironic-image-cache/schema.js';
import { FIXED_NOW, testConfig } from '../helpers/hooks.js';
import { related } from '../fixtures/ironic-scenarios.js';
import { CACHE_TLS, ironicUsing } from '../fixtures/image-cache-scenarios.js';

type Objects = Record<string, Record<string, Record<string, unknown>>>;

const NS = 'metal3';

const view = (spec: unknown, extra: { children?: Objects; related?: Objects; status?: unknown; finalizers?: string[] } = {}): ParentView => ({
  name: 'ipa',
  namespace: NS,
  uid: 'cache-uid',
  finalizers: extra.finalizers ?? [],
  generation: 2,
  spec,
  status: extra.status,
  children: (extra.children ?? {}) as ObjectMap,
  related: (extra.related ?? {}) as ObjectMap,
  now: FIXED_NOW,
});

const statefulSet = (status: Record<string, unknown>, generation = 1): KubeObject => {
  const metadata: KubeObject['metadata'] = { name: 'ipa-ipa-cache', namespace: NS, generation };
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata, spec: { replicas: 1 }, status };
};
const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ipa-ipa-cache', namespace: NS }, spec: { clusterIP: '10.0.0.7' } };
const observed = (set: KubeObject | undefined): Objects => ({
  ...(set !== undefined && { 'StatefulSet.apps/v1': { [`${NS}/ipa-ipa-cache`]: set } }),
  'Service.v1': { [`${NS}/ipa-ipa-cache`]: service },
});
const READY = { observedGeneration: 1, replicas: 1, readyReplicas: 1, currentRevision: 'a', updateRevision: 'a' };

/** The view, its observed StatefulSet stamped with the template hash of what the view renders (given its spec). */
const current = (v: ParentView): ParentView => {
  const rendered = finishCache(v, prepareCache(v), testConfig().render).children.find((c) => c.kind === 'StatefulSet') as unknown as KubeObject;
  const sets = (v.children as Objects)['StatefulSet.apps/v1'] ?? {};
  const stamped = Object.fromEntries(
    Object.entries(sets).map(([key, set]) => [key, { ...set, metadata: { ...(set['metadata'] as object), annotations: rendered.metadata.annotations } }]),
  );
  return { ...v, children: { ...(v.children as Objects), 'StatefulSet.apps/v1': stamped } as unknown as ObjectMap };
};

t.test('sync: the Ready condition from the spec and the observed StatefulSet', async (t) => {
  const cases: readonly { scenario: string; v: ParentView; status: 'True' | 'False'; reason: string; message?: RegExp; children: number }[] = [
    { scenario: 'nothing observed yet', v: view({}), status: 'False', reason: 'DownloadInProgress', message: /being created/, children: 3 },
    {
      scenario: 'the pod downloads',
      v: current(view({}, { children: observed(statefulSet({ observedGeneration: 1, replicas: 1, readyReplicas: 0 })) })),
      status: 'False',
      reason: 'DownloadInProgress',
      message: /not ready yet: the downloads run first/,
      children: 3,
    },
    {
      scenario: 'a new template rolls out',
      v: current(view({}, { children: observed(statefulSet({ ...READY, updateRevision: 'b' })) })),
      status: 'False',
      reason: 'DownloadInProgress',
      message: /rolling out/,
      children: 3,
    },
    {
      scenario: 'a StatefulSet of another spec (the first sync after a change)',
      v: view({}, { children: observed(statefulSet(READY)) }),
      status: 'False',
      reason: 'DownloadInProgress',
      message: /being given the current spec/,
      children: 3,
    },
    { scenario: 'served', v: current(view({}, { children: observed(statefulSet(READY)) })), status: 'True', reason: 'ImagesAvailable', children: 3 },
    {
      scenario: 'an invalid spec keeps the observed children',
      v: view({ storage: { size: 'lots' } }, { children: observed(statefulSet(READY)) }),
      status: 'False',
      reason: 'InvalidSpec',
      message: /spec\.storage\.size/,
      children: 2,
    },
    {
      scenario: 'a missing certificate keeps them too',
      v: view({ tlsCertificateName: 'ipa-tls' }, { children: observed(statefulSet(READY)) }),
      status: 'False',
      reason: 'MissingReference',
      children: 2,
    },
    {
      scenario: 'with its certificate',
      v: current(view({ tlsCertificateName: 'ipa-tls' }, { children: observed(statefulSet(READY)), related: related(CACHE_TLS) })),
      status: 'True',
      reason: 'ImagesAvailable',
      children: 3,
    },
  ];
  for (const c of cases) {
    const v = c.v;
    const result = finishCache(v, prepareCache(v), testConfig().render);
    t.match(result.status.conditions?.[0], { status: c.status, reason: c.reason, ...(c.message && { message: c.message }) }, c.scenario);
    t.equal(result.children.length, c.children, `${c.scenario}: children`);
  }
});

t.test('the claim template of an existing StatefulSet is kept, even when the spec turns ephemeral', async (t) => {
  const template = { metadata: { name: 'images' }, spec: { resources: { requests: { storage: '1Gi' } } } };
  const set = { ...statefulSet(READY), spec: { replicas: 1, volumeClaimTemplates: [template] } };
  const v = view({ storage: { size: '9Gi', ephemeral: true } }, { children: observed(set) });
  const sts = finishCache(v, prepareCache(v), testConfig().render).children.find((c) => c.kind === 'StatefulSet') as unknown as {
    spec: { volumeClaimTemplates?: unknown[]; template: { spec: { volumes: { name: string }[] } } };
  };
  t.same(sts.spec.volumeClaimTemplates, [template]);
  t.notOk(
    sts.spec.template.spec.volumes.some((volume) => volume.name === 'images'),
    'no emptyDir shadows the claim',
  );
});

t.test('the users of a cache: Ironics of its namespace that name it', async (t) => {
  const elsewhere = { ...ironicUsing('far'), metadata: { name: 'far', namespace: 'other' } };
  t.same(
    usersOf(IMAGE_CACHE_USED_BY, {
      related: related(ironicUsing('b'), ironicUsing('a'), ironicUsing('c', 'another'), elsewhere) as ObjectMap,
      namespace: NS,
      name: 'ipa',
    }),
    ['a', 'b'],
  );
  t.same(usersOf(IMAGE_CACHE_USED_BY, { related: null, namespace: NS, name: 'ipa' }), []);
});

t.test('finalize: blocked while used (unless foreground), then deleting, then finalized', async (t) => {
  const users = related(ironicUsing('ironic')) as Objects;
  const cases: readonly { scenario: string; v: ParentView; finalized?: boolean; children: number; resync?: number; reason: string }[] = [
    {
      scenario: 'in use',
      v: current(view({}, { children: observed(statefulSet(READY)), related: users })),
      children: 3,
      resync: 30,
      reason: 'ImagesAvailable',
    },
    {
      scenario: 'in use, invalid spec: still kept',
      v: view({ storage: { size: 'x' } }, { children: observed(statefulSet(READY)), related: users }),
      children: 2,
      resync: 30,
      reason: 'InvalidSpec',
    },
    {
      scenario: 'in use, foreground deletion',
      v: view({}, { children: observed(statefulSet(READY)), related: users, finalizers: ['foregroundDeletion'] }),
      finalized: false,
      children: 0,
      resync: 5,
      reason: 'Deleting',
    },
    {
      scenario: 'unused, children remain',
      v: view({}, { children: observed(statefulSet(READY)) }),
      finalized: false,
      children: 0,
      resync: 5,
      reason: 'Deleting',
    },
    { scenario: 'unused, nothing left', v: view({}), finalized: true, children: 0, reason: 'Deleting' },
  ];
  for (const c of cases) {
    const result = finalizeCache(c.v, prepareCache(c.v), testConfig().render);
    t.equal(result.finalized, c.finalized, `${c.scenario}: finalized`);
    t.equal(result.children.length, c.children, `${c.scenario}: children`);
    t.equal(result.resyncAfterSeconds, c.resync, `${c.scenario}: resync`);
    t.equal(result.status.conditions?.[0]?.reason, c.reason, `${c.scenario}: reason`);
    t.equal(
      result.status.conditions?.some((x) => x.type === 'DeletionBlocked'),
      c.resync === 30,
      `${c.scenario}: DeletionBlocked`,
    );
  }
});

t.test(
  'podManagementPolicy: Parallel for a new StatefulSet, so a failed download is replaced once the spec is fixed; an existing one keeps its own',
  async (t) => {
    const policyOf = (v: ParentView): unknown =>
      (
        finishCache(v, prepareCache(v), testConfig().render).children.find((c) => c.kind === 'StatefulSet') as unknown as {
          spec: { podManagementPolicy?: string };
        }
      ).spec.podManagementPolicy;
    t.equal(policyOf(view({})), 'Parallel', 'created Parallel');
    const failing = statefulSet({ observedGeneration: 1, replicas: 1, readyReplicas: 0, currentRevision: 'a', updateRevision: 'a' });
    t.equal(
      policyOf(view({ agentBranch: 'stable/2025.1' }, { children: observed({ ...failing, spec: { replicas: 1, podManagementPolicy: 'Parallel' } }) })),
      'Parallel',
      'kept Parallel',
    );
    t.equal(
      policyOf(view({}, { children: observed({ ...failing, spec: { replicas: 1, podManagementPolicy: 'OrderedReady' } }) })),
      'OrderedReady',
      'an older StatefulSet keeps OrderedReady (immutable)',
    );
  },
);

t.test('the first sync after a spec change: the StatefulSet still has the previous template, so nothing new is reported as served', async (t) => {
  const before = current(view({ agentBranch: 'stable/2025.1' }, { children: observed(statefulSet(READY)) }));
  const served = finishCache(before, prepareCache(before), testConfig().render).status;
  t.match(served, { agentBranch: 'stable/2025.1', conditions: [{ status: 'True' }] }, 'the previous spec is served');
  // The spec changes; the observed StatefulSet is the one of the previous spec, ready, at its own generation.
  const after: ParentView = { ...before, spec: { agentBranch: 'master' }, status: served, generation: 3 };
  const status = finishCache(after, prepareCache(after), testConfig().render).status;
  t.match(status, {
    agentBranch: 'stable/2025.1',
    observedGeneration: 3,
    conditions: [{ status: 'False', reason: 'DownloadInProgress', observedGeneration: 3 }],
  });
});

t.test('CLUSTER_DOMAIN: the published URLs and the httpd ServerName name the Service with the cluster domain, when one is configured', async (t) => {
  const v = view({});
  const withDomain = { ...testConfig().render, clusterDomain: 'cluster.example' };
  const result = finishCache(v, prepareCache(v), withDomain);
  t.same(result.status.images?.[0], {
    architecture: 'x86_64',
    kernel: 'http://ipa-ipa-cache.metal3.svc.cluster.example/images/ironic-python-agent_x86_64.kernel',
    initramfs: 'http://ipa-ipa-cache.metal3.svc.cluster.example/images/ironic-python-agent_x86_64.initramfs',
  });
  const config = result.children.find((c) => c.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  t.match(Object.values(config.data).join('\n'), /^ServerName ipa-ipa-cache\.metal3\.svc\.cluster\.example$/m);
  const plain = finishCache(v, prepareCache(v), testConfig().render);
  t.match(plain.status.images?.[0]?.kernel, /^http:\/\/ipa-ipa-cache\.metal3\.svc\/images\//, 'without a cluster domain: .svc');
});
