/**
 * Golden files: whole sync responses through the HTTP route, compared as YAML. A scenario without its
 * golden file fails; run with UPDATE_GOLDEN=1 to write or rewrite them after an intended change, then
 * review the diff.
 */
import t from 'tap';
import { stringify } from 'yaml';
import { testServer, type Obj } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';
import { crdOf } from '../../src/kinds/crds.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { assertGolden } from '../helpers/golden.js';
import { scenariosOf } from '../fixtures/scenarios.js';

const toYaml = (value: unknown): string => stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });

/** One suite per parent kind: its scenarios, its sync route, its CRD and its golden directory, all named by its hook path. */
const suites = PARENT_KINDS.map((kind) => ({ kind: kind.hookPath, path: `/${kind.hookPath}/sync`, crd: () => crdOf(kind), scenarios: scenariosOf(kind) }));

t.test('every parent kind has golden scenarios', async (t) => {
  for (const suite of suites) t.ok(suite.scenarios.length > 0, `${suite.kind}: scenarios in test/fixtures/scenarios.ts`);
});

for (const suite of suites) {
  for (const scenario of suite.scenarios) {
    t.test(`${suite.kind}/${scenario.name}`, async (t) => {
      const app = testServer(undefined, undefined, scenario.env ?? {});
      t.teardown(() => app.close());
      const request = await scenario.request(app);
      const response = await app.inject({ method: 'POST', url: suite.path, payload: request });
      t.equal(response.statusCode, 200, 'HTTP 200');
      const body = response.json<{ status: Obj; children: Obj[] }>();
      const keys = Object.keys(body).sort();
      t.same(
        keys.filter((k) => k !== 'resyncAfterSeconds'),
        ['children', 'status'],
        'only the keys Metacontroller v2 accepts',
      );
      for (const child of body.children) {
        t.doesNotThrow(() => validateK8s(child), `${String(child['kind'])} ${String((child['metadata'] as Obj)['name'])} is a valid Kubernetes object`);
      }
      const parent = request['parent'] as Obj;
      t.same(
        checkAgainstCrd(suite.crd(), { ...parent, status: body.status }).filter((p) => p.startsWith('/status')),
        [],
        'status fits the CRD schema (nothing pruned)',
      );
      assertGolden(t, `test/golden/${suite.kind}/${scenario.name}.yaml`, toYaml(body));
    });
  }
}
