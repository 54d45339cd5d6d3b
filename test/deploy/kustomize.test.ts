/**
 * The deploy tests build with the real `kubectl kustomize`: a broken kustomization fails with kubectl's
 * own message, and the layout this repository had before (an overlay inside the base it lists) is the
 * cycle kustomize refuses, so a test that accepted it could not be using the real tool.
 */
import t from 'tap';
import { kustomizeBuild, kustomizeVersion, objectId, parseYamlText, readYamlDocuments } from './kustomize.js';

const KUSTOMIZATION = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';
const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\ndata: {a: b}\n';

t.test('kubectl has kustomize v5 or later', async (t) => {
  t.match(kustomizeVersion(), /^v([5-9]|\d{2,})\./);
});

t.test('builds a kustomization into objects', async (t) => {
  const dir = t.testdir({
    base: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [cm.yaml]\n`, 'cm.yaml': CONFIG_MAP },
    overlay: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [../base]\nnamePrefix: x-\n` },
  });
  t.same(kustomizeBuild(`${dir}/overlay`), [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x-c', namespace: 'n' }, data: { a: 'b' } }]);
});

t.test('a broken kustomization fails with kubectl message', async (t) => {
  const dir = t.testdir({
    missing: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [nothing.yaml]\n` },
    twice: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [a.yaml, b.yaml]\n`, 'a.yaml': CONFIG_MAP, 'b.yaml': CONFIG_MAP },
    unknown: { 'kustomization.yaml': `${KUSTOMIZATION}resourcez: [a.yaml]\n` },
    // The layout deploy/ had: the base directory contains the overlay that lists it.
    cycle: {
      'kustomization.yaml': `${KUSTOMIZATION}resources: [cm.yaml]\n`,
      'cm.yaml': CONFIG_MAP,
      overlays: { one: { 'kustomization.yaml': `${KUSTOMIZATION}resources: [../../]\n` } },
    },
  });
  t.throws(() => kustomizeBuild(`${dir}/missing`), /kubectl kustomize .*missing failed: .*nothing\.yaml/);
  t.throws(() => kustomizeBuild(`${dir}/twice`), /may not add resource with an already registered id/);
  t.throws(() => kustomizeBuild(`${dir}/unknown`), /resourcez/);
  t.throws(() => kustomizeBuild(`${dir}/cycle/overlays/one`), /cycle detected/);
  t.throws(() => kustomizeBuild(`${dir}/absent`), /failed/);
});

t.test('YAML helpers', async (t) => {
  t.same(parseYamlText('a: 1\n---\n---\nb: 2\n', 'x'), [{ a: 1 }, null, { b: 2 }]);
  t.throws(() => parseYamlText('a: [\n', 'where.yaml'), /^where\.yaml: /);
  const dir = t.testdir({ 'm.yaml': `---\n${CONFIG_MAP}---\n`, 's.yaml': 'just a string\n' });
  t.same(readYamlDocuments(`${dir}/m.yaml`).map(objectId), ['v1/ConfigMap/n/c']);
  t.throws(() => readYamlDocuments(`${dir}/s.yaml`), /not a mapping/);
  t.equal(objectId({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } }), 'v1/Namespace//n', 'no namespace');
});
