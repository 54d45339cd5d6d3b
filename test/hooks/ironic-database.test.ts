import t from 'tap';
import { ironic, testServer, type Obj } from '../helpers/hooks.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { DB_TLS, ironicDatabase, syncedDatabaseChildren } from '../fixtures/database-scenarios.js';
import { customizeIronicDatabase } from '../../src/hooks/ironic-database.js';
import type { CustomizeRequest } from '../../src/api/hook.js';
import { containerOf, envOf, podOf } from '../helpers/render.js';

type Response = { status: Obj & { conditions: Obj[] }; children: Obj[]; finalized?: boolean; resyncAfterSeconds?: number };

t.test('customize asks for its Secrets by name and for the Ironic objects of its namespace', async (t) => {
  const rules = (spec: Obj) => customizeIronicDatabase({ parent: ironicDatabase(spec) } as unknown as CustomizeRequest).relatedResources;
  const own = [
    { apiVersion: 'v1', resource: 'configmaps', namespace: 'metal3', names: ['ironic-db-database-config'] },
    { apiVersion: 'apps/v1', resource: 'statefulsets', namespace: 'metal3', names: ['ironic-db-database'] },
    { apiVersion: 'v1', resource: 'services', namespace: 'metal3', names: ['ironic-db-database'] },
  ];
  t.same(rules({}), [
    { apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironics', namespace: 'metal3' },
    { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['ironic-db-database-credentials'] },
    ...own,
  ]);
  t.same(rules({ credentialsName: 'c', tlsCertificateName: 'a' }), [
    { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['a', 'c'] },
    { apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironics', namespace: 'metal3' },
    ...own,
  ]);
});

t.test('the generated password is kept across syncs', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const first = Object.values(children['Secret.v1'] ?? {})[0] as Obj;
  const again = (await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase({}), children, related: {} } })).json() as Response;
  const secretChild = again.children.find((c) => c['kind'] === 'Secret') as Obj;
  t.same(secretChild['data'], first['data']);
});

t.test('unusable credentials or TLS Secrets are reported and keep the children', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const cases = [
    { spec: { credentialsName: 'x' }, rel: [], reason: 'MissingReference' },
    { spec: { credentialsName: 'x' }, rel: [secret('x', { username: 'u', password: "it's" })], reason: 'InvalidReference' },
    { spec: { tlsCertificateName: 'x' }, rel: [secret('x', { 'tls.crt': 'c' })], reason: 'InvalidReference' },
  ];
  for (const c of cases) {
    const r = (await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(c.spec), children, related: related(...c.rel) } })).json() as Response;
    t.equal(r.status.conditions[0]?.['reason'], c.reason);
    t.equal(r.children.length, 4, 'children kept');
  }
});

t.test('an Ironic on a managed database waits until it is ready, then uses its connection facts', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const spec = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, databaseName: 'ironic-db' };
  const notReady = ironicDatabase({}, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'DatabaseInProgress', message: 'stateful set ironic-db-database is not ready yet' }] } });
  const waiting = (await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children: {}, related: related(notReady) } })).json() as Response;
  t.equal(waiting.status.conditions[0]?.['reason'], 'DeploymentInProgress');
  t.match(String(waiting.status.conditions[0]?.['message']), /waiting for IronicDatabase metal3\/ironic-db to become ready: stateful set/);
  t.same(waiting.children, [], 'nothing is created before the database is ready');

  const dbChildren = await syncedDatabaseChildren(app, { parent: ironicDatabase({ tlsCertificateName: 'db-tls' }), children: {}, related: related(DB_TLS) });
  const dbStatus = ((await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase({ tlsCertificateName: 'db-tls' }), children: dbChildren, related: related(DB_TLS) } })).json() as Response).status;
  t.equal(dbStatus.conditions[0]?.['status'], 'True');
  const readyDb = ironicDatabase({ tlsCertificateName: 'db-tls' }, { status: dbStatus });
  const parent = ironic(spec, { status: { installedVersion: '38.0', requestedVersion: '38.0' } });
  const r = (await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: related(readyDb) } })).json() as Response;
  const pod = podOf(r.children);
  const env = envOf(containerOf(pod, 'ironic'));
  t.equal(env['MARIADB_HOST'], 'ironic-db-database.metal3.svc');
  t.equal(env['MARIADB_DATABASE'], 'ironic');
  t.equal(env['IRONIC_USE_MARIADB'], 'true');
  const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
  t.same(volumes['auth-mariadb'], { name: 'auth-mariadb', secret: { secretName: 'ironic-db-database-credentials' } });
  t.same(volumes['cert-mariadb'], { name: 'cert-mariadb', secret: { secretName: 'db-tls', items: [{ key: 'ca.crt', path: 'tls.crt' }] } }, 'the CA is projected where the image reads it');
});

t.test('finalize is blocked while an Ironic uses the database, then deletes and releases', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const deleting = ironicDatabase({}, { metadata: { name: 'ironic-db', namespace: 'metal3', generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  const user = ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: 'metal3' } });
  const other = ironic({ databaseName: 'other' }, { metadata: { name: 'unrelated', namespace: 'metal3' } });
  const blocked = (await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children, related: related(user, other), finalizing: true } })).json() as Response;
  t.equal(blocked.finalized, undefined, 'not finalized');
  t.equal(blocked.children.length, 4, 'the database keeps running while used');
  t.same(blocked.status['usedBy'], ['user']);
  const condition = blocked.status.conditions.find((c) => c['type'] === 'DeletionBlocked');
  t.match(String(condition?.['message']), /still used by: user/);

  const releasing = (await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children, related: related(other), finalizing: true } })).json() as Response;
  t.same(releasing.children, [], 'children deleted once unused');
  t.equal(releasing.finalized, false, 'waits for them to be gone');
  const released = (await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children: { 'StatefulSet.apps/v1': {} }, related: related(other), finalizing: true } })).json() as Response;
  t.equal(released.finalized, true);
});

t.test('the data volume is retained on deletion unless the spec says otherwise', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const policy = async (spec: Obj) => {
    const r = (await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(spec), children: {}, related: {} } })).json() as Response;
    const set = r.children.find((c) => c['kind'] === 'StatefulSet') as Obj;
    return (set['spec'] as Obj)['persistentVolumeClaimRetentionPolicy'];
  };
  t.same(await policy({}), { whenDeleted: 'Retain', whenScaled: 'Retain' });
  t.same(await policy({ storage: { whenDeleted: 'Delete' } }), { whenDeleted: 'Delete', whenScaled: 'Retain' });
  t.equal(await policy({ storage: { ephemeral: true } }), undefined, 'no claim at all with ephemeral storage');
});

t.test('the claim template of an existing StatefulSet is never changed, and a resize is explained', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({ storage: { size: '10Gi' } }), children: {}, related: {} });
  const sync = async (spec: Obj) =>
    (await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(spec), children, related: {} } })).json() as Response;
  const templates = (r: Response) => ((r.children.find((c) => c['kind'] === 'StatefulSet') as Obj)['spec'] as Obj)['volumeClaimTemplates'];
  const observedTemplates = ((Object.values(children['StatefulSet.apps/v1'] ?? {})[0] as Obj)['spec'] as Obj)['volumeClaimTemplates'];
  const grown = await sync({ storage: { size: '20Gi' } });
  t.same(templates(grown), observedTemplates, 'template kept (it is immutable)');
  const resize = grown.status.conditions.find((c) => c['type'] === 'StorageResizePending');
  t.match(String(resize?.['message']), /20Gi but the data volume was created with 10Gi.*expand the claim data-ironic-db-database-0/);
  const same = await sync({ storage: { size: '10Gi' } });
  t.notOk(same.status.conditions.some((c) => c['type'] === 'StorageResizePending'));
  const ephemeral = await sync({ storage: { ephemeral: true } });
  t.same(templates(ephemeral), observedTemplates, 'existing data is never moved to an emptyDir');
});

t.test('finalize called late, under foreground deletion, does no harm and says what happens', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const metadata = { name: 'ironic-db', namespace: 'metal3', generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion', 'metacontroller.io/compositecontroller-ironicdatabase'] };
  const deleting = ironicDatabase({}, { metadata });
  const user = ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: 'metal3' } });
  const late = (await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children, related: related(user), finalizing: true } })).json() as Response;
  t.same(late.children, [], 'nothing is recreated: the garbage collector is deleting the children anyway');
  t.equal(late.finalized, false, 'not released while children remain');
  t.equal(late.status.conditions.find((c) => c['type'] === 'DeletionBlocked'), undefined, 'not reported as blocked: it is not');
  const ready = late.status.conditions.find((c) => c['type'] === 'Ready');
  t.equal(ready?.['reason'], 'Deleting');
  t.match(String(ready?.['message']), /although user still use it \(deleted with foreground propagation/);
  const gone = (await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children: {}, related: related(user), finalizing: true } })).json() as Response;
  t.equal(gone.finalized, true, 'released once the children are gone');
});
