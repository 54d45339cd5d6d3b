/**
 * spec.imagePullSecrets of every kind and the hook server's HOOK_IMAGE_PULL_SECRETS: every pod template of
 * every scenario's sync response carries the spec's pull secrets (in order, first), and the hook server's
 * ones exactly where a container runs the hook image; the CRDs and the hooks accept and refuse the same specs.
 */
import t from 'tap';
import { testServer, testConfig, type Obj } from '../helpers/hooks.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { scenariosOf } from '../fixtures/scenarios.js';
import { admissionProblems } from '../support/crd-schema.js';
import { validateIronic } from '../../src/api/ironic/validate.js';
import { validateIronicDatabase } from '../../src/api/ironic-database/validate.js';
import { validateIronicImageCache } from '../../src/api/ironic-image-cache/validate.js';
import { ConfigError } from '../../src/config.js';
import { DEFAULT_HOOK_IMAGE } from '../../src/render/shared/certificate-issuer.js';
import { isRecord } from '../../src/render/observed.js';
import { objAt, objAtOrEmpty } from '../support/paths.js';
import { LABELS } from '../../src/render/names.js';
import { crdOf } from '../../src/kinds/crds.js';

const OWN = [{ name: 'registry-a' }, { name: 'registry-b' }];
const HOOK = 'hook-registry';

/** The pod specs of a child: a workload's or Job's template, or the pod part of a mariadb-operator MariaDB. */
const podSpecsOf = (child: Obj): Obj[] => {
  const spec = objAtOrEmpty(child, 'spec');
  if (child['kind'] === 'MariaDB') return [spec];
  // A CronJob's pods: its Job template's.
  if (child['kind'] === 'CronJob') return podSpecsOf({ kind: 'Job', spec: objAtOrEmpty(spec, 'jobTemplate', 'spec') });
  const template = spec['template'];
  if (isRecord(template) && isRecord(template['spec'])) return [template['spec']];
  return [];
};

const listAt = (pod: Obj, key: string): unknown[] => {
  const value: unknown = pod[key];
  return Array.isArray(value) ? value.map((v: unknown) => v) : [];
};

const containerImages = (pod: Obj): string[] =>
  [...listAt(pod, 'initContainers'), ...listAt(pod, 'containers')].filter(isRecord).map((c) => (typeof c['image'] === 'string' ? c['image'] : ''));

t.test('every rendered pod template of every scenario carries the pull secrets', async (t) => {
  const seen = new Map<string, number>();
  let withHook = 0;
  for (const kind of PARENT_KINDS) {
    for (const scenario of scenariosOf(kind)) {
      const app = testServer(undefined, undefined, { ...scenario.env, HOOK_IMAGE_PULL_SECRETS: HOOK });
      const request = await scenario.request(app);
      const parent = objAt(request, 'parent');
      const payload = { ...request, parent: { ...parent, spec: { ...objAt(parent, 'spec'), imagePullSecrets: OWN } } };
      const response = await app.inject({ method: 'POST', url: `/${kind.hookPath}/sync`, payload });
      await app.close();
      const children = response.json<{ children: Obj[] }>().children;
      // A child kept as observed (waiting for something, or an invalid spec) is never changed, so only
      // children the sync renders anew are checked: those of observed children are left out.
      const observed = new Set(
        Object.values(objAtOrEmpty(request, 'children'))
          .filter(isRecord)
          .flatMap((group) => Object.values(group).filter(isRecord))
          .map((o) => JSON.stringify(o['spec'] ?? null)),
      );
      for (const child of children.filter((c) => !observed.has(JSON.stringify(c['spec'] ?? null)))) {
        // A retired workload (HA switch) is the observed one scaled to zero or with a node selector no node
        // has: left as it was.
        const retired = objAtOrEmpty(child, 'spec')['replicas'] === 0;
        for (const pod of podSpecsOf(child).filter((p) => !retired && objAtOrEmpty(p, 'nodeSelector')[LABELS.retiredWorkload] === undefined)) {
          const name = `${kind.kind}/${scenario.name}: ${String(child['kind'])} ${String(objAt(child, 'metadata')['name'])}`;
          const hook = containerImages(pod).includes(DEFAULT_HOOK_IMAGE);
          t.same(pod['imagePullSecrets'], hook ? [...OWN, { name: HOOK }] : OWN, name);
          withHook += hook ? 1 : 0;
          seen.set(String(child['kind']), (seen.get(String(child['kind'])) ?? 0) + 1);
        }
      }
    }
  }
  for (const kind of ['Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'CronJob', 'MariaDB']) t.ok((seen.get(kind) ?? 0) > 0, `some ${kind} was checked`);
  t.ok(withHook > 0, 'some pod runs the hook image');
});

const KINDS = [
  { kind: 'Ironic', validate: validateIronic, base: { networking: { interface: 'eth1' } } },
  { kind: 'IronicDatabase', validate: validateIronicDatabase, base: {} },
  { kind: 'IronicImageCache', validate: validateIronicImageCache, base: {} },
] as const;

/** The field's schema in the kind's CRD. */
const fieldSchema = (kind: string): Obj => {
  const parent = PARENT_KINDS.find((k) => k.kind === kind);
  if (parent === undefined) throw new Error(`no kind ${kind}`);
  const version = objAt(crdOf(parent), 'spec', 'versions', 0);
  return objAt(version, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'properties', 'imagePullSecrets');
};

const CASES: readonly { readonly what: string; readonly value: unknown; readonly accepted: boolean; readonly listMap?: true }[] = [
  { what: 'one Secret', value: [{ name: 'registry' }], accepted: true },
  { what: 'two Secrets, dotted names', value: [{ name: 'quay.example.com' }, { name: 'registry-2' }], accepted: true },
  { what: 'an empty list', value: [], accepted: true },
  // Refused by the API server as a list map keyed by name (checked below: the test's CRD check has no list maps).
  { what: 'a repeated name', value: [{ name: 'registry' }, { name: 'registry' }], accepted: false, listMap: true },
  { what: 'an empty name', value: [{ name: '' }], accepted: false },
  { what: 'no name', value: [{}], accepted: false },
  { what: 'an upper-case name', value: [{ name: 'Registry' }], accepted: false },
  { what: 'a bare string', value: ['registry'], accepted: false },
  { what: 'seventeen Secrets', value: Array.from({ length: 17 }, (_, i) => ({ name: `r${i}` })), accepted: false },
];

t.test('the CRDs and the hooks accept and refuse the same imagePullSecrets', async (t) => {
  for (const { kind, validate, base } of KINDS) {
    for (const c of CASES) {
      const spec = { ...base, imagePullSecrets: c.value };
      const object = { apiVersion: 'ironic.metal3.io/v1alpha1', kind, metadata: { name: 'x', namespace: 'ns' }, spec };
      const crd = admissionProblems(object);
      const hook = validate(spec);
      if (c.listMap === true)
        t.match(
          fieldSchema(kind),
          { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
          `${kind}, ${c.what}: the API server refuses it`,
        );
      else t.equal(crd.length === 0, c.accepted, `${kind}, ${c.what}: the CRD ${c.accepted ? 'accepts' : 'refuses'} (${crd.join('; ')})`);
      t.equal(hook.length === 0, c.accepted, `${kind}, ${c.what}: the hook ${c.accepted ? 'accepts' : 'refuses'}`);
      if (!c.accepted) t.match(hook[0]?.path ?? '', /^spec\.imagePullSecrets/, `${kind}, ${c.what}: the problem names the field`);
    }
  }
});

t.test('HOOK_IMAGE_PULL_SECRETS: a comma-separated list of Secret names', async (t) => {
  t.same(testConfig({ HOOK_IMAGE_PULL_SECRETS: ' a , b.c,a ' }).render.hookImagePullSecrets, ['a', 'b.c']);
  t.equal(testConfig({}).render.hookImagePullSecrets, undefined);
  t.throws(
    () => testConfig({ HOOK_IMAGE_PULL_SECRETS: 'a,Bad_Name' }),
    new ConfigError('HOOK_IMAGE_PULL_SECRETS must list Secret names (lower-case DNS subdomains) separated by commas, got "Bad_Name"'),
  );
});
