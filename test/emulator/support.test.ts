/**
 * The emulator's API server pieces: defaulting and pruning to the CRDs, admission, and reading the
 * CompositeControllers.
 */
import t from 'tap';
import { defaultAndPrune, storedObject, storedStatus } from '../support/crd-schema.js';
import { controllerSpecOf } from '../support/controllers.js';
import { startEmulator } from '../support/emulator.js';
import { objAt } from '../support/paths.js';

t.test('defaults apply top-down, unknown fields are pruned unless preserved', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      a: { type: 'object', default: {}, properties: { b: { type: 'integer', default: 1 }, c: { type: 'string' } } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      map: { type: 'object', additionalProperties: { type: 'object', properties: { k: { type: 'string' } } } },
    },
  };
  t.same(defaultAndPrune(schema, { x: 1, free: { y: 2 }, map: { m: { k: 'v', z: 0 } } }), { a: { b: 1 }, free: { y: 2 }, map: { m: { k: 'v' } } });
});

t.test('an Ironic keeps its spec and status through the API server', async (t) => {
  const status = {
    conditions: [
      { type: 'Ready', status: 'True', reason: 'DeploymentAvailable', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 },
    ],
    requestedVersion: '38.0',
    installedVersion: '38.0',
    apiCredentialsName: 'x',
    observedGeneration: 1,
  };
  t.same(storedStatus('Ironic', status), status);
  t.same(storedStatus('Ironic', { ...status, surprise: true }), status, 'an unknown status field is pruned');
  const stored = storedObject({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'Ironic',
    metadata: { name: 'i' },
    spec: { networking: { interface: 'eth1' }, typo: 1 },
  });
  t.match(stored, { spec: { networking: { interface: 'eth1', apiPort: 6385 } } });
  t.notOk('typo' in objAt(stored, 'spec'));
});

t.test('the emulator refuses what the CRD refuses, and needs a namespace for ambiguous names', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  t.throws(
    () => emulator.apply('apiVersion: ironic.metal3.io/v1alpha1\nkind: Ironic\nmetadata:\n  name: i\nspec:\n  highAvailability: true\n'),
    /Ironic metal3\/i refused: .*requires a database/,
  );
  emulator.apply(
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: a\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: b\n',
  );
  t.throws(() => emulator.get('Secret', 's'), /several namespaces/);
  t.ok(emulator.get('Secret', 's', 'a'));
  t.throws(() => emulator.markDeploymentAvailable('nope'), /Deployment \*\/nope not found/);
});

t.test('CompositeControllers the emulator cannot model are refused', async (t) => {
  const controller = (spec: Record<string, unknown>) => ({
    metadata: { name: 'x' },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: 'v1', resource: 'secrets' },
      hooks: { sync: { webhook: { url: 'http://h/x/sync' } } },
      ...spec,
    },
  });
  t.match(controllerSpecOf(controller({})), { name: 'x', hookPath: '/x', parentGroup: 'Secret.v1', childTypes: [], finalize: false });
  t.throws(
    () => controllerSpecOf(controller({ childResources: [{ apiVersion: 'v1', resource: 'pods', updateStrategy: { method: 'InPlace' } }] })),
    /unknown resource pods/,
  );
  t.throws(
    () => controllerSpecOf(controller({ childResources: [{ apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'RollingInPlace' } }] })),
    /does not model update method RollingInPlace/,
  );
  t.throws(() => controllerSpecOf(controller({ generateSelector: false })), /generateSelector: true only/);
});
