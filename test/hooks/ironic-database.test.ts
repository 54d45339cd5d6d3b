import t from 'tap';
import { customizeRequest, ironic, syncBody, testServer, type Obj, type SyncBody } from '../helpers/hooks.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import {
  DB_TLS,
  GALERA_DB_TLS,
  ironicDatabase,
  mariadbOperatorReady,
  primaryService,
  syncedDatabaseChildren,
  WITH_MARIADB_OPERATOR,
} from '../fixtures/database-scenarios.js';
import { observeAll, validateK8s } from '../helpers/k8s.js';
import { customizeIronicDatabase } from '../../src/hooks/ironic-database.js';
import { containerOf, envOf, podOf } from '../helpers/render.js';
import { firstObserved, ofKind, requireChild } from '../helpers/children.js';
import { objAt, present } from '../support/paths.js';
import { TEST_LEAF } from '../fixtures/tls.js';

type Response = SyncBody;

t.test('customize asks for its Secrets by name and for the Ironic objects of its namespace', async (t) => {
  const rules = (spec: Obj) => customizeIronicDatabase(customizeRequest({ parent: ironicDatabase(spec) })).relatedResources;
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
  // The buckets' Secrets are named by the spec even when it is invalid (here: s3 with engine Builtin), so the
  // status can say what is wrong with them too.
  const s3 = (credentials: string, ca: string) => ({ endpoint: 'minio:9000', bucket: 'b', credentialsSecretName: credentials, caSecretName: ca });
  t.match(rules({ backup: { schedule: '0 2 * * *', s3: s3('bk', 'bk-ca') }, restoreFrom: { backup: 'latest', s3: s3('rs', 'rs-ca') } })[0], {
    resource: 'secrets',
    names: ['bk', 'bk-ca', 'rs', 'rs-ca'],
  });
});

t.test('the generated password is kept across syncs', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const first = firstObserved(children, 'Secret.v1');
  const again = syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase({}), children, related: {} } }));
  const secretChild = present(again.children.find((c) => c['kind'] === 'Secret'));
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
    const r = syncBody(
      await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(c.spec), children, related: related(...c.rel) } }),
    );
    t.equal(r.status.conditions[0]?.['reason'], c.reason);
    t.equal(r.children.length, 4, 'children kept');
  }
});

t.test('an Ironic on a managed database waits until it is ready, then uses its connection facts', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const spec = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, databaseName: 'ironic-db' };
  const notReady = ironicDatabase(
    {},
    { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'DatabaseInProgress', message: 'stateful set ironic-db-database is not ready yet' }] } },
  );
  const waiting = syncBody(
    await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children: {}, related: related(notReady) } }),
  );
  t.equal(waiting.status.conditions[0]?.['reason'], 'DeploymentInProgress');
  t.match(String(waiting.status.conditions[0]?.['message']), /waiting for IronicDatabase metal3\/ironic-db to become ready: stateful set/);
  t.same(waiting.children, [], 'nothing is created before the database is ready');

  const dbChildren = await syncedDatabaseChildren(app, { parent: ironicDatabase({ tlsCertificateName: 'db-tls' }), children: {}, related: related(DB_TLS) });
  const dbStatus = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/sync',
      payload: { parent: ironicDatabase({ tlsCertificateName: 'db-tls' }), children: dbChildren, related: related(DB_TLS) },
    }),
  ).status;
  t.equal(dbStatus.conditions[0]?.['status'], 'True');
  const readyDb = ironicDatabase({ tlsCertificateName: 'db-tls' }, { status: dbStatus });
  const parent = ironic(spec, { status: { installedVersion: '38.0', requestedVersion: '38.0' } });
  const r = syncBody(await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: related(readyDb) } }));
  const pod = podOf(r.children);
  const env = envOf(containerOf(pod, 'ironic'));
  t.equal(env['MARIADB_HOST'], 'ironic-db-database.metal3.svc');
  t.equal(env['MARIADB_DATABASE'], 'ironic');
  t.equal(env['IRONIC_USE_MARIADB'], 'true');
  const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
  t.same(volumes['auth-mariadb'], { name: 'auth-mariadb', secret: { secretName: 'ironic-db-database-credentials' } });
  t.same(
    volumes['cert-mariadb'],
    { name: 'cert-mariadb', secret: { secretName: 'db-tls', items: [{ key: 'ca.crt', path: 'tls.crt' }] } },
    'the CA is projected where the image reads it',
  );
});

t.test('finalize is blocked while an Ironic uses the database, then deletes and releases', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const deleting = ironicDatabase({}, { metadata: { name: 'ironic-db', namespace: 'metal3', generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  const user = ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: 'metal3' } });
  const other = ironic({ databaseName: 'other' }, { metadata: { name: 'unrelated', namespace: 'metal3' } });
  const blocked = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/finalize',
      payload: { parent: deleting, children, related: related(user, other), finalizing: true },
    }),
  );
  t.equal(blocked.finalized, undefined, 'not finalized');
  t.equal(blocked.children.length, 4, 'the database keeps running while used');
  t.same(blocked.status['usedBy'], ['user']);
  const condition = blocked.status.conditions.find((c) => c['type'] === 'DeletionBlocked');
  t.match(String(condition?.['message']), /still used by: user/);

  const releasing = syncBody(
    await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children, related: related(other), finalizing: true } }),
  );
  t.same(releasing.children, [], 'children deleted once unused');
  t.equal(releasing.finalized, false, 'waits for them to be gone');
  const released = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/finalize',
      payload: { parent: deleting, children: { 'StatefulSet.apps/v1': {} }, related: related(other), finalizing: true },
    }),
  );
  t.equal(released.finalized, true);
});

t.test('the data volume is retained on deletion unless the spec says otherwise', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const policy = async (spec: Obj) => {
    const r = syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(spec), children: {}, related: {} } }));
    const set = present(r.children.find((c) => c['kind'] === 'StatefulSet'));
    return objAt(set, 'spec')['persistentVolumeClaimRetentionPolicy'];
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
    syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(spec), children, related: {} } }));
  const templates = (r: Response) => objAt(present(r.children.find((c) => c['kind'] === 'StatefulSet')), 'spec')['volumeClaimTemplates'];
  const observedTemplates = objAt(firstObserved(children, 'StatefulSet.apps/v1'), 'spec')['volumeClaimTemplates'];
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
  const metadata = {
    name: 'ironic-db',
    namespace: 'metal3',
    generation: 1,
    deletionTimestamp: '2026-01-01T00:00:00Z',
    finalizers: ['foregroundDeletion', 'metacontroller.io/compositecontroller-ironicdatabase'],
  };
  const deleting = ironicDatabase({}, { metadata });
  const user = ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: 'metal3' } });
  const late = syncBody(
    await app.inject({ method: 'POST', url: '/ironicdatabase/finalize', payload: { parent: deleting, children, related: related(user), finalizing: true } }),
  );
  t.same(late.children, [], 'nothing is recreated: the garbage collector is deleting the children anyway');
  t.equal(late.finalized, false, 'not released while children remain');
  t.equal(
    late.status.conditions.find((c) => c['type'] === 'DeletionBlocked'),
    undefined,
    'not reported as blocked: it is not',
  );
  const ready = late.status.conditions.find((c) => c['type'] === 'Ready');
  t.equal(ready?.['reason'], 'Deleting');
  t.match(String(ready?.['message']), /although user still use it \(deleted with foreground propagation/);
  const gone = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/finalize',
      payload: { parent: deleting, children: {}, related: related(user), finalizing: true },
    }),
  );
  t.equal(gone.finalized, true, 'released once the children are gone');
});

t.test('customize with engine MariaDBOperator asks for the Service of the Galera primary, not for a StatefulSet', async (t) => {
  const rules = customizeIronicDatabase(customizeRequest({ parent: ironicDatabase({ engine: 'MariaDBOperator' }) })).relatedResources;
  t.same(rules, [
    { apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironics', namespace: 'metal3' },
    { apiVersion: 'v1', resource: 'services', namespace: 'metal3', names: ['ironic-db-database-primary'] },
    { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['ironic-db-database-credentials'] },
  ]);
});

const operatorApp = () => testServer(undefined, undefined, WITH_MARIADB_OPERATOR);

t.test('engine MariaDBOperator: Ready follows the Ready conditions of the mariadb-operator objects, then the primary Service', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  const parent = ironicDatabase({ engine: 'MariaDBOperator' });
  const sync = async (children: Obj, rel: Obj[] = []) =>
    syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent, children, related: related(...rel) } }));
  const first = await sync({});
  t.same(
    first.children.map((c) => c['kind']),
    ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
  );
  const notReady = { conditions: [{ type: 'Ready', status: 'False', reason: 'Provisioning', message: 'Waiting for Galera' }] };
  const observed = (statusOf: (o: Obj) => Obj | undefined) => observeAll(first.children, {}, statusOf);
  const message = async (children: Obj, rel: Obj[] = []) => (await sync(children, rel)).status.conditions[0];
  t.match(await message(observed((o) => (o['kind'] === 'MariaDB' ? notReady : undefined))), {
    status: 'False',
    message: 'MariaDB ironic-db-database is not ready yet: Waiting for Galera',
  });
  t.match(await message(observed((o) => (o['kind'] === 'MariaDB' ? mariadbOperatorReady() : undefined))), {
    status: 'False',
    message: 'Database ironic-db-database is not ready yet',
  });
  const allReady = observed((o) => (String(o['apiVersion']).startsWith('k8s.mariadb.com/') ? mariadbOperatorReady() : undefined));
  t.match(await message(allReady), {
    status: 'False',
    message: 'waiting for mariadb-operator to create Service ironic-db-database-primary of the Galera primary',
  });
  t.match(await message(allReady, [primaryService()]), { status: 'True' });
  const again = await sync(allReady, [primaryService()]);
  t.same(
    again.children.find((c) => c['kind'] === 'Secret')?.['data'],
    first.children.find((c) => c['kind'] === 'Secret')?.['data'],
    'the generated password is kept',
  );
});

t.test('engine MariaDBOperator with a TLS Secret without ca.crt is refused: mariadb-operator needs the CA', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  const tls = secret('db-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem });
  const r = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/sync',
      payload: { parent: ironicDatabase({ engine: 'MariaDBOperator', tlsCertificateName: 'db-tls' }), children: {}, related: related(tls) },
    }),
  );
  t.match(r.status.conditions[0], { status: 'False', reason: 'InvalidReference', message: /^spec\.tlsCertificateName: Secret db-tls has no ca\.crt/ });
  t.same(r.children, []);
  const ok = syncBody(
    await app.inject({
      method: 'POST',
      url: '/ironicdatabase/sync',
      payload: { parent: ironicDatabase({ engine: 'MariaDBOperator', tlsCertificateName: 'db-tls' }), children: {}, related: related(GALERA_DB_TLS) },
    }),
  );
  t.match(ok.status, { tlsCertificateName: 'db-tls', tlsCAKey: 'ca.crt', host: 'ironic-db-database-primary.metal3.svc' });
});

t.test('engine MariaDBOperator with a certificate not for the names mariadb-operator checks is refused, naming them', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  const sync = async (replicas: number, tls: Obj) =>
    syncBody(
      await app.inject({
        method: 'POST',
        url: '/ironicdatabase/sync',
        payload: { parent: ironicDatabase({ engine: 'MariaDBOperator', tlsCertificateName: 'db-tls', replicas }), children: {}, related: related(tls) },
      }),
    );
  // A certificate for the Service Ironic uses (ironic.metal3.svc) only.
  const wrong = await sync(3, DB_TLS);
  t.match(wrong.status.conditions[0], {
    status: 'False',
    reason: 'InvalidReference',
    message:
      /^spec\.tlsCertificateName: the certificate in Secret db-tls is not for ironic-db-database-primary\.metal3\.svc\.cluster\.local, ironic-db-database-0\.ironic-db-database-internal\.metal3\.svc\.cluster\.local, ironic-db-database-1\.[^,]*, ironic-db-database-2\.[^,]*, which mariadb-operator connects to .*\*\.ironic-db-database-internal\.metal3\.svc\.<cluster domain>/,
  });
  t.same(wrong.children, [], 'nothing created');
  // The wildcard covers every node, however many.
  for (const replicas of [3, 5])
    t.equal((await sync(replicas, GALERA_DB_TLS)).status.conditions[0]?.['reason'] === 'InvalidReference', false, `${replicas} nodes`);
});

t.test('the switch from the metal3 mariadb-image: the data directory it wrote keeps working', async (t) => {
  // What the StatefulSet rendered before this change (the metal3 image) and what it renders now.
  const app = testServer();
  t.teardown(() => app.close());
  const r = syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase({}), children: {}, related: {} } }));
  const set = requireChild(r, 'StatefulSet');
  const pod = set.spec?.template.spec;
  const container = pod?.containers.find((c) => c.name === 'mariadb') ?? { name: 'missing' };
  t.equal(container.image, 'docker.io/library/mariadb:11.8', 'the official image, an LTS line pinned by tag');
  t.match(
    (container.volumeMounts ?? []).find((m) => m.name === 'data'),
    { mountPath: '/var/lib/mysql' },
    'the same data directory as the metal3 image (both images use /var/lib/mysql)',
  );
  t.same(
    (set.spec?.volumeClaimTemplates ?? []).map((c) => c.metadata?.name),
    ['data'],
    'the same claim template name, so the StatefulSet keeps its claim data-<name>-database-0',
  );
  t.match(
    container.securityContext,
    { runAsUser: 27, runAsGroup: 27, readOnlyRootFilesystem: true },
    "the metal3 image's mysql uid and gid (27), which own its files",
  );
  t.match(pod?.securityContext, { fsGroup: 27, fsGroupChangePolicy: 'OnRootMismatch' }, 'no recursive ownership change of an existing volume');
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
  t.same(
    Object.keys(env).filter((k) => !k.startsWith('MARIADB_')),
    [],
    'only the documented MARIADB_* variables of the official image (RESTART_CONTAINER_CERTIFICATE_UPDATED was metal3-only)',
  );
  t.equal(env['MARIADB_AUTO_UPGRADE'], '1', 'the existing data directory (it has a mysql directory, so init is skipped) is upgraded in place');
  t.equal(env['MARIADB_USER_FILE'], '/auth/mariadb/username', 'the user is read from the same credentials file; an existing user keeps its password');
  t.equal(env['MARIADB_ROOT_HOST'], 'localhost', 'root only on the socket');
  t.notOk('MARIADB_HOST' in env, "MARIADB_HOST was the metal3 image's account host; the official image calls it MARIADB_USER_HOST");
  t.equal(env['MARIADB_USER_HOST'], '%');
  t.match(
    (container.volumeMounts ?? []).find((m) => m.name === 'config'),
    { mountPath: '/etc/mysql/conf.d/ironic-database.cnf', readOnly: true },
    'the configuration is read from conf.d on every start, not written on the first',
  );
  t.match(
    (container.volumeMounts ?? []).find((m) => m.name === 'run'),
    { mountPath: '/run/mysqld' },
    'socket and pid file off the read-only root',
  );
  t.same(container.readinessProbe?.exec?.command, ['healthcheck.sh', '--connect', '--innodb_initialized']);
  const config = requireChild(r, 'ConfigMap');
  t.match(config.data?.['ironic-database.cnf'], /max_connections = 110\nmax_user_connections = 100\ncharacter_set_server = utf8mb3\n/);
});

t.test('priorityClassName reaches the database pods of either engine', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  for (const engine of ['Builtin', 'MariaDBOperator']) {
    const r = syncBody(
      await app.inject({
        method: 'POST',
        url: '/ironicdatabase/sync',
        payload: { parent: ironicDatabase({ engine, priorityClassName: 'db-critical' }), children: {}, related: {} },
      }),
    );
    const workload = present(r.children.find((c) => c['kind'] === 'StatefulSet' || c['kind'] === 'MariaDB'));
    const found = engine === 'Builtin' ? ofKind(workload, 'StatefulSet').spec?.template.spec?.priorityClassName : objAt(workload, 'spec')['priorityClassName'];
    t.equal(found, 'db-critical', engine);
  }
});

t.test('engine MariaDBOperator: one Galera node per Kubernetes node from the first sync, drained one at a time', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  for (const replicas of [3, 5]) {
    const r = syncBody(
      await app.inject({
        method: 'POST',
        url: '/ironicdatabase/sync',
        payload: { parent: ironicDatabase({ engine: 'MariaDBOperator', replicas }), children: {}, related: {} },
      }),
    );
    const mariadb = present(r.children.find((c) => c['kind'] === 'MariaDB'));
    const spec = objAt(mariadb, 'spec');
    // mariadb-operator's default is no anti-affinity, and its webhook refuses to change antiAffinityEnabled later.
    t.same(spec['affinity'], { antiAffinityEnabled: true }, `${replicas} replicas: required pod anti-affinity on the host name`);
    t.same(spec['podDisruptionBudget'], { maxUnavailable: 1 }, `${replicas} replicas: a drain keeps a majority`);
    t.doesNotThrow(() => validateK8s(mariadb), 'the fields are where the published MariaDB schema has them');
  }
});

t.test('engine MariaDBOperator with a name that is not a DNS label: the MariaDB gets one, and the host and customize follow its primary Service', async (t) => {
  const app = operatorApp();
  t.teardown(() => app.close());
  for (const name of ['db.v1', '1db']) {
    const parent = ironicDatabase(
      { engine: 'MariaDBOperator' },
      { metadata: { name, namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-000000000003', generation: 1 } },
    );
    const r = syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent, children: {}, related: {} } }));
    const mariadb = String(objAt(requireChild(r, 'MariaDB'), 'metadata')['name']);
    t.match(mariadb, /^[a-z]([-a-z0-9]*[a-z0-9])?$/, `${name}: MariaDB ${mariadb}, from which mariadb-operator names its Services`);
    t.equal(r.status['host'], `${mariadb}-primary.metal3.svc`, `${name}: the host is the Service mariadb-operator creates`);
    const rules = customizeIronicDatabase(customizeRequest({ parent })).relatedResources;
    t.ok(
      rules.some((rule) => rule.resource === 'services' && rule.names?.includes(`${mariadb}-primary`)),
      `${name}: customize asks for that Service`,
    );
  }
});
