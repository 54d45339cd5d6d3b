/**
 * Golden files: whole sync responses through the HTTP route, compared as YAML. A scenario without its
 * golden file fails; run with UPDATE_GOLDEN=1 to write or rewrite them after an intended change, then
 * review the diff.
 */
import t from 'tap';
import { stringify } from 'yaml';
import { ironicScenarios } from '../fixtures/ironic-scenarios.js';
import { databaseScenarios } from '../fixtures/database-scenarios.js';
import { imageCacheScenarios } from '../fixtures/image-cache-scenarios.js';
import { hookResponse, testServer } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';
import { ironicCrd, ironicDatabaseCrd, ironicImageCacheCrd } from '../../src/crd/crds.js';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { assertGolden } from '../helpers/golden.js';
import { objAt } from '../support/paths.js';

const toYaml = (value: unknown): string => stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });

const suites = [
  { kind: 'ironic', path: '/ironic/sync', crd: ironicCrd, scenarios: ironicScenarios },
  { kind: 'ironicdatabase', path: '/ironicdatabase/sync', crd: ironicDatabaseCrd, scenarios: databaseScenarios },
  { kind: 'ironicimagecache', path: '/ironicimagecache/sync', crd: ironicImageCacheCrd, scenarios: imageCacheScenarios },
] as const;

for (const suite of suites) {
  for (const scenario of suite.scenarios) {
    t.test(`${suite.kind}/${scenario.name}`, async (t) => {
      const app = testServer(undefined, undefined, 'env' in scenario ? scenario.env : {});
      t.teardown(() => app.close());
      const request = await scenario.request(app);
      const response = await app.inject({ method: 'POST', url: suite.path, payload: request });
      t.equal(response.statusCode, 200, 'HTTP 200');
      const body = hookResponse(response);
      const keys = Object.keys(body).sort();
      t.same(keys.filter((k) => k !== 'resyncAfterSeconds'), ['children', 'status'], 'only the keys Metacontroller v2 accepts');
      for (const child of body.children) {
        t.doesNotThrow(() => validateK8s(child), `${String(child['kind'])} ${String(objAt(child, 'metadata')['name'])} is a valid Kubernetes object`);
      }
      const parent = objAt(request, 'parent');
      t.same(checkAgainstCrd(suite.crd(), { ...parent, status: body.status }).filter((p) => p.startsWith('/status')), [], 'status fits the CRD schema (nothing pruned)');
      assertGolden(t, `test/golden/${suite.kind}/${scenario.name}.yaml`, toYaml(body));
    });
  }
}
