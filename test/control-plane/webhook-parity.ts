/**
 * mariadb-operator's webhooks for real (run by real-cluster.test.ts): every Galera object the hooks render (MariaDB,
 * Database, User, Grant, the scheduled Backup to a bucket) and the Restore of a new cluster, created in a namespace
 * of their own, then changed as the day-2 rows change them. Each create and change goes to the real API server
 * (`dryRun=All`: the webhooks have no side effects) and to the stand-in's webhook (`mariadbOperatorDenial`), and the
 * table says what both must answer. Where they disagree, the real operator is right and the stand-in is wrong.
 */
import type { Test } from 'tap';
import { syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { mariadbOperatorDenial } from '../../src/cli/mariadb-operator.js';
import type { KubeResource } from '../../src/cli/objects.js';
import { ironicDatabase, mariadbOperatorReady, primaryService, WITH_MARIADB_OPERATOR } from '../fixtures/database-scenarios.js';
import { observeAll } from '../helpers/k8s.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { syncRequest, testConfig, testContext } from '../helpers/hooks.js';
import { isObj, valueAt, type Obj } from '../support/paths.js';
import type { RealCluster } from '../support/real-cluster.js';
import { text } from './parents.js';

const NAMESPACE = 'webhook-parity';
const API = 'k8s.mariadb.com/v1alpha1';
const S3 = { endpoint: 'minio.storage.svc:9000', bucket: 'metal3', prefix: 'ironic/', region: 'eu-1', credentialsSecretName: 's3', caSecretName: 's3-ca' };

const context = { ...testContext(), config: testConfig(WITH_MARIADB_OPERATOR).render };
const S3_SECRETS = [secret('s3', { 'access-key-id': 'AKIA0', 'secret-access-key': 'key' }), secret('s3-ca', { 'ca.crt': 'x' })];

const syncOf = (spec: Obj, children: Record<string, Record<string, Obj>> = {}): Obj[] =>
  syncIronicDatabase(
    syncRequest({ parent: ironicDatabase({ engine: 'MariaDBOperator', ...spec }), children, related: related(...S3_SECRETS, primaryService()) }),
    context,
  ).children.filter(isObj);

/** A child of the hooks moved to NAMESPACE, without its owner (the parent does not exist here). */
const moved = (child: Obj): Obj => {
  const { ownerReferences: _owners, namespace: _namespace, ...metadata } = isObj(child['metadata']) ? child['metadata'] : {};
  return { ...child, metadata: { ...metadata, namespace: NAMESPACE } };
};

/**
 * The mariadb-operator objects the hooks render for a Galera IronicDatabase: with a scheduled Backup to a bucket, and
 * (a second database, filled from a named file of a bucket) the Restore made once its cluster is Ready.
 */
const renderedObjects = (): Obj[] => {
  const withBackup = syncOf({ priorityClassName: 'ironic-db', backup: { schedule: '30 2 * * *', s3: S3 } });
  const restoring = { restoreFrom: { backup: 'backup.2026-01-01T02:30:00Z.sql.gz', s3: S3 } };
  const ready = observeAll(syncOf(restoring), {}, (o) => (String(o['apiVersion']).startsWith('k8s.mariadb.com/') ? mariadbOperatorReady() : undefined));
  const restore = syncOf(restoring, ready).filter((c) => c['kind'] === 'Restore');
  return [...withBackup, ...restore].filter((c) => c['apiVersion'] === API).map(moved);
};

type Spec = Record<string, unknown>;

/** One create or change, and whether mariadb-operator refuses it. */
type Case = {
  readonly name: string;
  readonly kind: string;
  /** A change of the stored object's spec; absent: the object is created (under another name). */
  readonly change?: (spec: Spec) => Spec;
  /** For a create: the spec of the created object, from the rendered one. */
  readonly create?: (spec: Spec) => Spec;
  readonly refused: boolean;
};

const without = (record: unknown, key: string): Spec => {
  const { [key]: _removed, ...rest } = isObj(record) ? record : {};
  return rest;
};

const s3Of = (spec: Spec): Spec => (isObj(valueAt(spec, 'storage', 's3')) ? (valueAt(spec, 'storage', 's3') as Spec) : {});
const withS3 = (spec: Spec, s3: Spec): Spec => ({ ...spec, storage: { ...(isObj(spec['storage']) ? spec['storage'] : {}), s3 } });

export const WEBHOOK_CASES: readonly Case[] = [
  { name: 'a Backup as the hooks render it', kind: 'Backup', create: (spec) => spec, refused: false },
  { name: 'a Backup with schedule @daily', kind: 'Backup', create: (spec) => ({ ...spec, schedule: { cron: '@daily' } }), refused: true },
  {
    name: "a Backup's schedule changed to five other fields",
    kind: 'Backup',
    change: (spec) => ({ ...spec, schedule: { cron: '0 4 * * *' } }),
    refused: false,
  },
  { name: "a Backup's schedule changed to @weekly", kind: 'Backup', change: (spec) => ({ ...spec, schedule: { cron: '@weekly' } }), refused: true },
  { name: "a Backup's priorityClassName changed", kind: 'Backup', change: (spec) => ({ ...spec, priorityClassName: 'other' }), refused: true },
  { name: "a Backup's priorityClassName removed", kind: 'Backup', change: (spec) => without(spec, 'priorityClassName'), refused: false },
  { name: "a Backup's s3.prefix removed", kind: 'Backup', change: (spec) => withS3(spec, without(s3Of(spec), 'prefix')), refused: true },
  { name: "a Backup's s3.region removed", kind: 'Backup', change: (spec) => withS3(spec, without(s3Of(spec), 'region')), refused: true },
  { name: "a Backup's s3.bucket changed", kind: 'Backup', change: (spec) => withS3(spec, { ...s3Of(spec), bucket: 'other' }), refused: true },
  { name: "a Backup's maxRetention changed", kind: 'Backup', change: (spec) => ({ ...spec, maxRetention: '48h' }), refused: true },
  { name: "a Backup's mariaDbRef changed", kind: 'Backup', change: (spec) => ({ ...spec, mariaDbRef: { name: 'other' } }), refused: true },
  { name: 'a MariaDB as the hooks render it', kind: 'MariaDB', create: (spec) => spec, refused: false },
  { name: "a MariaDB's priorityClassName changed", kind: 'MariaDB', change: (spec) => ({ ...spec, priorityClassName: 'other' }), refused: false },
  {
    name: "a MariaDB's storage grown",
    kind: 'MariaDB',
    change: (spec) => ({ ...spec, storage: { ...(isObj(spec['storage']) ? spec['storage'] : {}), size: '50Gi', volumeClaimTemplate: undefined } }),
    refused: false,
  },
  {
    name: "a MariaDB's storage shrunk",
    kind: 'MariaDB',
    change: (spec) => ({ ...spec, storage: { ...(isObj(spec['storage']) ? spec['storage'] : {}), size: '1Mi', volumeClaimTemplate: undefined } }),
    refused: true,
  },
  {
    name: "a MariaDB's storageClassName changed",
    kind: 'MariaDB',
    change: (spec) => ({ ...spec, storage: { ...(isObj(spec['storage']) ? spec['storage'] : {}), storageClassName: 'other' } }),
    refused: true,
  },
  {
    name: 'a Galera MariaDB on ephemeral storage',
    kind: 'MariaDB',
    create: (spec) => ({ ...spec, storage: { ephemeral: true } }),
    refused: true,
  },
  { name: 'a User as the hooks render it', kind: 'User', create: (spec) => spec, refused: false },
  { name: "a User's name changed", kind: 'User', change: (spec) => ({ ...spec, name: 'other' }), refused: true },
  { name: "a User's host changed", kind: 'User', change: (spec) => ({ ...spec, host: 'localhost' }), refused: true },
  {
    name: "a User's password Secret changed",
    kind: 'User',
    change: (spec) => ({ ...spec, passwordSecretKeyRef: { name: 'other', key: 'password' } }),
    refused: false,
  },
  {
    name: 'a User with a password and a password hash',
    kind: 'User',
    create: (spec) => ({ ...spec, passwordHashSecretKeyRef: { name: 'hash', key: 'hash' } }),
    refused: true,
  },
  { name: 'a Grant as the hooks render it', kind: 'Grant', create: (spec) => spec, refused: false },
  { name: "a Grant's username changed", kind: 'Grant', change: (spec) => ({ ...spec, username: 'other' }), refused: true },
  { name: "a Grant's privileges changed", kind: 'Grant', change: (spec) => ({ ...spec, privileges: ['SELECT'] }), refused: false },
  { name: 'a Database as the hooks render it', kind: 'Database', create: (spec) => spec, refused: false },
  { name: "a Database's name changed", kind: 'Database', change: (spec) => ({ ...spec, name: 'other' }), refused: true },
  { name: "a Database's characterSet changed", kind: 'Database', change: (spec) => ({ ...spec, characterSet: 'latin1' }), refused: true },
  { name: 'a Restore as the hooks render it', kind: 'Restore', create: (spec) => spec, refused: false },
  {
    name: "a Restore's targetRecoveryTime changed",
    kind: 'Restore',
    change: (spec) => ({ ...spec, targetRecoveryTime: '2026-02-01T00:00:00Z' }),
    refused: true,
  },
  {
    name: "a Restore's s3 bucket changed",
    kind: 'Restore',
    change: (spec) => ({ ...spec, s3: { ...(isObj(spec['s3']) ? spec['s3'] : {}), bucket: 'other' } }),
    refused: true,
  },
];

/** JSON without undefined members (a spread that unsets a field). */
const plain = (value: Obj): Obj => JSON.parse(JSON.stringify(value)) as Obj;

const pathOf = (object: Obj): string => `/apis/${API}/namespaces/${NAMESPACE}/${String(object['kind']).toLowerCase()}s`;

/** The real answer: '' when admitted, the message of a refusal (one that is not the webhook's says so). */
const webhookRefusal = (answer: { readonly status: number; readonly body: unknown }): string => {
  if (answer.status < 400) return '';
  const message = text(valueAt(answer.body, 'message'));
  return message.includes('admission webhook') ? message : `(not a webhook: ${answer.status} ${message})`;
};

const verdictOf = (refusal: string): string => (refusal === '' ? 'admitted' : refusal.startsWith('(not a webhook') ? 'other' : 'refused');

/** What the real server and the stand-in answer to one case. */
const verdicts = async (cluster: RealCluster, stored: Obj, item: Case): Promise<{ real: string; standIn: string; status: number }> => {
  const spec = isObj(stored['spec']) ? stored['spec'] : {};
  if (item.create !== undefined) {
    const {
      resourceVersion: _rv,
      uid: _uid,
      creationTimestamp: _created,
      generation: _generation,
      managedFields: _managed,
      ...metadata
    } = isObj(stored['metadata']) ? stored['metadata'] : {};
    const created = plain({
      apiVersion: API,
      kind: item.kind,
      metadata: { ...metadata, name: `parity-${item.kind.toLowerCase()}-new` },
      spec: item.create(spec),
    });
    const answer = await cluster.api.request('POST', `${pathOf(created)}?dryRun=All`, created);
    return { real: webhookRefusal(answer), standIn: mariadbOperatorDenial(undefined, created as KubeResource) ?? '', status: answer.status };
  }
  const changed = plain({ ...stored, spec: (item.change ?? ((s: Spec) => s))(spec) });
  const answer = await cluster.api.request('PUT', `${pathOf(changed)}/${text(valueAt(changed, 'metadata', 'name'))}?dryRun=All`, changed);
  return { real: webhookRefusal(answer), standIn: mariadbOperatorDenial(stored as KubeResource, changed as KubeResource) ?? '', status: answer.status };
};

/** Creates the objects the changes start from, for real. */
const createStored = async (cluster: RealCluster): Promise<Map<string, Obj>> => {
  await cluster.api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const objects = renderedObjects();
  const created = new Map<string, Obj>();
  for (const object of objects) {
    const answer = await cluster.api.request('POST', pathOf(object), object);
    if (answer.status !== 201 || !isObj(answer.body)) throw new Error(`create ${String(object['kind'])}: ${answer.status} ${JSON.stringify(answer.body)}`);
    created.set(String(object['kind']), answer.body);
  }
  return created;
};

/** The stored object now (the controller writes into some specs, and a stale resourceVersion is a conflict). */
const current = async (cluster: RealCluster, stored: Obj): Promise<Obj> => {
  const answer = await cluster.api.request('GET', `${pathOf(stored)}/${text(valueAt(stored, 'metadata', 'name'))}`);
  if (!isObj(answer.body)) throw new Error(`GET ${String(stored['kind'])}: ${answer.status}`);
  return answer.body;
};

export const webhookParityOnRealServer = async (t: Test, cluster: RealCluster): Promise<void> => {
  const stored = await createStored(cluster);
  t.same([...stored.keys()].sort(), ['Backup', 'Database', 'Grant', 'MariaDB', 'Restore', 'User'], 'every kind the hooks render is created');
  for (const item of WEBHOOK_CASES) {
    const base = stored.get(item.kind);
    if (base === undefined) throw new Error(`no stored ${item.kind}`);
    let answer = await verdicts(cluster, await current(cluster, base), item);
    if (answer.status === 409) answer = await verdicts(cluster, await current(cluster, base), item);
    const diag = { real: answer.real, standIn: answer.standIn, status: answer.status };
    const expected = item.refused ? 'refused' : 'admitted';
    t.equal(verdictOf(answer.real), expected, `${item.name}: ${expected} by the real webhook`, diag);
    t.equal(verdictOf(answer.standIn), expected, `${item.name}: ${expected} by the stand-in`, diag);
  }
};
