import t from 'tap';
import { customizeIronic } from '../../src/hooks/ironic.js';
import { keepObservedChildren } from '../../src/render/child.js';
import { customizeRequest, fakeSecrets, ironic, objectMap, syncBody, testServer, type Obj } from '../helpers/hooks.js';
import { syncedChildren, related, secret } from '../fixtures/ironic-scenarios.js';
import { LAST_APPLIED } from '../helpers/k8s.js';
import { firstObserved } from '../helpers/children.js';
import { objAt, objsAt, present } from '../support/paths.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const byKindName = (list: Obj[]): Obj[] =>
  [...list].sort((a, b) =>
    `${String(a['kind'])}/${String(objAt(a, 'metadata')['name'])}`.localeCompare(`${String(b['kind'])}/${String(objAt(b, 'metadata')['name'])}`),
  );
const customize = (spec: unknown) => customizeIronic(customizeRequest({ parent: { ...ironic({}), spec } })).relatedResources;

/** The rules for the names of the children we create (to find objects in the way), per workload. */
const own = (secrets: string[] = ['ironic-api-credentials', 'ironic-clouds']): Obj[] => [
  ...(secrets.length > 0 ? [{ apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: secrets }] : []),
  { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'metal3', names: ['ironic-service'] },
  { apiVersion: 'apps/v1', resource: 'daemonsets', namespace: 'metal3', names: ['ironic-service'] },
  { apiVersion: 'v1', resource: 'services', namespace: 'metal3', names: ['ironic'] },
];

t.test('customize asks for exactly the referenced objects and the names it will create, by name', async (t) => {
  t.same(customize({}), own(), 'only our own names: a rule without names would select everything');
  t.same(
    customize({
      apiCredentialsName: 'creds',
      databaseName: 'db',
      tls: { certificateName: 'tls', bmcCA: { kind: 'ConfigMap', name: 'bmc' }, trustedCA: { kind: 'Secret', name: 'trusted', key: 'ca.pem' } },
    }),
    [
      { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['creds', 'ironic-clouds', 'tls', 'trusted'] },
      { apiVersion: 'v1', resource: 'configmaps', namespace: 'metal3', names: ['bmc'] },
      { apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironicdatabases', namespace: 'metal3', names: ['db'] },
      ...own([]),
    ],
  );
  t.same(customize({ tls: { bmcCAName: 'legacy-bmc', trustedCAName: 'legacy-trusted' } }), [
    { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['ironic-api-credentials', 'ironic-clouds', 'legacy-bmc'] },
    { apiVersion: 'v1', resource: 'configmaps', namespace: 'metal3', names: ['legacy-trusted'] },
    ...own([]),
  ]);
  t.same(
    customize({ tls: { certificateName: 'same', bmcCAName: 'same' } }),
    [{ apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['ironic-api-credentials', 'ironic-clouds', 'same'] }, ...own([])],
    'no duplicates',
  );
  t.same(customize({ networking: { apiPort: 'x' } }), [], 'an invalid spec creates nothing, so no own names are asked for');
  for (const bad of [null, 'x', 3, [], { tls: 'x' }, { apiCredentialsName: 7 }, { tls: { bmcCA: 'x' } }]) {
    t.doesNotThrow(() => customize(bad), `malformed spec ${JSON.stringify(bad)}`);
  }
});

t.test('an invalid spec keeps every observed child exactly as last applied', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const applied = Object.values(children)
    .flatMap((group) => Object.values(group))
    .map((o) => objAt(JSON.parse(String(objAt(o, 'metadata', 'annotations')[LAST_APPLIED]))));
  t.equal(applied.length, 5);
  for (const spec of [
    { networking: { ...provisioning, ipAddress: 'nope' } },
    { highAvailability: true },
    { version: '1.0' },
    { networking: provisioning, nodeSelector: { 'kubernetes.io/os': 'linux/amd64' } },
  ]) {
    const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children, related: {} } });
    const body = syncBody(response);
    t.same(byKindName(body.children), byKindName(applied), `children unchanged for ${JSON.stringify(spec)}`);
    t.equal(body.status.conditions[0]?.['reason'], 'InvalidSpec');
    t.equal(body.status.conditions[0]?.['status'], 'False');
  }
});

t.test('a missing or unusable Secret keeps the children and names the object', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const cases = [
    { spec: { networking: provisioning, apiCredentialsName: 'gone' }, rel: [], reason: 'MissingReference', message: /metal3\/gone/ },
    {
      spec: { networking: provisioning, apiCredentialsName: 'half' },
      rel: [secret('half', { username: 'u' })],
      reason: 'InvalidReference',
      message: /non-empty username and password/,
    },
    {
      spec: { networking: provisioning, apiCredentialsName: 'bad' },
      rel: [secret('bad', { username: 'a b', password: 'p' })],
      reason: 'InvalidReference',
      message: /may only contain/,
    },
    {
      spec: { networking: provisioning, tls: { certificateName: 'notls' } },
      rel: [secret('notls', { 'tls.crt': 'x' })],
      reason: 'InvalidReference',
      message: /no tls.key/,
    },
    {
      spec: { networking: provisioning, tls: { trustedCA: { kind: 'Secret', name: 'ca', key: 'x.pem' } } },
      rel: [secret('ca', { 'y.pem': 'Y' })],
      reason: 'InvalidReference',
      message: /no key "x.pem"/,
    },
    { spec: { networking: provisioning, databaseName: 'db' }, rel: [], reason: 'MissingReference', message: /IronicDatabase metal3\/db/ },
  ];
  for (const c of cases) {
    const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(c.spec), children, related: related(...c.rel) } });
    const body = syncBody(response);
    t.same(body.children, keepObservedChildren(objectMap(children)), `children kept: ${c.reason}`);
    t.equal(body.status.conditions[0]?.['reason'], c.reason);
    t.match(String(body.status.conditions[0]?.['message']), c.message);
  }
});

t.test('keeping observed children without a recorded last-applied drops server fields', async (t) => {
  const kept = keepObservedChildren(
    objectMap({
      'ConfigMap.v1': {
        'ns/a': {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '3', managedFields: [], ownerReferences: [], annotations: { keep: 'me' } },
          data: { k: 'v' },
          status: { x: 1 },
        },
        'ns/b': {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'b',
            namespace: 'ns',
            annotations: { [LAST_APPLIED]: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"z":"1"}}' },
          },
        },
      },
      'Secret.v1': null,
    }),
  );
  t.same(kept, [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', annotations: { keep: 'me' } }, data: { k: 'v' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { z: '1' } },
  ]);
});

t.test('finalize deletes the children and releases the finalizer once none is left; sync never finalizes', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const parent = ironic({ networking: provisioning }, { metadata: { name: 'ironic', namespace: 'metal3', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  const busy = objAt((await app.inject({ method: 'POST', url: '/ironic/finalize', payload: { parent, children, related: {}, finalizing: true } })).json());
  t.same(busy['children'], []);
  t.equal(busy['finalized'], false);
  t.ok(Number(busy['resyncAfterSeconds']) > 0, 'polls while children remain');
  const done = objAt(
    (
      await app.inject({ method: 'POST', url: '/ironic/finalize', payload: { parent, children: { 'Deployment.apps/v1': {} }, related: {}, finalizing: true } })
    ).json(),
  );
  t.equal(done['finalized'], true);
  t.same(Object.keys(done).sort(), ['children', 'finalized', 'status']);
  const synced = objAt(
    (await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic({ networking: provisioning }), children, related: {} } })).json(),
  );
  t.notOk('finalized' in synced, 'a plain sync never carries finalized');
});

t.test('bad requests get a 400 that says what is wrong', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const cases = [
    { payload: '{not json', type: 'application/json', message: /JSON/i },
    { payload: { children: {} }, message: /parent/ },
    { payload: { parent: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }, message: /serves Ironic/ },
    { payload: { parent: { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: {} } }, message: /name/ },
    { payload: { parent: ironic({}), children: { 'Secret.v1': { x: 3 } } }, message: /children/ },
  ];
  for (const c of cases) {
    const response = await app.inject({
      method: 'POST',
      url: '/ironic/sync',
      headers: { 'content-type': c.type ?? 'application/json' },
      payload: typeof c.payload === 'string' ? c.payload : JSON.stringify(c.payload),
    });
    t.equal(response.statusCode, 400, JSON.stringify(c.payload).slice(0, 60));
    t.match(objAt(response.json())['message'], c.message);
  }
});

t.test('health', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

t.test('a Secret cache behind the workload cache does not mint new credentials', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const withoutSecrets = { ...children, 'Secret.v1': {} };
  const deployment = firstObserved(children, 'Deployment.apps/v1');
  const young = { ...deployment, metadata: { ...objAt(deployment, 'metadata'), creationTimestamp: '2025-12-31T23:59:30Z' } };
  const lagging = { ...withoutSecrets, 'Deployment.apps/v1': { 'metal3/ironic-service': young } };
  const r = objAt(
    (
      await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic({ networking: provisioning }), children: lagging, related: {} } })
    ).json(),
  );
  t.equal(objsAt(r, 'children').length, 2, 'the observed children are kept (Deployment and Service)');
  t.equal(r['resyncAfterSeconds'], 5);
  const old = { ...deployment, metadata: { ...objAt(deployment, 'metadata'), creationTimestamp: '2025-12-01T00:00:00Z' } };
  const deleted = { ...withoutSecrets, 'Deployment.apps/v1': { 'metal3/ironic-service': old } };
  const regenerated = objAt(
    (
      await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic({ networking: provisioning }), children: deleted, related: {} } })
    ).json(),
  );
  t.ok(
    objsAt(regenerated, 'children').some((c) => c['kind'] === 'Secret'),
    'Secrets deleted long after the workload are re-created',
  );
});

t.test('customize asks for the switch Secrets only when they are named and the service is enabled', async (t) => {
  const secrets = (c: Obj[]): unknown => c.find((r) => r['resource'] === 'secrets')?.['names'];
  t.same(secrets(customize({ networkingService: { enabled: true, switchConfigSecretName: 'sw', switchCredentialsSecretName: 'keys' } })), [
    'ironic-api-credentials',
    'ironic-clouds',
    'keys',
    'sw',
  ]);
  t.same(secrets(customize({ networkingService: { enabled: false, switchConfigSecretName: 'sw' } })), ['ironic-api-credentials', 'ironic-clouds']);
  t.same(
    secrets(customize({ networkingService: { enabled: true } })),
    ['ironic-api-credentials', 'ironic-clouds', 'ironic-switch-config', 'ironic-switch-credentials'],
    'default names are our own children: asked for only to find objects in the way',
  );
});

t.test('a named switch Secret that is missing keeps the children and says which', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const r = objAt(
    (
      await app.inject({
        method: 'POST',
        url: '/ironic/sync',
        payload: { parent: ironic({ networkingService: { enabled: true, switchConfigSecretName: 'sw' } }), children: {}, related: {} },
      })
    ).json(),
  );
  const ready = present(objsAt(r, 'status', 'conditions')[0]);
  t.equal(ready['reason'], 'MissingReference');
  t.match(String(ready['message']), /Secret metal3\/sw named in spec.networkingService.switchConfigSecretName/);
});

t.test('networking service: tolerations follow Ironic, and the default switch Secret name stays ours', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const spec = {
    networking: provisioning,
    nodeSelector: { role: 'cp' },
    overrides: { tolerations: [{ key: 'cp', operator: 'Exists', effect: 'NoSchedule' }] },
    networkingService: { enabled: true, switchConfigSecretName: 'ironic-switch-config' },
  };
  const r = objAt((await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children: {}, related: {} } })).json());
  const children = objsAt(r, 'children');
  const networking = present(children.find((c) => c['kind'] === 'Deployment' && objAt(c, 'metadata')['name'] === 'ironic-networking'));
  const podSpec = objAt(networking, 'spec', 'template', 'spec');
  t.same(podSpec['tolerations'], spec.overrides.tolerations);
  t.ok(
    children.some((c) => objAt(c, 'metadata')['name'] === 'ironic-switch-config'),
    'the placeholder is still rendered (never deleted)',
  );
  t.equal(objsAt(r, 'status', 'conditions')[0]?.['reason'], 'DeploymentInProgress');
});

t.test('a pre-created credentials Secret is never overwritten and no password is generated for it, sync after sync', async (t) => {
  const secrets = fakeSecrets();
  const app = testServer(secrets);
  t.teardown(() => app.close());
  const taken = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ironic-api-credentials', namespace: 'metal3' },
    data: { username: 'dXNlcg==', password: 'cGFzcw==' },
  };
  const observed = {
    'Service.v1': {
      'metal3/ironic': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ironic', namespace: 'metal3' }, spec: { clusterIP: '10.0.0.1' } },
    },
  };
  for (let round = 0; round < 3; round += 1) {
    const r = objAt(
      (
        await app.inject({
          method: 'POST',
          url: '/ironic/sync',
          payload: { parent: ironic({ networking: provisioning }), children: observed, related: { 'Secret.v1': { 'metal3/ironic-api-credentials': taken } } },
        })
      ).json(),
    );
    const ready = present(objsAt(r, 'status', 'conditions')[0]);
    t.equal(ready['reason'], 'ResourceConflict', `round ${round}`);
    t.same(
      objsAt(r, 'children').map((c) => c['kind']),
      ['Service'],
      `round ${round}: the observed children are kept, nothing is added`,
    );
  }
  t.equal(secrets.passwords(), 0, 'no password was generated');
  t.equal(secrets.hashes(), 0, 'nothing was hashed');
});

t.test('spec.apiCredentialsName set to <name>-api-credentials (as the admission policy does) gets generated credentials', async (t) => {
  const secrets = fakeSecrets();
  const app = testServer(secrets);
  t.teardown(() => app.close());
  const parent = ironic({ networking: provisioning, apiCredentialsName: 'ironic-api-credentials' });
  const children = await syncedChildren(app, { parent, children: {}, related: {} });
  const generated = children['Secret.v1']?.['metal3/ironic-api-credentials'];
  t.ok(generated, 'the Secret is rendered as our child, not reported missing');
  const again = objAt(
    (
      await app.inject({
        method: 'POST',
        url: '/ironic/sync',
        payload: { parent, children, related: { 'Secret.v1': { 'metal3/ironic-api-credentials': generated } } },
      })
    ).json(),
  );
  const status = objAt(again, 'status');
  t.equal(status['apiCredentialsName'], 'ironic-api-credentials');
  t.not(present(objsAt(status, 'conditions')[0])['reason'], 'MissingReference');
  t.equal(secrets.passwords(), 1, 'one password, reused on the next sync');
});

t.test('customize asks for the VRRP password Secret of an enabled keepalived', async (t) => {
  const secrets = (c: Obj[]): unknown => c.find((r) => r['resource'] === 'secrets')?.['names'];
  const networking = (keepalived: Obj) => ({ networking: { interface: 'eth1', ipAddress: '192.0.2.2', keepalived } });
  t.same(secrets(customize(networking({ enabled: true, passwordRef: { name: 'vrrp' } }))), ['ironic-api-credentials', 'ironic-clouds', 'vrrp']);
  t.same(
    secrets(customize(networking({ enabled: false, passwordRef: { name: 'vrrp' } }))),
    undefined,
    'a disabled keepalived (an invalid spec, creating nothing) asks for nothing',
  );
  t.same(secrets(customize(networking({ enabled: true, passwordRef: 'vrrp' }))), undefined, 'a malformed reference (an invalid spec) asks for nothing');
});
