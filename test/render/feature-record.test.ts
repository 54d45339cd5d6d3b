/**
 * A new part of the Ironic is one feature record: this test adds one (a sidecar with a volume, a variable
 * for the ironic container, an owned Secret and a Secret to fetch) to the list, without touching any other
 * file, and finds it in the pod, the children, customize and the plan's view of our Secrets.
 */
import t from 'tap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { CustomizeRequest, SyncRequest } from '../../src/api/shared/hook.js';
import { SECRET_REFERENCE } from '../../src/api/shared/references.js';
import { customizeIronic, syncIronic } from '../../src/hooks/ironic.js';
import { isOwnSecret } from '../../src/render/ironic/children.js';
import type { IronicFeature } from '../../src/render/ironic/feature.js';
import { IRONIC_FEATURES } from '../../src/hooks/ironic-features.js';
import { ironicNames } from '../../src/render/names.js';
import { ironic, testConfig, testContext, type Obj } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';
import { childOf, containerOf, envOf, podOf } from '../helpers/render.js';
import { related } from '../fixtures/ironic-scenarios.js';

const SPEC = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' } };

/** The feature under test: everything it contributes is stated here and nowhere else. */
const AUDIT: IronicFeature = {
  name: 'audit-forwarder',
  order: 200,
  applies: (model) => !model.highAvailability,
  containers: [
    {
      name: 'audit-forwarder',
      build: (_input, context) => ({
        name: 'audit-forwarder',
        image: context.images.ironic,
        command: ['/bin/sleep', 'infinity'],
        volumeMounts: [{ name: 'audit-spool', mountPath: '/spool' }, ...context.mounts],
      }),
    },
  ],
  volumes: () => [{ name: 'audit-spool', emptyDir: {} }],
  env: () => ({ ironic: [{ name: 'OS_AUDIT__SPOOL', value: '/spool' }] }),
  mounts: () => ({ ironic: [{ name: 'audit-spool', mountPath: '/spool', readOnly: true }] }),
  annotations: () => ({ 'ironic.metal3.io/audit': 'on' }),
  children: (input): ISecret[] => [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${input.name}-audit`, namespace: input.namespace }, type: 'Opaque', data: {} },
  ],
  wanted: (_model, names) => [{ group: 'Secret.v1', name: `${names.workload}-audit` }],
  ownsSecret: (names, secret) => secret === `${names.workload}-audit` || secret === 'ironic-audit',
  references: () => [{ ...SECRET_REFERENCE, name: 'audit-token', field: 'the audit feature' }],
};

const WITH_AUDIT = [...IRONIC_FEATURES, AUDIT];

const sync = async (features: readonly IronicFeature[], spec: Obj = SPEC) =>
  syncIronic(
    { parent: ironic(spec, { status: { installedVersion: '38.0' } }), children: {}, related: related() } as SyncRequest,
    { ...testContext(), config: testConfig().render },
    features,
  );

/** `Kind/name` of every child of a response. */
const childNames = (children: readonly unknown[]): string[] =>
  children.map((c) => {
    const { kind, metadata } = c as { kind: string; metadata: { name: string } };
    return `${kind}/${metadata.name}`;
  });

const customizedSecrets = (features: readonly IronicFeature[], spec: Obj = SPEC): unknown => {
  const rules = customizeIronic({ parent: ironic(spec) } as unknown as CustomizeRequest, features).relatedResources;
  return rules.find((r) => r.resource === 'secrets')?.names;
};

t.test('the record alone puts the sidecar, its volume, its variable, its mount and its annotation into the pod', async (t) => {
  const response = await sync(WITH_AUDIT);
  const pod = podOf(response.children);
  const sidecar = containerOf(pod, 'audit-forwarder');
  t.ok(sidecar, 'the sidecar runs in the Ironic pod');
  t.same(sidecar?.volumeMounts, [{ name: 'audit-spool', mountPath: '/spool' }], 'with its own mount (no other feature adds to it)');
  t.same(pod.containers.map((c) => c.name).slice(-1), ['audit-forwarder'], 'after the containers of the features before it');
  t.ok(
    pod.volumes.some((v) => v.name === 'audit-spool'),
    'the volume is in the pod',
  );
  t.equal(envOf(containerOf(pod, 'ironic'))['OS_AUDIT__SPOOL'], '/spool', 'the variable reaches the ironic container');
  t.ok(
    containerOf(pod, 'ironic')?.volumeMounts?.some((m) => m.name === 'audit-spool' && m.readOnly === true),
    'and so does the mount',
  );
  const template = (childOf(response.children, 'Deployment')?.spec as { template: { metadata: { annotations: Obj } } }).template;
  t.equal(template.metadata.annotations['ironic.metal3.io/audit'], 'on', 'its annotation rolls the pods when it changes');
  for (const child of response.children) validateK8s(child as Obj);
});

t.test('the record alone adds its Secret to the children, and the plan counts it as ours', async (t) => {
  const response = await sync(WITH_AUDIT);
  t.ok(childNames(response.children).includes('Secret/ironic-audit'), 'the owned Secret is a child');
  t.ok(isOwnSecret(ironicNames('ironic'), 'ironic-audit', WITH_AUDIT), 'a missing ironic-audit means the cache lags, not a user deletion');
  t.notOk(isOwnSecret(ironicNames('ironic'), 'ironic-audit', IRONIC_FEATURES));
});

t.test('the record alone makes customize fetch its reference and look for its children in the way', async (t) => {
  t.same(customizedSecrets(WITH_AUDIT), ['audit-token', 'ironic-api-credentials', 'ironic-clouds', 'ironic-service-audit']);
  t.same(customizedSecrets(IRONIC_FEATURES), ['ironic-api-credentials', 'ironic-clouds']);
});

t.test('a record that does not apply contributes nothing, and the list without it renders as before', async (t) => {
  const ha = { ...SPEC, highAvailability: true, database: { host: 'db', credentialsName: 'db-credentials' } };
  t.same(customizedSecrets(WITH_AUDIT, ha), customizedSecrets(IRONIC_FEATURES, ha));
  const plain = await sync(IRONIC_FEATURES);
  const audited = await sync(WITH_AUDIT);
  t.same(
    childNames(audited.children).filter((n) => n !== 'Secret/ironic-audit'),
    childNames(plain.children),
    'the same children otherwise',
  );
  t.notOk(containerOf(podOf(plain.children), 'audit-forwarder'));
});
