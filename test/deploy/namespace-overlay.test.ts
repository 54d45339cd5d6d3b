/**
 * An overlay of your own with `namespace:` moves the hook server, and Metacontroller follows it: the
 * CompositeControllers name the hook Service by reference, and deploy/metacontroller/hook-namespace.yaml makes
 * kustomize's namespace transformer rewrite that reference. Built with the real `kubectl kustomize`, next to a
 * copy of deploy/, for the base, every overlay and the components.
 */
import t, { type Test } from 'tap';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Value } from '@sinclair/typebox/value';
import { kustomizeBuild, type Obj } from './kustomize.js';
import { CompositeController, webhookUrl } from './composite-controller.js';
import { validateDeployObject } from './validate.js';
import { objAt } from '../support/paths.js';

const CHECKOUT = 'ironic-metacontroller';
const MOVED = 'metal3-hooks';
const HOOKS = 'ironic-hooks';
/**
 * Kinds without a namespace. NOTE: kustomize writes the namespace into cluster-scoped kinds it does not know
 * (CompositeController, the admission policies); the API server drops it from a cluster-scoped object, so
 * they are checked without it.
 */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'CustomResourceDefinition',
  'CompositeController',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

const workspace = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ironic-namespace-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync('deploy', join(dir, CHECKOUT, 'deploy'), { recursive: true });
  return dir;
};

const build = (dir: string, name: string, kustomization: Obj): Obj[] => {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', ...kustomization }));
  return kustomizeBuild(path);
};

const kindOf = (o: Obj): string => String(o['kind']);
const nameOf = (o: Obj): string => String(objAt(o, 'metadata')['name']);
const namespaceOf = (o: Obj): unknown => objAt(o, 'metadata')['namespace'];

/** host:port/path of every hook of every CompositeController. */
const hookTargets = (objects: readonly Obj[]): string[] =>
  objects
    .filter((o) => kindOf(o) === 'CompositeController')
    .flatMap((o) => {
      const cc = Value.Parse(CompositeController, o);
      return Object.values(cc.spec.hooks).map((hook) => {
        const url = webhookUrl(hook);
        return `${url.hostname}:${url.port}`;
      });
    });

const targets = [
  { scenario: 'deploy/base', resources: ['deploy/base'], components: [] },
  { scenario: 'the servicemonitor overlay', resources: ['deploy/overlays/servicemonitor'], components: [] },
  { scenario: 'the mariadb-operator overlay', resources: ['deploy/overlays/mariadb-operator'], components: [] },
  {
    scenario: 'the servicemonitor overlay with every component',
    resources: ['deploy/overlays/servicemonitor'],
    components: [
      'deploy/components/cert-manager',
      'deploy/components/mariadb-operator',
      'deploy/components/api-credentials-name',
      'deploy/components/no-hardware-alerts',
    ],
  },
];

t.test('without namespace: the hooks are called in ironic-system, where the Service is', async (t) => {
  const objects = kustomizeBuild('deploy/base');
  const targetsOf = hookTargets(objects);
  t.equal(targetsOf.length, 9, 'three hooks of three controllers');
  t.same([...new Set(targetsOf)], [`${HOOKS}.ironic-system:8080`]);
});

t.test(`an overlay with namespace: ${MOVED} moves every namespaced object, and every hook follows the Service`, async (t) => {
  const dir = workspace(t);
  targets.forEach(({ scenario, resources, components }, i) => {
    const objects = build(dir, `moved-${i}`, {
      namespace: MOVED,
      resources: resources.map((r) => `../${CHECKOUT}/${r}`),
      components: components.map((c) => `../${CHECKOUT}/${c}`),
    });
    const service = objects.find((o) => kindOf(o) === 'Service' && nameOf(o) === HOOKS);
    t.equal(service && namespaceOf(service), MOVED, `${scenario}: the hook Service is in ${MOVED}`);
    const port = objAt(service, 'spec', 'ports', 0)['port'];
    t.same([...new Set(hookTargets(objects))], [`${HOOKS}.${MOVED}:${String(port)}`], `${scenario}: all 9 hooks call it there`);
    const stray = objects.filter((o) => !CLUSTER_SCOPED.has(kindOf(o)) && namespaceOf(o) !== MOVED).map((o) => `${kindOf(o)} ${nameOf(o)}`);
    t.same(stray, [], `${scenario}: every namespaced object moved`);
    t.same(
      objects.filter((o) => JSON.stringify(o).includes('ironic-system') && kindOf(o) !== 'PrometheusRule').map((o) => `${kindOf(o)} ${nameOf(o)}`),
      [],
      `${scenario}: nothing points at ironic-system any more`,
    );
    const namespace = objects.find((o) => kindOf(o) === 'Namespace');
    t.equal(namespace && nameOf(namespace), MOVED, `${scenario}: the Namespace object is the moved one`);
    for (const object of objects) {
      const { namespace: _dropped, ...metadata } = objAt(object, 'metadata');
      const stored = CLUSTER_SCOPED.has(kindOf(object)) ? { ...object, metadata } : object;
      t.doesNotThrow(() => validateDeployObject(stored), `${scenario}: ${kindOf(object)} ${nameOf(object)}`);
    }
  });
});
