/**
 * The IronicDatabase hooks: a managed MariaDB with persistent storage, and a finalize hook that waits
 * while any Ironic in the namespace still names the database.
 */
import type { CustomizeRequest, CustomizeResponse, KubeObject, ObjectMap, SyncRequest, SyncResponse } from '../api/hook.js';
import { GROUP_KEYS } from '../api/hook.js';
import { GROUP_VERSION } from '../api/common.js';
import { withDatabaseDefaults } from '../api/defaults.js';
import type { IronicDatabaseSpec } from '../api/ironic-database.js';
import { validateIronicDatabase } from '../api/validate.js';
import { keepObservedChildren } from '../render/child.js';
import { dataOf, findObject, isRecord, objectsOf, pathOf, textOf } from '../render/observed.js';
import { databaseNames } from '../render/names.js';
import { combineReadiness, serviceReadiness, statefulSetReadiness } from '../render/status.js';
import { renderDatabaseChildren } from '../render/database/render.js';
import type { DatabaseCredentials, DatabaseTLS } from '../render/database/input.js';
import { computeDatabaseStatus, type DatabaseOutcome } from '../render/database/status.js';
import { dataKeys, objectContentHash } from '../render/ironic/references.js';
import type { HookContext } from './ironic.js';
import { describeProblems } from './problems.js';
import { countChildren, parentOf, type Parent } from './parent.js';
import { namesRule } from './related.js';


/** customize: the referenced Secrets by name, and the Ironic objects of the namespace (to know who uses us). */
export const customizeIronicDatabase = (request: CustomizeRequest): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const spec = isRecord(request.parent['spec']) ? request.parent['spec'] : {};
  return {
    relatedResources: [
      ...namesRule('v1', 'secrets', namespace, [textOf(spec['credentialsName']), textOf(spec['tlsCertificateName'])]),
      // Only this namespace: an Ironic can only name a database of its own namespace.
      { apiVersion: GROUP_VERSION, resource: 'ironics', namespace },
    ],
  };
};

/** Names of the Ironic objects of the namespace whose spec.databaseName is this database. */
export const usersOf = (related: ObjectMap | null | undefined, namespace: string, name: string): string[] =>
  objectsOf(related, GROUP_KEYS.ironic)
    .filter((o: KubeObject) => (o.metadata.namespace ?? namespace) === namespace && pathOf(o, 'spec', 'databaseName') === name)
    .map((o) => o.metadata.name)
    .sort();

const SAFE = /^[A-Za-z0-9_-]+$/;

type Resolved<T> = { ok: true; value: T } | { ok: false; kind: 'missingReference' | 'invalidReference'; message: string };

/**
 * The user's credentials Secret, or the generated one (reused from the observed child).
 * NOTE: MariaDB creates the user only on its first start, and the image puts the password into SQL
 * unescaped: only [A-Za-z0-9_-] is accepted.
 */
const resolveCredentials = (name: string, namespace: string, spec: IronicDatabaseSpec, request: SyncRequest, ctx: HookContext): Resolved<DatabaseCredentials> => {
  const given = spec.credentialsName;
  if (given !== undefined && given !== '') {
    const secret = findObject(request.related, GROUP_KEYS.secret, namespace, given);
    if (secret === undefined) return { ok: false, kind: 'missingReference', message: `Secret ${namespace}/${given} named in spec.credentialsName was not found: create it with username and password, or clear spec.credentialsName` };
    const data = dataOf(secret);
    const username = (data['username'] ?? '').trim();
    const password = (data['password'] ?? '').trim();
    if (!SAFE.test(username) || !SAFE.test(password)) {
      return { ok: false, kind: 'invalidReference', message: `Secret ${namespace}/${given} needs a username and a password made only of letters, digits, '-' and '_'` };
    }
    return { ok: true, value: { secretName: given, username, password, generated: false } };
  }
  const secretName = databaseNames(name).credentials;
  const observed = dataOf(findObject(request.children, GROUP_KEYS.secret, namespace, secretName));
  const username = observed['username'] ?? '';
  const password = observed['password'] ?? '';
  if (username !== '' && password !== '') return { ok: true, value: { secretName, username, password, generated: true } };
  return { ok: true, value: { secretName, username: 'ironic', password: ctx.secrets.password(), generated: true } };
};

const resolveTLS = (namespace: string, spec: IronicDatabaseSpec, related: ObjectMap | null | undefined): Resolved<DatabaseTLS | undefined> => {
  const name = spec.tlsCertificateName;
  if (name === undefined || name === '') return { ok: true, value: undefined };
  const secret = findObject(related, GROUP_KEYS.secret, namespace, name);
  if (secret === undefined) return { ok: false, kind: 'missingReference', message: `Secret ${namespace}/${name} named in spec.tlsCertificateName was not found: create it, or fix the name` };
  const keys = dataKeys(secret);
  if (!keys.includes('tls.crt') || !keys.includes('tls.key')) {
    return { ok: false, kind: 'invalidReference', message: `Secret ${namespace}/${name} needs tls.crt and tls.key: use a kubernetes.io/tls Secret` };
  }
  return { ok: true, value: { secretName: name, caKey: keys.includes('ca.crt') ? 'ca.crt' : 'tls.crt', hash: objectContentHash(secret) } };
};


/** The rendered children and the outcome, or an outcome that keeps the observed children. */
const render = (request: SyncRequest, parent: Parent, ctx: HookContext): { outcome: DatabaseOutcome; children: unknown[] } => {
  const problems = validateIronicDatabase(parent.spec);
  const keep = keepObservedChildren(request.children);
  if (problems.length > 0) return { outcome: { kind: 'invalidSpec', message: describeProblems(problems) }, children: keep };
  const spec = withDatabaseDefaults(parent.spec as IronicDatabaseSpec);
  const credentials = resolveCredentials(parent.name, parent.namespace, spec, request, ctx);
  if (!credentials.ok) return { outcome: credentials, children: keep };
  const tls = resolveTLS(parent.namespace, spec, request.related);
  if (!tls.ok) return { outcome: tls, children: keep };
  const names = databaseNames(parent.name);
  const observedSet = findObject(request.children, GROUP_KEYS.statefulSet, parent.namespace, names.statefulSet);
  const templates = pathOf(observedSet, 'spec', 'volumeClaimTemplates');
  const input = {
    name: parent.name,
    namespace: parent.namespace,
    spec,
    credentials: credentials.value,
    ...(tls.value && { tls: tls.value }),
    ...(Array.isArray(templates) && templates.length > 0 && { observedClaimTemplates: templates as unknown[] }),
    config: ctx.config,
  };
  const readiness = combineReadiness(
    [
      statefulSetReadiness(observedSet),
      serviceReadiness(findObject(request.children, GROUP_KEYS.service, parent.namespace, names.service)),
    ],
    'all resources are available',
  );
  return { outcome: { kind: 'rendered', readiness, input }, children: renderDatabaseChildren(input) };
};

export const syncIronicDatabase = (request: SyncRequest, ctx: HookContext): SyncResponse => {
  const parent = parentOf(request);
  const { outcome, children } = render(request, parent, ctx);
  const usedBy = usersOf(request.related, parent.namespace, parent.name);
  return {
    status: computeDatabaseStatus({ outcome, usedBy, deletionBlocked: false, previousStatus: parent.status, generation: parent.generation, now: ctx.now() }),
    children,
  };
};

/**
 * finalize: while an Ironic still names this database, keep everything running and say who blocks.
 * Then delete the children (the data volume follows storage.whenDeleted) and finish once they are gone.
 */
export const finalizeIronicDatabase = (request: SyncRequest, ctx: HookContext): SyncResponse => {
  const parent = parentOf(request);
  const usedBy = usersOf(request.related, parent.namespace, parent.name);
  const { outcome, children } = render(request, parent, ctx);
  if (usedBy.length > 0) {
    return {
      status: computeDatabaseStatus({ outcome, usedBy, deletionBlocked: true, previousStatus: parent.status, generation: parent.generation, now: ctx.now() }),
      children,
      resyncAfterSeconds: 30,
    };
  }
  const remaining = countChildren(request.children);
  return {
    status: computeDatabaseStatus({
      outcome: { kind: 'deleting', message: remaining === 0 ? 'the database has been removed' : `the database is being deleted: ${remaining} resources remain` },
      usedBy,
      deletionBlocked: false,
      previousStatus: parent.status,
      generation: parent.generation,
      now: ctx.now(),
    }),
    children: [],
    ...(remaining > 0 && { resyncAfterSeconds: 5 }),
    finalized: remaining === 0,
  };
};
