/**
 * The IronicDatabase plan as tables: what a sync and a finalize decide from the observed objects and the
 * spec alone (what to render or keep, with which credentials and certificate, how ready it is, who uses
 * it), with no HTTP and no hook.
 */
import { present } from '../support/paths.js';
import t from 'tap';
import type { ObjectMap } from '../../src/api/shared/hook.js';
import { DATABASE_USED_BY } from '../../src/api/ironic-database/schema.js';
import type { KubeChild } from '../../src/render/child.js';
import type { RenderConfig } from '../../src/render/config.js';
import { databaseNames } from '../../src/render/names.js';
import type { ParentView } from '../../src/render/parent.js';
import {
  finalizeDatabase,
  finishDatabase,
  needsPassword,
  observedEngine,
  prepareDatabase,
  wantedDatabaseChildren,
  type PreparedDatabase,
} from '../../src/render/database/plan.js';
import { usersOf } from '../../src/render/used-by.js';
import { parseIronicDatabase } from '../../src/api/ironic-database/parse.js';
import { FIXED_NOW, ironic, testConfig, type Obj } from '../helpers/hooks.js';
import { observeAll } from '../helpers/k8s.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { valueAt } from '../support/paths.js';
import { DB_TLS, mariadbOperatorReady, primaryService, readyStatefulSet, WITH_MARIADB_OPERATOR } from '../fixtures/database-scenarios.js';
import { TEST_LEAF } from '../fixtures/tls.js';

type Objects = Record<string, Record<string, Obj>>;

const NS = 'metal3';
const NAMES = databaseNames('ironic-db');
const PASSWORD = 'generated_password-1';
const BUILTIN = testConfig().render;
const OPERATOR = testConfig(WITH_MARIADB_OPERATOR).render;

const view = (spec: unknown, extra: { children?: Objects; related?: Objects; status?: unknown; finalizers?: string[] } = {}): ParentView => ({
  name: 'ironic-db',
  namespace: NS,
  uid: 'database-uid',
  finalizers: extra.finalizers ?? [],
  generation: 2,
  spec,
  status: extra.status,
  children: (extra.children ?? {}) as ObjectMap,
  related: (extra.related ?? {}) as ObjectMap,
  now: FIXED_NOW,
});

const sync = (v: ParentView, config: RenderConfig = BUILTIN): ReturnType<typeof finishDatabase> => finishDatabase(v, prepareDatabase(v), PASSWORD, config);

/** What Metacontroller observes once the children of a sync are applied: StatefulSets ready, Services with a cluster IP. */
const observed = (children: readonly KubeChild[]): Objects => observeAll(children, {}, (o) => (o['kind'] === 'StatefulSet' ? readyStatefulSet(o) : undefined));

/** The observed children of a first sync of `spec` (as ready as Kubernetes alone makes them). */
const synced = (spec: unknown, config: RenderConfig = BUILTIN): Objects => observed(sync(view(spec), config).children);

/** The observed mariadb-operator objects, each with the status mariadb-operator reports. */
const operatorReady = (children: Objects): Objects =>
  Object.fromEntries(
    Object.entries(children).map(([group, objects]) => [
      group,
      group.endsWith('k8s.mariadb.com/v1alpha1')
        ? Object.fromEntries(Object.entries(objects).map(([key, o]) => [key, { ...o, status: mariadbOperatorReady() }]))
        : objects,
    ]),
  );

const statefulSet: Obj = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: NAMES.statefulSet, namespace: NS } };
const mariadb: Obj = { apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', metadata: { name: NAMES.mariadb, namespace: NS } };
const galeraStorage = (storage: Obj): Obj => ({ ...mariadb, spec: { storage } });
const generatedSecret = (data: Record<string, string>): Obj => secret(NAMES.credentials, data);
const asChildren = (...objects: Obj[]): Objects => related(...objects);

const kindsOf = (children: readonly KubeChild[]): string[] => children.map((c) => c.kind);
const conditionOf = (status: { conditions?: readonly { type: string }[] }, type: string): Obj | undefined => status.conditions?.find((c) => c.type === type);

t.test('prepare: what a sync may render, with which credentials and certificate, or why it keeps every observed child', async (t) => {
  const cases: readonly {
    scenario: string;
    v: ParentView;
    keep?: { kind: string; message: RegExp };
    credentials?: Obj;
    caKey?: 'ca.crt' | 'tls.crt';
  }[] = [
    { scenario: 'an empty spec: credentials to be generated', v: view({}), credentials: { generate: NAMES.credentials } },
    {
      scenario: 'the generated Secret already observed is reused',
      v: view({}, { children: asChildren(generatedSecret({ username: 'ironic', password: 'kept' })) }),
      credentials: { secretName: NAMES.credentials, username: 'ironic', password: 'kept', generated: true },
    },
    {
      scenario: 'an observed generated Secret without a password is generated again',
      v: view({}, { children: asChildren(generatedSecret({ username: 'ironic' })) }),
      credentials: { generate: NAMES.credentials },
    },
    {
      scenario: "the user's credentials Secret",
      v: view({ credentialsName: 'db-creds' }, { related: related(secret('db-creds', { username: 'metal3', password: 'Very_Secret-1' })) }),
      credentials: { secretName: 'db-creds', username: 'metal3', password: 'Very_Secret-1', generated: false },
    },
    {
      scenario: 'a missing credentials Secret',
      v: view({ credentialsName: 'db-creds' }),
      keep: { kind: 'missingReference', message: /spec\.credentialsName/ },
    },
    {
      scenario: 'a password the image cannot take',
      v: view({ credentialsName: 'db-creds' }, { related: related(secret('db-creds', { username: 'metal3', password: "it's" })) }),
      keep: { kind: 'invalidReference', message: /letters, digits, '-' and '_'/ },
    },
    {
      scenario: 'TLS with a CA: clients trust ca.crt',
      v: view({ tlsCertificateName: 'db-tls' }, { related: related(DB_TLS) }),
      credentials: { generate: NAMES.credentials },
      caKey: 'ca.crt',
    },
    {
      scenario: 'TLS without a CA: clients trust tls.crt',
      v: view({ tlsCertificateName: 'db-tls' }, { related: related(secret('db-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem })) }),
      credentials: { generate: NAMES.credentials },
      caKey: 'tls.crt',
    },
    { scenario: 'a missing TLS Secret', v: view({ tlsCertificateName: 'db-tls' }), keep: { kind: 'missingReference', message: /spec\.tlsCertificateName/ } },
    { scenario: 'an invalid spec', v: view({ storage: { size: 'lots' } }), keep: { kind: 'invalidSpec', message: /spec\.storage\.size/ } },
    {
      scenario: 'the engine of the observed children cannot change',
      v: view({ engine: 'MariaDBOperator' }, { children: asChildren(statefulSet) }),
      keep: { kind: 'invalidSpec', message: /engine cannot be changed.*\(Builtin\)/ },
    },
    {
      scenario: "a Galera database's volumes never shrink: the larger of the MariaDB's size and the claim template mariadb-operator wrote",
      v: view(
        { engine: 'MariaDBOperator', storage: { size: '15Gi' } },
        { children: asChildren(galeraStorage({ size: '10Gi', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } })) },
      ),
      keep: {
        kind: 'invalidSpec',
        message: /^the spec is invalid: spec\.storage\.size: storage\.size cannot decrease with engine MariaDBOperator: .*\(its volumes have 20Gi\)$/,
      },
    },
    {
      scenario: "a Galera database's storage class never changes",
      v: view({ engine: 'MariaDBOperator', storage: { size: '10Gi' } }, { children: asChildren(galeraStorage({ size: '10Gi', storageClassName: 'slow' })) }),
      keep: {
        kind: 'invalidSpec',
        message:
          /^the spec is invalid: spec\.storage\.storageClassName: storage\.storageClassName cannot be changed once the database exists \(its volumes use class slow\)$/,
      },
    },
    {
      scenario: 'a Galera database grows',
      v: view(
        { engine: 'MariaDBOperator', storage: { size: '30Gi', storageClassName: 'slow' } },
        {
          children: asChildren(
            galeraStorage({ size: '10Gi', storageClassName: 'slow', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } }),
          ),
        },
      ),
      credentials: { generate: NAMES.credentials },
    },
    {
      scenario: 'a Secret in the way of the generated credentials',
      v: view({}, { related: related(generatedSecret({ username: 'someone', password: 'else' })) }),
      keep: { kind: 'conflict', message: new RegExp(`set spec\\.credentialsName to ${NAMES.credentials} to use it`) },
    },
    {
      scenario: 'a StatefulSet in the way',
      v: view({ credentialsName: 'db-creds' }, { related: related(statefulSet) }),
      keep: { kind: 'conflict', message: /StatefulSet metal3\/ironic-db-database already exists and does not belong to this IronicDatabase: delete it/ },
    },
  ];
  for (const c of cases) {
    const prepared: PreparedDatabase = prepareDatabase(c.v);
    if (c.keep !== undefined) {
      t.match(prepared, { kind: 'keep', outcome: { kind: c.keep.kind, message: c.keep.message } }, c.scenario);
      t.notOk(needsPassword(prepared), `${c.scenario}: no password generated`);
      continue;
    }
    t.equal(prepared.kind, 'render', c.scenario);
    if (prepared.kind !== 'render') continue;
    t.same(prepared.credentials, c.credentials, `${c.scenario}: credentials`);
    t.equal(needsPassword(prepared), 'generate' in prepared.credentials, `${c.scenario}: a password only when one must be generated`);
    t.equal(prepared.tls?.caKey, c.caKey, `${c.scenario}: the CA key`);
  }
});

t.test('the children with fixed names each spec creates (what customize asks for, to find objects in the way)', async (t) => {
  const secretOf = { group: 'Secret.v1', name: NAMES.credentials };
  const builtin = [
    { group: 'ConfigMap.v1', name: NAMES.config },
    { group: 'StatefulSet.apps/v1', name: NAMES.statefulSet },
    { group: 'Service.v1', name: NAMES.service },
  ];
  const cases = [
    { scenario: 'Builtin, generated credentials', spec: {}, wanted: [secretOf, ...builtin] },
    { scenario: "Builtin, the user's credentials", spec: { credentialsName: 'db-creds' }, wanted: builtin },
    { scenario: 'MariaDBOperator, generated credentials (its own objects are not asked for)', spec: { engine: 'MariaDBOperator' }, wanted: [secretOf] },
    { scenario: "MariaDBOperator, the user's credentials", spec: { engine: 'MariaDBOperator', credentialsName: 'db-creds' }, wanted: [] },
  ] as const;
  for (const c of cases) {
    const parsed = parseIronicDatabase(c.spec);
    if (!parsed.ok) {
      t.fail(`${c.scenario}: the spec parses`);
      continue;
    }
    t.same(wantedDatabaseChildren(parsed.model, NAMES), c.wanted, c.scenario);
  }
});

t.test('the engine of the observed children', async (t) => {
  const cases = [
    { scenario: 'nothing observed', children: {}, engine: undefined },
    { scenario: 'a StatefulSet', children: asChildren(statefulSet), engine: 'Builtin' },
    { scenario: 'a MariaDB', children: asChildren(mariadb), engine: 'MariaDBOperator' },
  ] as const;
  for (const c of cases) t.equal(observedEngine(view({}, { children: c.children })), c.engine, c.scenario);
});

t.test('sync: the Ready condition, the connection facts and the children, by engine and observed state', async (t) => {
  const builtinChildren = synced({});
  const galera = { engine: 'MariaDBOperator' };
  const operatorChildren = synced(galera, OPERATOR);
  const notReadySet = {
    ...builtinChildren,
    'StatefulSet.apps/v1': Object.fromEntries(
      Object.entries(builtinChildren['StatefulSet.apps/v1'] ?? {}).map(([key, set]) => [
        key,
        { ...set, status: { ...(set['status'] as Obj), readyReplicas: 0 } },
      ]),
    ),
  };
  const withSpecOf = (children: Objects, group: string, spec: Obj): Objects => ({
    ...children,
    [group]: Object.fromEntries(Object.entries(children[group] ?? {}).map(([key, o]) => [key, { ...o, spec: { ...(o['spec'] as Obj), ...spec } }])),
  });
  const observedMariaDB = operatorChildren['MariaDB.k8s.mariadb.com/v1alpha1']?.[`${NS}/${NAMES.mariadb}`] ?? mariadb;
  const lagging = {
    ...operatorReady(operatorChildren),
    'MariaDB.k8s.mariadb.com/v1alpha1': {
      [`${NS}/${NAMES.mariadb}`]: { ...observedMariaDB, status: { conditions: [{ type: 'Ready', status: 'False', message: 'Galera bootstrapping' }] } },
    },
  };
  const cases: readonly {
    scenario: string;
    v: ParentView;
    config?: RenderConfig;
    status: 'True' | 'False';
    reason: string;
    message: RegExp;
    kinds: string[];
    host?: string;
  }[] = [
    {
      scenario: 'Builtin, nothing observed yet',
      v: view({}),
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /stateful set is being created/,
      kinds: ['Secret', 'ConfigMap', 'StatefulSet', 'Service'],
      host: 'ironic-db-database.metal3.svc',
    },
    {
      scenario: 'Builtin, its pod not ready yet',
      v: view({}, { children: notReadySet }),
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /stateful set ironic-db-database is not ready yet/,
      kinds: ['Secret', 'ConfigMap', 'StatefulSet', 'Service'],
    },
    {
      scenario: 'Builtin, ready',
      v: view({}, { children: builtinChildren }),
      status: 'True',
      reason: 'DatabaseAvailable',
      message: /^the database is available: all resources are available$/,
      kinds: ['Secret', 'ConfigMap', 'StatefulSet', 'Service'],
      host: 'ironic-db-database.metal3.svc',
    },
    // Kept children come back in the order of their group keys.
    {
      scenario: 'an invalid spec keeps the observed children',
      v: view({ storage: { size: 'lots' } }, { children: builtinChildren }),
      status: 'False',
      reason: 'InvalidSpec',
      message: /spec\.storage\.size/,
      kinds: ['ConfigMap', 'Secret', 'Service', 'StatefulSet'],
    },
    {
      scenario: 'MariaDBOperator without the mariadb-operator overlay: refused, nothing created',
      v: view(galera),
      status: 'False',
      reason: 'InvalidSpec',
      message: /MARIADB_OPERATOR=true/,
      kinds: [],
    },
    {
      scenario: 'MariaDBOperator with a certificate without ca.crt: refused',
      v: view(
        { ...galera, tlsCertificateName: 'db-tls' },
        { related: related(secret('db-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem })) },
      ),
      config: OPERATOR,
      status: 'False',
      reason: 'InvalidReference',
      message: /has no ca\.crt, which mariadb-operator needs/,
      kinds: [],
    },
    {
      scenario: 'MariaDBOperator, nothing observed yet',
      v: view(galera),
      config: OPERATOR,
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /^MariaDB ironic-db-database is being created$/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
      host: 'ironic-db-database-primary.metal3.svc',
    },
    {
      scenario: 'MariaDBOperator, a node not ready yet',
      v: view(galera, { children: lagging }),
      config: OPERATOR,
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /^MariaDB ironic-db-database is not ready yet: Galera bootstrapping$/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
    },
    {
      scenario: 'MariaDBOperator, ready but no primary Service yet',
      v: view(galera, { children: operatorReady(operatorChildren) }),
      config: OPERATOR,
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /waiting for mariadb-operator to create Service ironic-db-database-primary/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
    },
    {
      scenario: 'MariaDBOperator, Ready but a change not applied yet (or refused): not ready',
      v: view({ ...galera, replicas: 5 }, { children: operatorReady(operatorChildren), related: related(primaryService()) }),
      config: OPERATOR,
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /^MariaDB ironic-db-database does not have the asked spec yet: spec\.replicas is 3, not 5$/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
    },
    {
      scenario: 'MariaDBOperator, a field of a User otherwise than asked: not ready',
      v: view(galera, {
        children: withSpecOf(operatorReady(operatorChildren), 'User.k8s.mariadb.com/v1alpha1', { maxUserConnections: 10 }),
        related: related(primaryService()),
      }),
      config: OPERATOR,
      status: 'False',
      reason: 'DatabaseInProgress',
      message: /^User ironic-db-database does not have the asked spec yet: spec\.maxUserConnections is 10, not 100$/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
    },
    {
      scenario: 'MariaDBOperator, fields others added (mariadb-operator writes defaults into the spec): ready',
      v: view(galera, {
        children: withSpecOf(operatorReady(operatorChildren), 'MariaDB.k8s.mariadb.com/v1alpha1', {
          storage: { size: '10Gi', pvcRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' }, volumeClaimTemplate: {} },
          serviceAccountName: 'x',
        }),
        related: related(primaryService()),
      }),
      config: OPERATOR,
      status: 'True',
      reason: 'DatabaseAvailable',
      message: /the Galera cluster, its database, user and grant are ready/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
    },
    {
      scenario: 'MariaDBOperator, ready with its primary Service',
      v: view(galera, { children: operatorReady(operatorChildren), related: related(primaryService()) }),
      config: OPERATOR,
      status: 'True',
      reason: 'DatabaseAvailable',
      message: /the Galera cluster, its database, user and grant are ready/,
      kinds: ['Secret', 'Secret', 'MariaDB', 'Database', 'User', 'Grant'],
      host: 'ironic-db-database-primary.metal3.svc',
    },
  ];
  for (const c of cases) {
    const result = sync(c.v, c.config);
    t.match(result.status.conditions?.[0], { type: 'Ready', status: c.status, reason: c.reason, message: c.message }, c.scenario);
    t.same(kindsOf(result.children), c.kinds, `${c.scenario}: children`);
    if (c.host !== undefined) t.equal(result.status.host, c.host, `${c.scenario}: host`);
    t.equal(result.resyncAfterSeconds, undefined, `${c.scenario}: no resync of its own`);
    t.equal(result.finalized, undefined, `${c.scenario}: a sync never finalizes`);
  }
});

t.test('the password: only a Secret to be generated takes it, with the generated username', async (t) => {
  const credentialsOf = (v: ParentView): Obj | undefined => sync(v).children.find((c) => c.kind === 'Secret');
  const decoded = (s: Obj | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries((s?.['data'] ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  const cases = [
    { scenario: 'none observed: generated from the password given', v: view({}), data: { username: 'ironic', password: PASSWORD } },
    {
      scenario: 'observed: kept as it is',
      v: view({}, { children: asChildren(generatedSecret({ username: 'ironic', password: 'kept' })) }),
      data: { username: 'ironic', password: 'kept' },
    },
    {
      scenario: "the user's: not a child",
      v: view({ credentialsName: 'db-creds' }, { related: related(secret('db-creds', { username: 'metal3', password: 'Very_Secret-1' })) }),
      data: {},
    },
  ];
  for (const c of cases) t.same(decoded(credentialsOf(c.v)), c.data, c.scenario);
});

t.test('the claim template of the observed StatefulSet is kept, and a different size is a pending resize', async (t) => {
  const children = synced({ storage: { size: '10Gi' } });
  const templatesOf = (v: ParentView): unknown =>
    (sync(v).children.find((c) => c.kind === 'StatefulSet') as unknown as { spec: { volumeClaimTemplates?: unknown } }).spec.volumeClaimTemplates;
  const observedTemplates = (present(Object.values(children['StatefulSet.apps/v1'] ?? {})[0])['spec'] as Obj)['volumeClaimTemplates'];
  const cases = [
    { scenario: 'the same size', spec: { storage: { size: '10Gi' } }, resize: undefined },
    { scenario: 'the same size, written otherwise', spec: { storage: { size: '10240Mi' } }, resize: undefined },
    {
      scenario: 'a bigger size: the claim must be expanded by hand',
      spec: { storage: { size: '20Gi' } },
      resize: /storage\.size is 20Gi but the data volume was created with 10Gi.*expand the claim data-ironic-db-database-0/,
    },
    { scenario: 'turned ephemeral: the data stays on its claim', spec: { storage: { size: '10Gi', ephemeral: true } }, resize: undefined },
  ];
  for (const c of cases) {
    const v = view(c.spec, { children });
    t.same(templatesOf(v), observedTemplates, `${c.scenario}: the template as observed`);
    const resize = conditionOf(sync(v).status, 'StorageResizePending');
    if (c.resize === undefined) t.equal(resize, undefined, `${c.scenario}: no resize pending`);
    else t.match(resize, { status: 'True', reason: 'ManualExpansionRequired', message: c.resize }, c.scenario);
  }
});

t.test('the users of a database: Ironics of its namespace that name it in spec.databaseName', async (t) => {
  const using = (name: string, database = 'ironic-db', namespace = NS): Obj => ironic({ databaseName: database }, { metadata: { name, namespace } });
  const cases = [
    { scenario: 'none', related: {}, users: [] },
    { scenario: 'sorted', related: related(using('b'), using('a')), users: ['a', 'b'] },
    { scenario: 'another database', related: related(using('a'), using('c', 'other-db')), users: ['a'] },
    { scenario: 'another namespace', related: related(using('a'), using('far', 'ironic-db', 'other')), users: ['a'] },
    {
      scenario: 'an image cache of that name is not a database',
      related: related(ironic({ imageCacheName: 'ironic-db' }, { metadata: { name: 'cache-user', namespace: NS } })),
      users: [],
    },
  ];
  for (const c of cases) {
    t.same(usersOf(DATABASE_USED_BY, { related: c.related as ObjectMap, namespace: NS, name: 'ironic-db' }), c.users, c.scenario);
    t.same(sync(view({}, { related: c.related })).status.usedBy, c.users.length > 0 ? c.users : undefined, `${c.scenario}: status.usedBy`);
  }
});

t.test('finalize: blocked while used (unless foreground), then deleting, then finalized', async (t) => {
  const children = synced({});
  const users = related(ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: NS } }));
  const cases: readonly {
    scenario: string;
    v: ParentView;
    children: number;
    resync?: number;
    finalized?: boolean;
    reason: string;
    message?: RegExp;
    usedBy?: string[];
  }[] = [
    { scenario: 'in use: kept running', v: view({}, { children, related: users }), children: 4, resync: 30, reason: 'DatabaseAvailable', usedBy: ['user'] },
    {
      scenario: 'in use, invalid spec: still kept',
      v: view({ storage: { size: 'x' } }, { children, related: users }),
      children: 4,
      resync: 30,
      reason: 'InvalidSpec',
      usedBy: ['user'],
    },
    {
      scenario: 'in use, foreground deletion: the garbage collector goes ahead, and the message says so',
      v: view({}, { children, related: users, finalizers: ['foregroundDeletion'] }),
      children: 0,
      resync: 5,
      finalized: false,
      reason: 'Deleting',
      message:
        /^the database is being deleted although user still use it \(deleted with foreground propagation, which does not wait for them\): 4 resources remain$/,
      usedBy: ['user'],
    },
    {
      scenario: 'unused, children remain',
      v: view({}, { children }),
      children: 0,
      resync: 5,
      finalized: false,
      reason: 'Deleting',
      message: /^the database is being deleted: 4 resources remain$/,
    },
    { scenario: 'unused, nothing left', v: view({}), children: 0, finalized: true, reason: 'Deleting', message: /^the database has been removed$/ },
    {
      scenario: 'used under foreground deletion, nothing left',
      v: view({}, { related: users, finalizers: ['foregroundDeletion'] }),
      children: 0,
      finalized: true,
      reason: 'Deleting',
      message: /^the database has been removed although user still use it/,
      usedBy: ['user'],
    },
  ];
  for (const c of cases) {
    const result = finalizeDatabase(c.v, prepareDatabase(c.v), PASSWORD, BUILTIN);
    t.equal(result.children.length, c.children, `${c.scenario}: children`);
    t.equal(result.resyncAfterSeconds, c.resync, `${c.scenario}: resync`);
    t.equal(result.finalized, c.finalized, `${c.scenario}: finalized`);
    t.match(result.status.conditions?.[0], { reason: c.reason, ...(c.message && { message: c.message }) }, `${c.scenario}: Ready`);
    t.same(result.status.usedBy, c.usedBy, `${c.scenario}: usedBy`);
    const blocked = conditionOf(result.status, 'DeletionBlocked');
    if (c.resync === 30)
      t.match(
        blocked,
        { status: 'True', reason: 'InUse', message: 'deletion waits until no Ironic uses this database; still used by: user', lastTransitionTime: FIXED_NOW },
        `${c.scenario}: DeletionBlocked`,
      );
    else t.equal(blocked, undefined, `${c.scenario}: not blocked`);
  }
});

t.test('DeletionBlocked keeps the time it was first reported', async (t) => {
  const users = related(ironic({ databaseName: 'ironic-db' }, { metadata: { name: 'user', namespace: NS } }));
  const earlier = '2025-12-31T00:00:00Z';
  const cases = [
    {
      scenario: 'already blocked',
      previous: { conditions: [{ type: 'DeletionBlocked', status: 'True', reason: 'InUse', message: 'x', lastTransitionTime: earlier }] },
      time: earlier,
    },
    { scenario: 'blocked now', previous: { conditions: [] }, time: FIXED_NOW },
  ];
  for (const c of cases) {
    const v = view({}, { related: users, status: c.previous });
    t.equal(conditionOf(finalizeDatabase(v, prepareDatabase(v), PASSWORD, BUILTIN).status, 'DeletionBlocked')?.['lastTransitionTime'], c.time, c.scenario);
  }
});

t.test('another database user with mariadb-operator: a User and Grant of its own, then the previous user is dropped', async (t) => {
  const secrets = related(
    secret('alice', { username: 'alice', password: 'alice_pw' }),
    secret('bob', { username: 'bob', password: 'bob_pw' }),
    primaryService(),
  );
  const galera = (credentialsName: string): Obj => ({ engine: 'MariaDBOperator', credentialsName });
  const step = (credentialsName: string, children: Objects): { result: ReturnType<typeof sync>; next: Objects } => {
    const result = sync(view(galera(credentialsName), { children, related: secrets }), OPERATOR);
    // What Metacontroller observes once it applied them (the objects left out are gone), each Ready as mariadb-operator says.
    return { result, next: operatorReady(observeAll(result.children, children)) };
  };
  const users = (children: readonly KubeChild[]): string[] =>
    children
      .filter((c) => c.kind === 'User' || c.kind === 'Grant')
      .map(
        (c) =>
          `${c.kind} ${c.metadata.name} ${String((c['spec'] as Obj)['name'] ?? (c['spec'] as Obj)['username'])} ${String((c['spec'] as Obj)['cleanupPolicy'])}`,
      );
  const other = NAMES.otherUser('bob');
  t.match(other, /^ironic-db-database-[0-9a-f]{8}$/);

  const alice = step('alice', {}).next;
  const first = step('bob', alice);
  t.same(
    users(first.result.children),
    [`User ${other} bob Skip`, `Grant ${other} bob Skip`, `User ${NAMES.mariadb} alice Skip`, `Grant ${NAMES.mariadb} alice Skip`],
    "bob's objects under a name of his own; alice's kept as they are",
  );
  t.match(first.result.status, {
    credentialsName: 'bob',
    conditions: [{ status: 'False', message: `switching the database user from alice to bob: User ${other} is being created` }],
  });

  const second = step('bob', first.next);
  t.same(
    users(second.result.children),
    [`User ${other} bob Skip`, `Grant ${other} bob Skip`, `User ${NAMES.mariadb} alice Delete`, `Grant ${NAMES.mariadb} alice Skip`],
    'bob ready: alice is to be dropped',
  );
  t.match(second.result.status, { conditions: [{ status: 'False', message: 'the database user bob is ready; dropping the previous user alice' }] });

  const passwordOf = (children: readonly KubeChild[], name: string): unknown =>
    valueAt(
      children.find((c) => c.kind === 'User' && c.metadata.name === name),
      'spec',
      'passwordSecretKeyRef',
      'name',
    );
  const secretsOf = (children: readonly KubeChild[]): string[] => children.filter((c) => c.kind === 'Secret').map((c) => c.metadata.name);
  const [alicePassword, bobPassword] = [passwordOf(first.result.children, NAMES.mariadb), passwordOf(first.result.children, other)];
  t.same(secretsOf(first.result.children), [bobPassword, alicePassword], "alice's password Secret is kept with her User");
  t.same(secretsOf(second.result.children), [bobPassword, alicePassword], 'while she is being dropped');

  const third = step('bob', second.next);
  t.same(users(third.result.children), [`User ${other} bob Skip`, `Grant ${other} bob Skip`], "alice's objects are left out: deleted, and her account dropped");
  t.same(secretsOf(third.result.children), [bobPassword], 'her password Secret too');
  t.match(third.result.status, { conditions: [{ status: 'True' }] });
  t.same(step('bob', third.next).result.children, third.result.children, 'fed its own output, the sync returns the same');

  const back = step('alice', third.next);
  t.same(
    users(back.result.children),
    [`User ${NAMES.mariadb} alice Skip`, `Grant ${NAMES.mariadb} alice Skip`, `User ${other} bob Skip`, `Grant ${other} bob Skip`],
    "back to alice: the MariaDB's name is free again",
  );
});

t.test('a previous user is kept as it is while the database is refused, and a User being deleted holds its name', async (t) => {
  const secrets = related(secret('alice', { username: 'alice', password: 'alice_pw' }), secret('bob', { username: 'bob', password: 'bob_pw' }));
  const alice = operatorReady(observed(sync(view({ engine: 'MariaDBOperator', credentialsName: 'alice' }, { related: secrets }), OPERATOR).children));
  const refused = sync(view({ engine: 'MariaDBOperator', credentialsName: 'bob', replicas: 4 }, { children: alice, related: secrets }), OPERATOR);
  t.same(
    refused.children.filter((c) => c.kind === 'User').map((c) => (c['spec'] as Obj)['name']),
    ['alice'],
    'an invalid spec keeps the observed children',
  );
  const deleting = Object.fromEntries(
    Object.entries(alice).map(([g, objects]) => [
      g,
      Object.fromEntries(
        Object.entries(objects).map(([k, o]) => [
          k,
          g.startsWith('User.') ? { ...o, metadata: { ...(o['metadata'] as Obj), deletionTimestamp: FIXED_NOW } } : o,
        ]),
      ),
    ]),
  );
  const result = sync(view({ engine: 'MariaDBOperator', credentialsName: 'alice' }, { children: deleting, related: secrets }), OPERATOR);
  t.same(
    result.children.filter((c) => c.kind === 'User').map((c) => c.metadata.name),
    [NAMES.otherUser('alice')],
    'alice again, while her User is still being deleted: another name',
  );
});

t.test('with mariadb-operator the User reads its password from a Secret of ours named by it: a new password changes the User', async (t) => {
  const credentials = (password: string): Objects => related(secret('db-creds', { username: 'metal3', password }));
  const galera = { engine: 'MariaDBOperator', credentialsName: 'db-creds' };
  const first = sync(view(galera, { related: credentials('first_pw') }), OPERATOR);
  const password = present(first.children.find((c) => c.kind === 'Secret'));
  t.match(password, {
    metadata: { name: new RegExp(`^${NAMES.mariadb}-password-[0-9a-f]{10}$`), labels: { 'ironic.metal3.io/database': 'ironic-db' } },
    type: 'Opaque',
    immutable: true,
    data: { password: Buffer.from('first_pw').toString('base64') },
  });
  t.notMatch(password.metadata.name, /first_pw/);
  t.match(
    first.children.find((c) => c.kind === 'User'),
    { spec: { name: 'metal3', passwordSecretKeyRef: { name: password.metadata.name, key: 'password' } } },
  );
  t.equal(first.status.credentialsName, 'db-creds', 'Ironic still reads the credentials Secret');

  const rotated = sync(view(galera, { children: operatorReady(observed(first.children)), related: credentials('second_pw') }), OPERATOR);
  const renamed = present(rotated.children.find((c) => c.kind === 'Secret'));
  t.not(renamed.metadata.name, password.metadata.name, 'a new password is a new Secret');
  t.same(rotated.children.filter((c) => c.kind === 'Secret').length, 1, 'and the old one is left out (deleted)');
  t.match(
    rotated.children.find((c) => c.kind === 'User'),
    { metadata: { name: NAMES.mariadb }, spec: { passwordSecretKeyRef: { name: renamed.metadata.name } } },
    'the same User, changed',
  );
  t.match(rotated.status.conditions?.[0], {
    status: 'False',
    message:
      /^User ironic-db-database does not have the asked spec yet: spec\.passwordSecretKeyRef\.name is "ironic-db-database-password-[0-9a-f]{10}", not "ironic-db-database-password-[0-9a-f]{10}"$/,
  });

  const otherParent = present(
    sync({ ...view(galera, { related: credentials('first_pw') }), uid: 'another-uid' }, OPERATOR).children.find((c) => c.kind === 'Secret'),
  );
  t.not(otherParent.metadata.name, password.metadata.name, 'the hash is keyed with the parent uid');
});

t.test('a previous User that read the generated credentials Secret (as before the password Secret) keeps it, returned once', async (t) => {
  const galera = { engine: 'MariaDBOperator' };
  const first = observed(sync(view(galera), OPERATOR).children);
  // The User as an earlier version of the hooks rendered it; then someone renames the user in the generated Secret.
  const oldStyle = Object.fromEntries(
    Object.entries(first).map(([group, objects]) => [
      group,
      Object.fromEntries(
        Object.entries(objects).map(([key, o]) => [
          key,
          group.startsWith('User.') ? { ...o, spec: { ...(o['spec'] as Obj), passwordSecretKeyRef: { name: NAMES.credentials, key: 'password' } } } : o,
        ]),
      ),
    ]),
  );
  const renamed = {
    ...oldStyle,
    'Secret.v1': { ...oldStyle['Secret.v1'], [`${NS}/${NAMES.credentials}`]: generatedSecret({ username: 'other', password: PASSWORD }) },
  };
  const result = sync(view(galera, { children: operatorReady(renamed) }), OPERATOR);
  const names = result.children.map((c) => `${c.kind} ${c.metadata.name}`);
  t.same(
    names.filter((n) => n === `Secret ${NAMES.credentials}`),
    [`Secret ${NAMES.credentials}`],
    'once',
  );
  t.same(
    result.children.filter((c) => c.kind === 'User').map((c) => valueAt(c, 'spec', 'name')),
    ['other', 'ironic'],
    'the new user, and the previous one kept',
  );
});
