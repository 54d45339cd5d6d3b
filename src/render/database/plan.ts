/**
 * The decisions of an IronicDatabase sync and finalize, as pure functions of the observed objects and
 * the model. The hook only generates a password when none exists yet (between `prepareDatabase` and
 * `finishDatabase`).
 */
import { GROUP_KEYS, type KubeObject, type ObjectMap } from '../../api/hook.js';
import type { IronicDatabaseModel } from '../../api/model.js';
import type { IronicDatabaseStatus } from '../../api/ironic-database.js';
import { parseIronicDatabase } from '../../api/parse-ironic-database.js';
import { keepObservedChildren, type KubeChild } from '../child.js';
import type { RenderConfig } from '../config.js';
import { databaseNames, type DatabaseNames } from '../names.js';
import { conflictMessage, objectsInTheWay, type Wanted } from '../ownership.js';
import { dataOf, findObject, objectsOf, pathOf } from '../observed.js';
import { countChildren, type ParentView } from '../parent.js';
import { describeProblems } from '../problems.js';
import { resolveCredentialsSecret, resolveTLSSecret, type Lookup, type ReferenceProblem } from '../references.js';
import { combineReadiness, serviceReadiness, statefulSetReadiness } from '../status.js';
import type { DatabaseCredentials, DatabaseRenderInput, DatabaseTLS } from './input.js';
import { renderDatabaseChildren } from './render.js';
import { computeDatabaseStatus, type DatabaseOutcome } from './status.js';

/** A sync's answer before it is put on the wire. */
export type DatabaseSyncResult = {
  readonly status: IronicDatabaseStatus;
  readonly children: KubeChild[];
  readonly resyncAfterSeconds?: number;
  readonly finalized?: boolean;
};

/** The username of generated credentials. */
const GENERATED_USERNAME = 'ironic';

/**
 * NOTE: MariaDB creates the user only on its first start, and the image puts the password into SQL
 * unescaped: only [A-Za-z0-9_-] is accepted in either value.
 */
const SAFE = /^[A-Za-z0-9_-]+$/;

/** The finalizer the API server sets for `kubectl delete --cascade=foreground`. */
const FOREGROUND_DELETION = 'foregroundDeletion';

/** How long to wait before looking again while a deletion is blocked or children remain. */
const BLOCKED_RESYNC_SECONDS = 30;
const DELETING_RESYNC_SECONDS = 5;

/** Names of the Ironic objects of the namespace whose spec.databaseName is this database. */
export const usersOf = (related: ObjectMap | null | undefined, namespace: string, name: string): string[] =>
  objectsOf(related, GROUP_KEYS.ironic)
    .filter((o: KubeObject) => (o.metadata.namespace ?? namespace) === namespace && pathOf(o, 'spec', 'databaseName') === name)
    .map((o) => o.metadata.name)
    .sort();

/** The credentials, or the Secret name to generate them under when none exist yet. */
type CredentialsPlan = DatabaseCredentials | { readonly generate: string };

/** Where a sync stands before a password may be generated: keep everything (and why), or render. */
export type PreparedDatabase =
  | { readonly kind: 'keep'; readonly outcome: DatabaseOutcome }
  | {
      readonly kind: 'render';
      readonly model: IronicDatabaseModel;
      readonly tls?: DatabaseTLS;
      readonly credentials: CredentialsPlan;
    };

const problemOutcome = (problem: ReferenceProblem): DatabaseOutcome => ({ kind: problem.kind === 'missing' ? 'missingReference' : 'invalidReference', message: problem.message });

/** The user's credentials Secret, or the generated one as observed (or to be generated). */
const credentialsOf = (view: ParentView, model: IronicDatabaseModel, lookup: Lookup): { ok: true; value: CredentialsPlan } | { ok: false; problem: ReferenceProblem } => {
  const given = model.credentialsName;
  if (given !== undefined) {
    const user = resolveCredentialsSecret(lookup, given, 'spec.credentialsName', { username: SAFE, password: SAFE, allowed: "letters, digits, '-' and '_'" });
    return user.ok ? { ok: true, value: { secretName: given, ...user.value, generated: false } } : user;
  }
  const secretName = databaseNames(view.name).credentials;
  const observed = dataOf(findObject(view.children, GROUP_KEYS.secret, view.namespace, secretName));
  const username = observed['username'] ?? '';
  const password = observed['password'] ?? '';
  return { ok: true, value: username !== '' && password !== '' ? { secretName, username, password, generated: true } : { generate: secretName } };
};

/** The children with names fixed by the parent's name that this spec creates. */
export const wantedDatabaseChildren = (model: IronicDatabaseModel, names: DatabaseNames): Wanted[] => [
  ...(model.credentialsName === undefined ? [{ group: GROUP_KEYS.secret, name: names.credentials }] : []),
  { group: GROUP_KEYS.configMap, name: names.config },
  { group: GROUP_KEYS.statefulSet, name: names.statefulSet },
  { group: GROUP_KEYS.service, name: names.service },
];


/** Parses the spec and resolves its references; otherwise the outcome that keeps every observed child. */
export const prepareDatabase = (view: ParentView): PreparedDatabase => {
  const parsed = parseIronicDatabase(view.spec);
  if (!parsed.ok) return { kind: 'keep', outcome: { kind: 'invalidSpec', message: describeProblems(parsed.problems) } };
  const { model } = parsed;
  const names = databaseNames(view.name);
  const inTheWay = objectsInTheWay(view, wantedDatabaseChildren(model, names));
  if (inTheWay.length > 0) return { kind: 'keep', outcome: { kind: 'conflict', message: conflictMessage(inTheWay, view.namespace, 'IronicDatabase', { secretName: names.credentials, field: 'spec.credentialsName', what: 'database credentials' }) } };
  const lookup = { related: view.related, namespace: view.namespace };
  const credentials = credentialsOf(view, model, lookup);
  if (!credentials.ok) return { kind: 'keep', outcome: problemOutcome(credentials.problem) };
  if (model.tlsCertificateName === undefined) return { kind: 'render', model, credentials: credentials.value };
  const tls = resolveTLSSecret(lookup, model.tlsCertificateName, 'spec.tlsCertificateName');
  if (!tls.ok) return { kind: 'keep', outcome: problemOutcome(tls.problem) };
  const { name, hash, keys } = tls.value;
  return { kind: 'render', model, credentials: credentials.value, tls: { secretName: name, caKey: keys.includes('ca.crt') ? 'ca.crt' : 'tls.crt', hash } };
};

/** The rendered children and the outcome (with its readiness), or the kept children. */
const planDatabase = (view: ParentView, prepared: PreparedDatabase, password: string, config: RenderConfig): { outcome: DatabaseOutcome; children: KubeChild[] } => {
  if (prepared.kind === 'keep') return { outcome: prepared.outcome, children: keepObservedChildren(view.children) };
  const names = databaseNames(view.name);
  const observedSet = findObject(view.children, GROUP_KEYS.statefulSet, view.namespace, names.statefulSet);
  const templates = pathOf(observedSet, 'spec', 'volumeClaimTemplates');
  const credentials = 'generate' in prepared.credentials ? { secretName: prepared.credentials.generate, username: GENERATED_USERNAME, password, generated: true } : prepared.credentials;
  const input: DatabaseRenderInput = {
    name: view.name,
    namespace: view.namespace,
    model: prepared.model,
    credentials,
    ...(prepared.tls && { tls: prepared.tls }),
    ...(Array.isArray(templates) && templates.length > 0 && { observedClaimTemplates: templates }),
    config,
  };
  const readiness = combineReadiness(
    [statefulSetReadiness(observedSet), serviceReadiness(findObject(view.children, GROUP_KEYS.service, view.namespace, names.service))],
    'all resources are available',
  );
  return { outcome: { kind: 'rendered', readiness, input }, children: renderDatabaseChildren(input) };
};

/** Whether the hook must generate a password before `finishDatabase`. */
export const needsPassword = (prepared: PreparedDatabase): boolean => prepared.kind === 'render' && 'generate' in prepared.credentials;

const statusOf = (view: ParentView, outcome: DatabaseOutcome, usedBy: readonly string[], deletionBlocked: boolean): IronicDatabaseStatus =>
  computeDatabaseStatus({ outcome, usedBy, deletionBlocked, previousStatus: view.status, generation: view.generation, now: view.now });

/** sync: the children and the status (`password` is used only when `needsPassword`). */
export const finishDatabase = (view: ParentView, prepared: PreparedDatabase, password: string, config: RenderConfig): DatabaseSyncResult => {
  const { outcome, children } = planDatabase(view, prepared, password, config);
  return { status: statusOf(view, outcome, usersOf(view.related, view.namespace, view.name), false), children };
};

/**
 * finalize: while an Ironic still names this database, keep everything running and say who blocks.
 * Then delete the children (the data volume follows storage.whenDeleted) and finish once they are gone.
 */
export const finalizeDatabase = (view: ParentView, prepared: PreparedDatabase, password: string, config: RenderConfig): DatabaseSyncResult => {
  const usedBy = usersOf(view.related, view.namespace, view.name);
  // Foreground deletion: the garbage collector deletes the children whatever this hook answers, so the
  // database cannot be kept for its users; say so instead of claiming it is kept.
  const foreground = view.finalizers.includes(FOREGROUND_DELETION);
  if (usedBy.length > 0 && !foreground) {
    const { outcome, children } = planDatabase(view, prepared, password, config);
    return { status: statusOf(view, outcome, usedBy, true), children, resyncAfterSeconds: BLOCKED_RESYNC_SECONDS };
  }
  const remaining = countChildren(view.children);
  const users = foreground && usedBy.length > 0 ? ` although ${usedBy.join(', ')} still use it (deleted with foreground propagation, which does not wait for them)` : '';
  const message = remaining === 0 ? `the database has been removed${users}` : `the database is being deleted${users}: ${remaining} resources remain`;
  return {
    status: statusOf(view, { kind: 'deleting', message }, usedBy, false),
    children: [],
    ...(remaining > 0 && { resyncAfterSeconds: DELETING_RESYNC_SECONDS }),
    finalized: remaining === 0,
  };
};
