/**
 * The Ironic plan as tables: what a sync decides from the observed objects and the model alone, with no
 * HTTP, no hook and no randomness (credentials are given).
 */
import t from 'tap';
import type { KubeObject, ObjectMap } from '../../src/api/shared/hook.js';
import { ironicNames } from '../../src/render/names.js';
import type { ParentView } from '../../src/render/parent.js';
import type { ApiCredentials } from '../../src/render/ironic/input.js';
import { AGENT_IMAGES_ANNOTATION, agentImagesHash, byArch } from '../../src/render/ironic/image-cache.js';
import {
  caRollout,
  finishIronic,
  prepareIronic,
  referencedSecrets,
  retainedCASecrets,
  secretsNotObservedYet,
  type Prepared,
} from '../../src/render/ironic/plan.js';
import { IRONIC_FEATURES } from '../../src/hooks/ironic-features.js';
import { cloudsName } from '../../src/render/ironic/features/client-handoff.js';
import { FIXED_NOW, testConfig } from '../helpers/hooks.js';
import { TLS_SECRET, readyImageCache, related, secret } from '../fixtures/ironic-scenarios.js';

const NAME = 'ironic';
const NS = 'metal3';
const names = ironicNames(NAME);

type Objects = Record<string, Record<string, Record<string, unknown>>>;

const view = (spec: unknown, extra: { children?: Objects; related?: Objects; status?: unknown; now?: string } = {}): ParentView => ({
  name: NAME,
  namespace: NS,
  uid: 'parent-uid',
  finalizers: [],
  generation: 3,
  spec,
  status: extra.status,
  children: (extra.children ?? {}) as ObjectMap,
  related: (extra.related ?? {}) as ObjectMap,
  now: extra.now ?? FIXED_NOW,
});

const object = (apiVersion: string, kind: string, name: string, body: Record<string, unknown> = {}): KubeObject => {
  const metadata: KubeObject['metadata'] & Record<string, unknown> = { name, namespace: NS, creationTimestamp: '2025-12-31T23:59:30Z' };
  return { apiVersion, kind, metadata, ...body };
};

const metadataAt = (created: string): KubeObject['metadata'] => {
  const metadata: KubeObject['metadata'] & Record<string, unknown> = { name: names.workload, namespace: NS, creationTimestamp: created };
  return metadata;
};

const group = (key: string, ...objects: KubeObject[]): Objects => ({ [key]: Object.fromEntries(objects.map((o) => [`${NS}/${o.metadata.name}`, o])) });

const credentials: ApiCredentials = {
  secretName: names.apiCredentials,
  username: 'ironic',
  password: 'secret',
  generated: true,
  htpasswd: 'ironic:$2y$10$x',
  hash: 'a'.repeat(64),
  htpasswdSecretName: names.htpasswd('a'.repeat(64)),
};

const rendered = (prepared: Prepared): Extract<Prepared, { kind: 'render' }> => {
  if (prepared.kind !== 'render') throw new Error(`expected render, got keep: ${JSON.stringify(prepared.result.status)}`);
  return prepared;
};

const reasonOf = (prepared: Prepared): string | undefined => (prepared.kind === 'keep' ? prepared.result.status.conditions?.[0]?.reason : undefined);

const ready = (kind: 'Deployment' | 'DaemonSet', name: string, version: string): KubeObject =>
  object('apps/v1', kind, name, {
    metadata: { name, namespace: NS, generation: 1, labels: { 'ironic.metal3.io/version': version } },
    status:
      kind === 'Deployment'
        ? {
            observedGeneration: 1,
            replicas: 1,
            updatedReplicas: 1,
            availableReplicas: 1,
            readyReplicas: 1,
            conditions: [
              { type: 'Available', status: 'True' },
              { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
            ],
          }
        : { observedGeneration: 1, desiredNumberScheduled: 1, currentNumberScheduled: 1, updatedNumberScheduled: 1, numberAvailable: 1, numberReady: 1 },
  });

t.test('prepareIronic: when a sync keeps every observed child, and why', async (t) => {
  const workloadUsing = (secretName: string, created: string): Objects =>
    group('Deployment.apps/v1', {
      ...object('apps/v1', 'Deployment', names.workload),
      metadata: metadataAt(created),
      spec: { template: { spec: { volumes: [{ name: 'x', secret: { secretName } }], containers: [] } } },
    });
  const refreshingCache = readyImageCache({ conditions: [{ type: 'Ready', status: 'False', reason: 'DownloadInProgress', message: 'downloading' }] });
  const cacheImages = ['x86_64', 'aarch64'].map((architecture) => ({
    architecture,
    kernel: `http://ipa-ipa-cache.metal3.svc/images/ironic-python-agent_${architecture}.kernel`,
    initramfs: `http://ipa-ipa-cache.metal3.svc/images/ironic-python-agent_${architecture}.initramfs`,
  }));
  const cacheURLs = byArch(cacheImages, 'kernel');
  /** A workload rendered with these images: the annotation records them. */
  const workloadWithImages = (images: typeof cacheImages): Objects =>
    group('Deployment.apps/v1', {
      ...object('apps/v1', 'Deployment', names.workload),
      metadata: { name: names.workload, namespace: 'metal3', annotations: { [AGENT_IMAGES_ANNOTATION]: agentImagesHash(images) } },
      spec: { template: { spec: { containers: [{ name: 'ironic' }] } } },
    });
  /** A workload rendered before the annotation existed: its URLs are only in its variables, which the plan does not read back. */
  const workloadWithVariablesOnly: Objects = group('Deployment.apps/v1', {
    ...object('apps/v1', 'Deployment', names.workload),
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'ironic',
              env: [
                { name: 'DEPLOY_KERNEL_BY_ARCH', value: cacheURLs },
                { name: 'DEPLOY_RAMDISK_BY_ARCH', value: byArch(cacheImages, 'initramfs') },
              ],
            },
          ],
        },
      },
    },
  });
  const cases: readonly { scenario: string; v: ParentView; reason?: string; resync?: number }[] = [
    { scenario: 'a valid spec renders', v: view({}) },
    { scenario: 'an invalid spec', v: view({ networking: { apiPort: 'x' } }), reason: 'InvalidSpec' },
    { scenario: 'a missing TLS Secret', v: view({ tls: { certificateName: 'ironic-tls' } }), reason: 'MissingReference' },
    {
      scenario: 'a TLS Secret without a key',
      v: view({ tls: { certificateName: 'ironic-tls' } }, { related: related(secret('ironic-tls', { 'tls.crt': 'C' })) }),
      reason: 'InvalidReference',
    },
    { scenario: 'a present TLS Secret', v: view({ tls: { certificateName: 'ironic-tls' } }, { related: related(TLS_SECRET) }) },
    { scenario: 'a missing IronicDatabase', v: view({ databaseName: 'db' }), reason: 'MissingReference' },
    {
      scenario: 'an IronicDatabase not ready yet',
      v: view(
        { databaseName: 'db' },
        { related: group('IronicDatabase.ironic.metal3.io/v1alpha1', object('ironic.metal3.io/v1alpha1', 'IronicDatabase', 'db')) },
      ),
      reason: 'DeploymentInProgress',
    },
    { scenario: 'a missing IronicImageCache', v: view({ imageCacheName: 'ipa' }), reason: 'MissingReference' },
    {
      scenario: 'an IronicImageCache not ready yet',
      v: view({ imageCacheName: 'ipa' }, { related: related(readyImageCache({ conditions: [{ type: 'Ready', status: 'False' }] })) }),
      reason: 'DeploymentInProgress',
    },
    { scenario: 'a ready IronicImageCache', v: view({ imageCacheName: 'ipa' }, { related: related(readyImageCache()) }) },
    {
      scenario: 'a refreshing IronicImageCache whose URLs the workload already runs with: render, not frozen',
      v: view({ imageCacheName: 'ipa' }, { related: related(refreshingCache), children: workloadWithImages(cacheImages) }),
    },
    {
      scenario: 'a refreshing IronicImageCache and a workload rendered before its URLs were recorded: wait (once, until the cache is ready)',
      v: view({ imageCacheName: 'ipa' }, { related: related(refreshingCache), children: workloadWithVariablesOnly }),
      reason: 'DeploymentInProgress',
    },
    {
      scenario: 'a refreshing IronicImageCache whose URLs the workload does not run with yet: wait',
      v: view(
        { imageCacheName: 'ipa' },
        { related: related(refreshingCache), children: workloadWithImages(cacheImages.map((i) => ({ ...i, kernel: i.kernel.replace('kernel', 'old') }))) },
      ),
      reason: 'DeploymentInProgress',
    },
    {
      scenario: 'an IronicImageCache whose new spec is not described by its status yet: wait, whatever the workload runs',
      v: view(
        { imageCacheName: 'ipa' },
        {
          related: related({ ...readyImageCache(), metadata: { name: 'ipa', namespace: 'metal3', uid: 'uid-ipa', generation: 2 } }),
          children: workloadWithImages(cacheImages),
        },
      ),
      reason: 'DeploymentInProgress',
    },
    {
      scenario: 'a young workload whose htpasswd Secret is not observed yet',
      v: view({}, { children: workloadUsing(names.htpasswd('b'.repeat(64)), '2025-12-31T23:59:30Z') }),
      reason: 'DeploymentInProgress',
      resync: 5,
    },
    {
      scenario: 'an old workload whose htpasswd Secret is gone: render anew',
      v: view({}, { children: workloadUsing(names.htpasswd('b'.repeat(64)), '2025-01-01T00:00:00Z') }),
    },
    { scenario: 'a young workload using a Secret that is not ours', v: view({}, { children: workloadUsing('someone-elses', '2025-12-31T23:59:30Z') }) },
  ];
  for (const c of cases) {
    const prepared = prepareIronic(c.v, {}, IRONIC_FEATURES);
    t.equal(prepared.kind, c.reason === undefined ? 'render' : 'keep', c.scenario);
    t.equal(reasonOf(prepared), c.reason, `${c.scenario}: reason`);
    if (prepared.kind === 'keep') t.equal(prepared.result.resyncAfterSeconds, c.resync, `${c.scenario}: resync`);
  }
});

t.test('a kept sync returns exactly the observed children', async (t) => {
  const observed = object('v1', 'Service', names.service, { spec: { ports: [{ port: 80 }] } });
  const prepared = prepareIronic(view({ networking: { apiPort: 'x' } }, { children: group('Service.v1', observed) }), {}, IRONIC_FEATURES);
  t.equal(prepared.kind, 'keep');
  if (prepared.kind === 'keep')
    t.same(prepared.result.children, [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: names.service, namespace: NS }, spec: { ports: [{ port: 80 }] } },
    ]);
});

const kindsOf = (children: readonly { kind: string; metadata: { name: string } }[]): string[] => children.map((c) => `${c.kind}/${c.metadata.name}`);

t.test('finishIronic: the workload kind switch and the upgrade steps', async (t) => {
  const db = { database: { host: 'mariadb', name: 'ironic', credentialsName: 'db-creds' } };
  const job = (phase: 'pre' | 'post', from: string, to: string, complete: boolean): KubeObject =>
    object('batch/v1', 'Job', names.upgradeJob(phase, from, to), {
      status: complete ? { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 },
    });
  const cases: readonly {
    scenario: string;
    spec: unknown;
    children?: Objects;
    status?: unknown;
    expectKinds: string[];
    absentKinds?: string[];
    reason: string;
    message?: RegExp;
  }[] = [
    {
      scenario: 'no database: everything at once',
      spec: {},
      expectKinds: ['Deployment/ironic-service', 'Service/ironic'],
      reason: 'DeploymentInProgress',
    },
    {
      scenario: 'switching to HA: the old Deployment is scaled down first, no DaemonSet yet, Jobs kept',
      spec: { highAvailability: true, ...db },
      children: { ...group('Deployment.apps/v1', ready('Deployment', names.workload, '38.0')), ...group('Job.batch/v1', job('post', 'none', '38.0', true)) },
      status: { installedVersion: '38.0' },
      expectKinds: ['Job/ironic-post-none-to-38.0', 'Deployment/ironic-service'],
      absentKinds: ['DaemonSet/ironic-service'],
      reason: 'DeploymentInProgress',
      message: /switching to high availability: scaling the Deployment ironic-service down first \(1 pods left\)/,
    },
    {
      scenario: 'first install with a database: the pre-upgrade Job before any workload',
      spec: db,
      expectKinds: ['Job/ironic-pre-none-to-38.0'],
      absentKinds: ['Deployment/ironic-service', 'Job/ironic-post-none-to-38.0'],
      reason: 'DeploymentInProgress',
      message: /pre-upgrade/,
    },
    {
      scenario: 'an upgrade keeps the observed old workload until the pre-upgrade Job completed',
      spec: { version: '38.0', ...db },
      children: group('Deployment.apps/v1', ready('Deployment', names.workload, '37.0')),
      status: { installedVersion: '37.0' },
      expectKinds: ['Deployment/ironic-service', 'Job/ironic-pre-37.0-to-38.0'],
      reason: 'DeploymentInProgress',
    },
    {
      scenario: 'pre-upgrade done, new workload ready: the post-upgrade Job',
      spec: { version: '38.0', ...db },
      children: {
        ...group('Deployment.apps/v1', ready('Deployment', names.workload, '38.0')),
        ...group('Service.v1', object('v1', 'Service', names.service, { spec: { clusterIP: '10.0.0.1' } })),
        ...group('Job.batch/v1', job('pre', '37.0', '38.0', true)),
      },
      status: { installedVersion: '37.0' },
      expectKinds: ['Deployment/ironic-service', 'Job/ironic-pre-37.0-to-38.0', 'Job/ironic-post-37.0-to-38.0'],
      reason: 'DeploymentInProgress',
      message: /post-upgrade/,
    },
    {
      scenario: 'both Jobs done: available at the new version',
      spec: { version: '38.0', ...db },
      children: {
        ...group('Deployment.apps/v1', ready('Deployment', names.workload, '38.0')),
        ...group('Service.v1', object('v1', 'Service', names.service, { spec: { clusterIP: '10.0.0.1' } })),
        ...group('Job.batch/v1', job('pre', '37.0', '38.0', true), job('post', '37.0', '38.0', true)),
      },
      status: { installedVersion: '37.0' },
      expectKinds: ['Job/ironic-pre-37.0-to-38.0', 'Job/ironic-post-37.0-to-38.0'],
      reason: 'DeploymentAvailable',
    },
    {
      scenario: 'a downgrade with a database is refused and keeps everything',
      spec: { version: '37.0', ...db },
      children: group('Service.v1', object('v1', 'Service', names.service, { spec: { clusterIP: '10.0.0.1' } })),
      status: { installedVersion: '38.0' },
      expectKinds: ['Service/ironic'],
      absentKinds: ['Deployment/ironic-service'],
      reason: 'DeploymentFailed',
      message: /cannot be downgraded/,
    },
  ];
  for (const c of cases) {
    const v = view(c.spec, {
      ...(c.children && { children: c.children }),
      status: c.status,
      related: related(secret('db-creds', { username: 'u', password: 'p' })),
    });
    const result = finishIronic(v, rendered(prepareIronic(v, {}, IRONIC_FEATURES)), { credentials }, testConfig().render);
    const kinds = kindsOf(result.children);
    for (const k of c.expectKinds) t.ok(kinds.includes(k), `${c.scenario}: ${k} is a child (${kinds.join(', ')})`);
    for (const k of c.absentKinds ?? []) t.notOk(kinds.includes(k), `${c.scenario}: ${k} is not a child`);
    const condition = result.status.conditions?.[0];
    t.equal(condition?.reason, c.reason, `${c.scenario}: reason`);
    if (c.message) t.match(condition?.message, c.message, `${c.scenario}: message`);
  }
});

t.test('CA Secrets are kept until the DaemonSet rolled out on the current one', async (t) => {
  const ca = (hash: string): KubeObject =>
    object('v1', 'Secret', names.rpcCA(hash), { metadata: { name: names.rpcCA(hash), namespace: NS, labels: { 'ironic.metal3.io/component': 'rpc-ca' } } });
  const daemonSet = (annotation: string, isReady: boolean): KubeObject => {
    const base = ready('DaemonSet', names.workload, '38.0');
    return {
      ...base,
      spec: { template: { metadata: { annotations: { 'ironic.metal3.io/rpc-ca-version': annotation } } } },
      ...(isReady ? {} : { status: { observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 1, numberAvailable: 1 } }),
    };
  };
  const oldHash = '1'.repeat(64);
  const newHash = '2'.repeat(64);
  const cases = [
    { scenario: 'rolled out on the current CA: the old one goes', ds: daemonSet(newHash, true), kept: [] as string[] },
    { scenario: 'still rolling: the old one stays', ds: daemonSet(newHash, false), kept: [names.rpcCA(oldHash)] },
    { scenario: 'rolled out on the old CA: the old one stays', ds: daemonSet(oldHash, true), kept: [names.rpcCA(oldHash)] },
  ];
  for (const c of cases) {
    const v = view({}, { children: { ...group('Secret.v1', ca(oldHash), ca(newHash)), ...group('DaemonSet.apps/v1', c.ds) } });
    const rollout = caRollout(v, names, '38.0');
    t.same(
      retainedCASecrets(v, names.rpcCAPrefix, rollout, names.rpcCA(newHash)).map((s) => s.metadata.name),
      c.kept,
      c.scenario,
    );
  }
});

t.test('secretsNotObservedYet only waits for our own Secrets of a young workload', async (t) => {
  t.equal(secretsNotObservedYet(view({}), names, IRONIC_FEATURES), false, 'no workload, nothing to wait for');
});

t.test('an object holding one of our names without belonging to us keeps everything and says what to do', async (t) => {
  const preCreated = object('v1', 'Secret', names.apiCredentials, { data: {} });
  const orphan = object('apps/v1', 'Deployment', names.workload);
  const ours = {
    ...object('v1', 'Secret', names.apiCredentials),
    metadata: { name: names.apiCredentials, namespace: NS, ownerReferences: [{ controller: true, uid: 'parent-uid' }] },
  } as KubeObject;
  const cases: readonly { scenario: string; spec: unknown; related: Objects; children?: Objects; message?: RegExp }[] = [
    {
      scenario: 'a pre-created credentials Secret',
      spec: {},
      related: group('Secret.v1', preCreated),
      message: /Secret metal3\/ironic-api-credentials already exists and does not belong to this Ironic: set spec.apiCredentialsName to ironic-api-credentials/,
    },
    {
      scenario: 'an orphaned Deployment (kubectl delete --cascade=orphan)',
      spec: {},
      related: group('Deployment.apps/v1', orphan),
      message: /Deployment metal3\/ironic-service already exists .*: delete it/,
    },
    {
      scenario: 'the same orphan blocks an HA Ironic too (two conductors)',
      spec: { highAvailability: true, database: { host: 'h', name: 'n', credentialsName: 'db-creds' } },
      related: { ...group('Deployment.apps/v1', orphan), ...(related(secret('db-creds', { username: 'u', password: 'p' })) as Objects) },
      message: /Deployment metal3\/ironic-service/,
    },
    {
      scenario: 'an HA Ironic: a PodDisruptionBudget of someone else holds the name of its budget',
      spec: { highAvailability: true, database: { host: 'h', name: 'n', credentialsName: 'db-creds' } },
      related: {
        ...group('PodDisruptionBudget.policy/v1', object('policy/v1', 'PodDisruptionBudget', names.workload)),
        ...(related(secret('db-creds', { username: 'u', password: 'p' })) as Objects),
      },
      message: /PodDisruptionBudget metal3\/ironic-service already exists .*: delete it/,
    },
    {
      scenario: 'without HA there is no budget, so that name is free',
      spec: {},
      related: group('PodDisruptionBudget.policy/v1', object('policy/v1', 'PodDisruptionBudget', names.workload)),
    },
    { scenario: 'our own child, seen in related before children (cache lag)', spec: {}, related: group('Secret.v1', ours) },
    { scenario: 'our own child, observed', spec: {}, related: group('Secret.v1', preCreated), children: group('Secret.v1', preCreated) },
    {
      scenario: 'the user names the Secret: it is theirs to use',
      spec: { apiCredentialsName: names.apiCredentials },
      related: group('Secret.v1', { ...preCreated, data: { username: 'dXNlcg==', password: 'cGFzcw==' } }),
    },
  ];
  for (const c of cases) {
    const prepared = prepareIronic(view(c.spec, { related: c.related, ...(c.children && { children: c.children }) }), {}, IRONIC_FEATURES);
    if (c.message === undefined) {
      t.equal(prepared.kind, 'render', c.scenario);
      continue;
    }
    t.equal(reasonOf(prepared), 'ResourceConflict', c.scenario);
    if (prepared.kind === 'keep') t.match(prepared.result.status.conditions?.[0]?.message, c.message, `${c.scenario}: message`);
  }
});

t.test('retiring the other workload kind: scale down, wait for the pods and their grace period, then remove', async (t) => {
  const db = { database: { host: 'mariadb', name: 'ironic', credentialsName: 'db-creds' } };
  const deployment = (replicas: number, statusReplicas: number, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.workload, namespace: NS, generation: 2, ...(annotations && { annotations }) },
    spec: { replicas, template: { spec: { terminationGracePeriodSeconds: 60, containers: [] } } },
    status: { observedGeneration: 2, replicas: statusReplicas },
  });
  const daemonSet = (retired: boolean, scheduled: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: names.workload, namespace: NS, generation: 2 },
    spec: { template: { spec: { ...(retired && { nodeSelector: { 'ironic.metal3.io/retired-workload': 'true' } }), containers: [] } } },
    status: { observedGeneration: 2, currentNumberScheduled: scheduled, numberMisscheduled: 0, desiredNumberScheduled: scheduled },
  });
  const since = '2026-01-01T00:00:00Z';
  const cases: readonly {
    scenario: string;
    spec: unknown;
    old: KubeObject;
    now: string;
    kept: boolean;
    replicas?: number;
    selector?: boolean;
    resync?: number;
    annotation?: string;
    message: RegExp;
  }[] = [
    {
      scenario: 'a running Deployment is scaled to zero',
      spec: { highAvailability: true, ...db },
      old: deployment(1, 1),
      now: since,
      kept: true,
      replicas: 0,
      message: /scaling the Deployment ironic-service down first \(1 pods left\)/,
    },
    {
      scenario: 'scaled, pods still there',
      spec: { highAvailability: true, ...db },
      old: deployment(0, 1),
      now: since,
      kept: true,
      replicas: 0,
      message: /1 pods left/,
    },
    {
      scenario: 'no pods: the time is recorded and the grace period awaited',
      spec: { highAvailability: true, ...db },
      old: deployment(0, 0),
      now: since,
      kept: true,
      replicas: 0,
      resync: 60,
      annotation: since,
      message: /has no pods; waiting 60s/,
    },
    {
      scenario: 'within the grace period the recorded time stays',
      spec: { highAvailability: true, ...db },
      old: deployment(0, 0, { 'ironic.metal3.io/pods-gone-since': since }),
      now: '2026-01-01T00:00:45Z',
      kept: true,
      resync: 15,
      annotation: since,
      message: /waiting 15s/,
    },
    {
      scenario: 'after the grace period the old Deployment goes',
      spec: { highAvailability: true, ...db },
      old: deployment(0, 0, { 'ironic.metal3.io/pods-gone-since': since }),
      now: '2026-01-01T00:01:00Z',
      kept: false,
      message: /waiting for the Deployment ironic-service to be removed/,
    },
    {
      scenario: 'a DaemonSet is moved onto no node',
      spec: db,
      old: daemonSet(false, 3),
      now: since,
      kept: true,
      selector: true,
      message: /switching to a single replica: scaling the DaemonSet ironic-service down first \(3 pods left\)/,
    },
    {
      scenario: 'a DaemonSet on no node waits for the default grace period',
      spec: db,
      old: daemonSet(true, 0),
      now: since,
      kept: true,
      selector: true,
      resync: 30,
      annotation: since,
      message: /waiting 30s/,
    },
  ];
  for (const c of cases) {
    const kind = c.old.kind === 'Deployment' ? 'Deployment.apps/v1' : 'DaemonSet.apps/v1';
    const v = view(c.spec, {
      children: group(kind, c.old),
      status: { installedVersion: '38.0' },
      now: c.now,
      related: related(secret('db-creds', { username: 'u', password: 'p' })),
    });
    const result = finishIronic(v, rendered(prepareIronic(v, {}, IRONIC_FEATURES)), { credentials }, testConfig().render);
    const workloads = result.children.filter((k) => k.kind === 'Deployment' || k.kind === 'DaemonSet');
    t.same(
      workloads.map((w) => w.kind),
      c.kept ? [c.old.kind] : [],
      `${c.scenario}: only the old workload, never both`,
    );
    const kept = workloads[0] as (KubeObject & { spec: Record<string, unknown> }) | undefined;
    if (c.replicas !== undefined) t.equal(kept?.spec['replicas'], c.replicas, `${c.scenario}: replicas`);
    if (c.selector === true)
      t.match(kept, { spec: { template: { spec: { nodeSelector: { 'ironic.metal3.io/retired-workload': 'true' } } } } }, `${c.scenario}: on no node`);
    t.equal(kept?.metadata.annotations?.['ironic.metal3.io/pods-gone-since'], c.annotation, `${c.scenario}: recorded time`);
    t.equal(result.resyncAfterSeconds, c.resync, `${c.scenario}: resync`);
    t.match(result.status.conditions?.[0]?.message, c.message, `${c.scenario}: message`);
  }
});

t.test('the credentials rule: ours without a name or under our own name unless the user made that Secret', async (t) => {
  const own = names.apiCredentials;
  const usable = { data: { username: Buffer.from('metal3').toString('base64'), password: Buffer.from('secret').toString('base64') } };
  const theirs = object('v1', 'Secret', own, usable);
  const oursObserved = object('v1', 'Secret', own);
  const oursInRelated = {
    ...object('v1', 'Secret', own),
    metadata: { name: own, namespace: NS, ownerReferences: [{ controller: true, uid: 'parent-uid' }] },
  } as KubeObject;
  const cases: readonly {
    scenario: string;
    spec: unknown;
    children?: Objects;
    related?: Objects;
    expected: { kind: string; secretName: string; observed?: boolean };
  }[] = [
    { scenario: 'no name: generated', spec: {}, expected: { kind: 'generated', secretName: own, observed: false } },
    {
      scenario: 'no name, observed: reused',
      spec: {},
      children: group('Secret.v1', oursObserved),
      expected: { kind: 'generated', secretName: own, observed: true },
    },
    {
      scenario: "another name: the user's",
      spec: { apiCredentialsName: 'mine' },
      related: group('Secret.v1', object('v1', 'Secret', 'mine', usable)),
      expected: { kind: 'user', secretName: 'mine' },
    },
    {
      scenario: 'our name, no such Secret: generated (what baremetal-operator reads)',
      spec: { apiCredentialsName: own },
      expected: { kind: 'generated', secretName: own, observed: false },
    },
    {
      scenario: 'our name, our child: reused',
      spec: { apiCredentialsName: own },
      children: group('Secret.v1', oursObserved),
      related: group('Secret.v1', oursObserved),
      expected: { kind: 'generated', secretName: own, observed: true },
    },
    {
      scenario: 'our name, ours but not yet among the children: reused',
      spec: { apiCredentialsName: own },
      related: group('Secret.v1', oursInRelated),
      expected: { kind: 'generated', secretName: own, observed: true },
    },
    {
      scenario: "our name, made by the user: the user's, never replaced",
      spec: { apiCredentialsName: own },
      related: group('Secret.v1', theirs),
      expected: { kind: 'user', secretName: own },
    },
  ];
  for (const c of cases) {
    const prepared = rendered(
      prepareIronic(view(c.spec, { ...(c.children && { children: c.children }), ...(c.related && { related: c.related }) }), {}, IRONIC_FEATURES),
    );
    const plan = prepared.credentials;
    t.same(
      { kind: plan.kind, secretName: plan.secretName, ...(plan.kind === 'generated' && { observed: plan.observed !== undefined }) },
      c.expected,
      c.scenario,
    );
  }
});

t.test('the clouds hand-off is replaced (left out once) when its content must change, kept when it is the same', async (t) => {
  const v = view({});
  const first = finishIronic(v, rendered(prepareIronic(v, {}, IRONIC_FEATURES)), { credentials }, testConfig().render);
  const clouds = first.children.find((c) => c.metadata.name === cloudsName(names));
  t.ok(clouds, 'rendered');
  const observedSame = group('Secret.v1', { ...object('v1', 'Secret', cloudsName(names)), data: clouds?.['data'] });
  const same = view({}, { children: observedSame });
  t.ok(
    finishIronic(same, rendered(prepareIronic(same, {}, IRONIC_FEATURES)), { credentials }, testConfig().render).children.some(
      (c) => c.metadata.name === cloudsName(names),
    ),
    'same content: kept',
  );
  const observedOld = group('Secret.v1', { ...object('v1', 'Secret', cloudsName(names)), data: { 'clouds.yaml': 'b2xk' } });
  const changed = view({}, { children: observedOld });
  t.notOk(
    finishIronic(changed, rendered(prepareIronic(changed, {}, IRONIC_FEATURES)), { credentials }, testConfig().render).children.some(
      (c) => c.metadata.name === cloudsName(names),
    ),
    'changed content: left out, so deleted and created anew',
  );
});

t.test('referencedSecrets: the Secrets a pod template uses, each once where it first appears', async (t) => {
  const secretEnv = (name: string): Record<string, unknown> => ({ name: `V_${name}`, valueFrom: { secretKeyRef: { name, key: 'k' } } });
  const workload = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'w' },
    spec: {
      template: {
        spec: {
          initContainers: [{ name: 'init', env: [secretEnv('init-only'), secretEnv('shared')] }],
          containers: [
            {
              name: 'c',
              env: [
                { name: 'PLAIN', value: 'x' },
                secretEnv('env-only'),
                secretEnv('mounted'),
                { name: 'CM', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
              ],
            },
          ],
          volumes: [
            { name: 'a', projected: { sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'cm' } }, { secret: { name: 'mounted' } }] } },
            { name: 'b', secret: { secretName: 'mounted' } },
            { name: 'c', configMap: { name: 'cm' } },
            { name: 'd', secret: { secretName: 'shared' } },
          ],
        },
      },
    },
  };
  t.same(referencedSecrets(workload), ['mounted', 'shared', 'projected', 'env-only', 'init-only']);
  t.same(
    referencedSecrets({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, spec: { template: { spec: { volumes: 'no list' } } } }),
    [],
    'no lists, no names',
  );
});
