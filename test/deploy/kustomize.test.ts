/**
 * The small kustomize of ./kustomize.ts behaves as kustomize does for the features deploy/ uses, and
 * refuses the ones it does not model.
 */
import t from 'tap';
import { applyOperation, imageName, kustomizeBuild, matchesTarget, type Obj } from './kustomize.js';
import { compositeControllerErrors, webhookUrl, type Hook } from './composite-controller.js';

const KUSTOMIZATION = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      initContainers: [{name: init, image: "registry.local:5000/tools:1"}]
      containers: [{name: app, image: app}]
`;

t.test('resources, patches, namespace and images', async (t) => {
  const dir = t.testdir({
    base: {
      'kustomization.yaml': `${KUSTOMIZATION}resources: [deployment.yaml, ns.yaml]\n`,
      'deployment.yaml': DEPLOYMENT,
      'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n---\n',
    },
    overlay: {
      'kustomization.yaml': `${KUSTOMIZATION}resources: [../base]
namespace: demo
patches:
  - path: patch.yaml
    target: {group: apps, kind: Deployment, name: app}
images:
  - {name: app, newName: registry.example.com/app, newTag: "2.0"}
  - {name: registry.local:5000/tools, digest: "sha256:abc"}
`,
      'patch.yaml': '- {op: add, path: /spec/replicas, value: 2}\n',
    },
  });
  const { objects, files } = kustomizeBuild(`${dir}/overlay`);
  t.equal(files.length, 5, 'two kustomizations, two resources, one patch');
  const [deployment, namespace] = objects as [Obj, Obj];
  t.match(deployment, {
    metadata: { name: 'app', namespace: 'demo' },
    spec: {
      replicas: 2,
      template: { spec: { initContainers: [{ image: 'registry.local:5000/tools@sha256:abc' }], containers: [{ image: 'registry.example.com/app:2.0' }] } },
    },
  });
  t.same(namespace['metadata'], { name: 'demo' }, 'cluster-scoped kinds keep no namespace');
});

t.test('refuses what it does not model, and broken inputs', async (t) => {
  const dir = t.testdir({
    labels: { 'kustomization.yaml': `${KUSTOMIZATION}labels: [{pairs: {a: b}}]\n` },
    other: { 'kustomization.yaml': 'apiVersion: v1\nkind: ConfigMap\n' },
    twice: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [d.yaml, d.yaml]\n`, 'd.yaml': DEPLOYMENT },
    strategic: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [d.yaml]\npatches: [{path: d.yaml}]\n`, 'd.yaml': DEPLOYMENT },
    nomatch: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [d.yaml]\npatches: [{patch: "[]", target: {kind: Service}}]\n`, 'd.yaml': DEPLOYMENT },
    notlist: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [d.yaml]\npatches: [{patch: "a: b", target: {kind: Deployment}}]\n`, 'd.yaml': DEPLOYMENT },
    missing: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [nothing.yaml]\n` },
    scalar: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [s.yaml]\n`, 's.yaml': 'just a string\n' },
    broken: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [b.yaml]\n`, 'b.yaml': 'a: [\n' },
  });
  t.throws(() => kustomizeBuild(`${dir}/labels`), /does not model labels/);
  t.throws(() => kustomizeBuild(`${dir}/other`), /not a kustomize.config.k8s.io\/v1beta1 Kustomization/);
  t.throws(() => kustomizeBuild(`${dir}/twice`), /appears twice/);
  t.throws(() => kustomizeBuild(`${dir}/strategic`), /only JSON 6902 patches/);
  t.throws(() => kustomizeBuild(`${dir}/nomatch`), /matches nothing/);
  t.throws(() => kustomizeBuild(`${dir}/notlist`), /not a JSON 6902 list/);
  t.throws(() => kustomizeBuild(`${dir}/missing`), /ENOENT/);
  t.throws(() => kustomizeBuild(`${dir}/scalar`), /not a mapping/);
  t.throws(() => kustomizeBuild(`${dir}/broken`), /b\.yaml/);
});

t.test('JSON 6902 operations', async (t) => {
  const object = (): Obj => ({ spec: { list: ['a', 'b'], map: { 'x/y': 1 } } });
  const cases = [
    { scenario: 'append', op: { op: 'add', path: '/spec/list/-', value: 'c' }, expected: { spec: { list: ['a', 'b', 'c'], map: { 'x/y': 1 } } } },
    { scenario: 'insert', op: { op: 'add', path: '/spec/list/0', value: 'c' }, expected: { spec: { list: ['c', 'a', 'b'], map: { 'x/y': 1 } } } },
    { scenario: 'replace item', op: { op: 'replace', path: '/spec/list/1', value: 'c' }, expected: { spec: { list: ['a', 'c'], map: { 'x/y': 1 } } } },
    { scenario: 'remove item', op: { op: 'remove', path: '/spec/list/0' }, expected: { spec: { list: ['b'], map: { 'x/y': 1 } } } },
    { scenario: 'escaped key', op: { op: 'replace', path: '/spec/map/x~1y', value: 2 }, expected: { spec: { list: ['a', 'b'], map: { 'x/y': 2 } } } },
    { scenario: 'remove key', op: { op: 'remove', path: '/spec/map' }, expected: { spec: { list: ['a', 'b'] } } },
  ] as const;
  for (const c of cases) {
    const target = object();
    applyOperation(target, c.op);
    t.same(target, c.expected, c.scenario);
  }
  const errors = [
    [{ op: 'add', path: 'spec' }, /must start with/],
    [{ op: 'add', path: '/' }, /whole object/],
    [{ op: 'add', path: '/nothing/here', value: 1 }, /nothing does not exist/],
    [{ op: 'replace', path: '/spec/list/2', value: 1 }, /no index 2/],
    [{ op: 'replace', path: '/spec/absent', value: 1 }, /absent does not exist/],
    [{ op: 'move', path: '/spec/list/0' }, /unsupported op move/],
    [{ op: 'move', path: '/spec/map' }, /unsupported op move/],
    [{ op: 'add', path: '/spec/list/0/x', value: 1 }, /not an object or a list/],
  ] as const;
  for (const [op, expected] of errors) t.throws(() => applyOperation(object(), op), expected, JSON.stringify(op));
});

t.test('targets and image names', async (t) => {
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' } };
  t.ok(matchesTarget(service, { group: '', version: 'v1', kind: 'Service', name: 's', namespace: 'n' }));
  t.notOk(matchesTarget(service, { group: 'apps' }));
  t.notOk(matchesTarget(service, { namespace: 'other' }));
  t.same(['a', 'a:1', 'r:5000/a', 'r:5000/a:1', 'a@sha256:x', 'a:1@sha256:x'].map(imageName), ['a', 'a', 'r:5000/a', 'r:5000/a', 'a', 'a']);
});

t.test('the CompositeController schema refuses typos, wrong enums and bad durations', async (t) => {
  const valid = () => ({
    apiVersion: 'metacontroller.k8s.io/v1alpha1',
    kind: 'CompositeController',
    metadata: { name: 'c' },
    spec: {
      parentResource: { apiVersion: 'example.com/v1', resource: 'widgets' },
      childResources: [{ apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'OnDelete' } }],
      generateSelector: true,
      resyncPeriodSeconds: 300,
      hooks: {
        sync: { version: 'v2', webhook: { url: 'http://h.ns:8080/sync', timeout: '1m30s' } },
        finalize: { version: 'v2', webhook: { service: { name: 'h', namespace: 'ns', port: 8080 }, path: '/finalize' } },
      },
    },
  });
  t.same(compositeControllerErrors(valid()), []);
  const broken: Array<[string, (c: ReturnType<typeof valid>) => void]> = [
    ['a misspelt strategy field', (c) => Object.assign(c.spec.childResources[0]!, { updateStrategy: { methd: 'OnDelete' } })],
    ['an unknown method', (c) => Object.assign(c.spec.childResources[0]!, { updateStrategy: { method: 'Replace' } })],
    ['a v3 hook', (c) => Object.assign(c.spec.hooks.sync, { version: 'v3' })],
    ['a timeout without unit', (c) => Object.assign(c.spec.hooks.sync.webhook, { timeout: '10' })],
    ['a service without path', (c) => Object.assign(c.spec.hooks, { finalize: { webhook: { service: { name: 'h', namespace: 'ns' } } } })],
    ['no parent resource', (c) => Object.assign(c.spec, { parentResource: { apiVersion: 'example.com/v1' } })],
    ['a string resync period', (c) => Object.assign(c.spec, { resyncPeriodSeconds: '300' })],
    ['a string generateSelector', (c) => Object.assign(c.spec, { generateSelector: 'true' })],
    ['a namespace', (c) => Object.assign(c.metadata, { namespace: 'ns' })],
    ['an unknown spec field', (c) => Object.assign(c.spec, { resyncPeriod: 300 })],
  ];
  for (const [scenario, change] of broken) {
    const c = valid();
    change(c);
    t.not(compositeControllerErrors(c).length, 0, scenario);
  }
  const hooks = valid().spec.hooks as unknown as { sync: Hook; finalize: Hook };
  t.equal(webhookUrl(hooks.sync).href, 'http://h.ns:8080/sync');
  t.equal(webhookUrl(hooks.finalize).href, 'http://h.ns:8080/finalize');
  t.equal(webhookUrl({ webhook: { service: { name: 'h', namespace: 'ns' }, path: '/x' } }).href, 'http://h.ns/x', 'port 80 and http by default');
});
