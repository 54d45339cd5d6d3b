/**
 * The decisions of an IronicDatabase sync and finalize, as pure functions of the observed objects and
 * the model. The hook only generates a password when none exists yet (between `prepareDatabase` and
 * `finishDatabase`).
 */
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import type { IronicDatabaseModel } from '../../api/ironic-database/model.js';
import { DATABASE_USED_BY, type DatabaseBackupStatus, type IronicDatabaseStatus } from '../../api/ironic-database/schema.js';
import type { Condition } from '../../api/shared/common.js';
import { backupStatus, backupsFailingCondition, jobPodMessage, previousBackup, reasonOf } from './backup-status.js';
import { parseIronicDatabase } from '../../api/ironic-database/parse.js';
import { keepObserved, keepObservedChildren, toChild, type KubeChild } from '../child.js';
import type { RenderConfig } from '../config.js';
import { databaseNames, LABELS, type DatabaseNames } from '../names.js';
import { conflictMessage, objectsInTheWay, type Wanted } from '../ownership.js';
import { dataOf, findObject, isRecord, pathOf, textOf } from '../observed.js';
import { canonicalJson, keyedContentHash } from '../meta.js';
import { describeValue } from '../../api/shared/problems.js';
import type { ParentView } from '../parent.js';
import { describeProblems } from '../problems.js';
import { resolveCredentialsSecret, resolveKeysSecret, resolveTLSSecret, type Lookup, type ReferenceProblem } from '../references.js';
import {
  combineReadiness,
  failed,
  findCondition,
  jobReadiness,
  progressing,
  readinessAfterApply,
  ready,
  serviceReadiness,
  statefulSetReadiness,
  type Readiness,
} from '../status.js';
import { READY_CONDITION } from '../../api/shared/common.js';
import { finalizeUsed, syncUsed, type UsedKind, type UsedSyncResult } from '../used-by.js';
import { observedClaimTemplates } from '../volume-claim.js';
import type { DatabaseEngine } from '../../api/shared/constants.js';
import { compareQuantities, parseQuantity } from '../../api/shared/quantity.js';
import { hostCovered } from '../../crypto/certificates.js';
import { MARIADB_API_VERSION, renderOperatorChildren } from './operator.js';
import { renderMariaDBBackup, renderMariaDBRestore } from './operator-backup.js';
import { operatorBackupStatus, operatorBackupsFailing, operatorRestoreState } from './operator-backup-status.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } from '../../api/shared/constants.js';
import { previousUsers, userObjectName } from './users.js';
import type { DatabaseCredentials, DatabaseRenderInput, DatabaseTLS } from './input.js';
import { renderDatabaseChildren } from './render.js';
import { BACKUP_FILE_PATTERN, renderBackupChildren, renderRestoreJob } from './backup.js';
import { computeDatabaseStatus, type DatabaseOutcome } from './status.js';

/** A sync's answer before it is put on the wire. */
export type DatabaseSyncResult = UsedSyncResult<IronicDatabaseStatus>;

/** The username of generated credentials. */
const GENERATED_USERNAME = 'ironic';

/**
 * NOTE: MariaDB creates the user only on its first start, and the image puts the password into SQL
 * unescaped: only [A-Za-z0-9_-] is accepted in either value.
 */
const SAFE = /^[A-Za-z0-9_-]+$/;

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

/** Every unusable reference in one outcome: missing ones may appear later, invalid ones need a change. */
const problemOutcome = (problems: readonly ReferenceProblem[]): DatabaseOutcome => ({
  kind: problems.some((p) => p.kind === 'missing') ? 'missingReference' : 'invalidReference',
  message: problems.map((p) => p.message).join('; '),
});

/** The user's credentials Secret, or the generated one as observed (or to be generated). */
const credentialsOf = (
  view: ParentView,
  model: IronicDatabaseModel,
  lookup: Lookup,
): { ok: true; value: CredentialsPlan } | { ok: false; problem: ReferenceProblem } => {
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

/**
 * The children with names fixed by the parent's name that this spec creates. NOTE: the mariadb-operator
 * objects are not listed: asking for them in customize would break clusters without mariadb-operator.
 */
export const wantedDatabaseChildren = (model: IronicDatabaseModel, names: DatabaseNames): Wanted[] => [
  ...(model.credentialsName === undefined ? [{ group: GROUP_KEYS.secret, name: names.credentials }] : []),
  ...(model.engine === 'Builtin'
    ? [
        { group: GROUP_KEYS.configMap, name: names.config },
        { group: GROUP_KEYS.statefulSet, name: names.statefulSet },
        { group: GROUP_KEYS.service, name: names.service },
        ...(model.backup !== undefined
          ? [
              { group: GROUP_KEYS.cronJob, name: names.backupCronJob },
              ...(model.backup.destination.kind === 'PersistentVolumeClaim' ? [{ group: GROUP_KEYS.persistentVolumeClaim, name: names.backupClaim }] : []),
            ]
          : []),
        ...(model.restore !== undefined ? [{ group: GROUP_KEYS.job, name: names.restoreJob }] : []),
      ]
    : []),
];

/**
 * The backup children, and the observed backup volume when the spec no longer asks for it: removing spec.backup
 * stops the backups, never deletes the ones taken (the claim goes with the IronicDatabase only).
 */
const backupChildren = (view: ParentView, input: DatabaseRenderInput): KubeChild[] => {
  // While a restore is pending the schedule is suspended: a backup of the still empty schema would become the
  // `latest` that a retried restore then replays.
  const restoring = input.model.restore !== undefined && restoredFrom(view.status) === undefined;
  const rendered = renderBackupChildren(input)
    .map((c) => (restoring && c.kind === 'CronJob' ? { ...c, spec: { ...c.spec, suspend: true } } : c))
    .map(toChild);
  const claimName = databaseNames(view.name).backupClaim;
  const observedClaim = findObject(view.children, GROUP_KEYS.persistentVolumeClaim, view.namespace, claimName);
  const keep = observedClaim !== undefined && !rendered.some((c) => c.kind === 'PersistentVolumeClaim') ? [keepObserved(observedClaim)] : [];
  return [...rendered, ...keep];
};

/** The engine the observed children were made by (a previous spec that is never sent to the hook). */
export const observedEngine = (view: ParentView): DatabaseEngine | undefined => {
  const names = databaseNames(view.name);
  if (findObject(view.children, GROUP_KEYS.statefulSet, view.namespace, names.statefulSet) !== undefined) return 'Builtin';
  if (findObject(view.children, GROUP_KEYS.mariadb, view.namespace, names.mariadb) !== undefined) return 'MariaDBOperator';
  return undefined;
};

/** The larger of two sizes (quantities), as written; the one that parses when the other does not. */
const largerSize = (a: string | undefined, b: string | undefined): string | undefined => {
  const [qa, qb] = [a === undefined ? undefined : parseQuantity(a), b === undefined ? undefined : parseQuantity(b)];
  if (qa === undefined) return qb === undefined ? undefined : b;
  return qb !== undefined && compareQuantities(qb, qa) > 0 ? b : a;
};

/**
 * The previous spec as far as the observed children tell it, for the rules about changes: the engine and,
 * for a MariaDB, its storage class and the size of its volumes (the larger of its size and of the claim
 * template mariadb-operator writes from it: what its webhook compares a new size with).
 */
export const previousSpec = (view: ParentView): Record<string, unknown> | undefined => {
  const engine = observedEngine(view);
  if (engine !== 'MariaDBOperator') return engine === undefined ? undefined : { engine };
  const storage = pathOf(findObject(view.children, GROUP_KEYS.mariadb, view.namespace, databaseNames(view.name).mariadb), 'spec', 'storage');
  const size = largerSize(textOf(pathOf(storage, 'size')), textOf(pathOf(storage, 'volumeClaimTemplate', 'resources', 'requests', 'storage')));
  return { engine, storage: { ...(size !== undefined && { size }), storageClassName: textOf(pathOf(storage, 'storageClassName')) ?? '' } };
};

/**
 * The Secrets of the S3 buckets (engine MariaDBOperator, which hands them to mariadb-operator's Jobs): each must
 * exist with non-empty keys, or the database waits with the reason rather than a Backup failing at night.
 */
const s3SecretProblems = (lookup: Lookup, model: IronicDatabaseModel): ReferenceProblem[] => {
  if (model.engine !== 'MariaDBOperator') return [];
  const buckets = [
    ['spec.backup.s3', model.backup?.destination.kind === 'S3' ? model.backup.destination : undefined],
    ['spec.restoreFrom.s3', model.restore?.s3],
  ] as const;
  return buckets.flatMap(([path, s3]) => {
    if (s3 === undefined) return [];
    const credentials = resolveKeysSecret(lookup, s3.credentialsSecretName, `${path}.credentialsSecretName`, [S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY]);
    const ca = s3.caSecretName === undefined ? undefined : resolveKeysSecret(lookup, s3.caSecretName, `${path}.caSecretName`, ['ca.crt']);
    return [...(credentials.ok ? [] : [credentials.problem]), ...(ca?.ok === false ? [ca.problem] : [])];
  });
};

/** Parses the spec and resolves its references; otherwise the outcome that keeps every observed child. */
export const prepareDatabase = (view: ParentView): PreparedDatabase => {
  const parsed = parseIronicDatabase(view.spec, previousSpec(view));
  if (!parsed.ok) return { kind: 'keep', outcome: { kind: 'invalidSpec', message: describeProblems(parsed.problems) } };
  const { model } = parsed;
  const names = databaseNames(view.name);
  const inTheWay = objectsInTheWay(view, wantedDatabaseChildren(model, names));
  if (inTheWay.length > 0)
    return {
      kind: 'keep',
      outcome: {
        kind: 'conflict',
        message: conflictMessage(inTheWay, view.namespace, 'IronicDatabase', {
          secretName: names.credentials,
          field: 'spec.credentialsName',
          what: 'database credentials',
        }),
      },
    };
  const lookup = { related: view.related, namespace: view.namespace };
  const credentials = credentialsOf(view, model, lookup);
  const tls = model.tlsCertificateName === undefined ? undefined : resolveTLSSecret(lookup, model.tlsCertificateName, 'spec.tlsCertificateName', view.now);
  // Both references at once, so that one sync says all there is to fix.
  const problems = [...(credentials.ok ? [] : [credentials.problem]), ...(tls?.ok === false ? [tls.problem] : []), ...s3SecretProblems(lookup, model)];
  if (!credentials.ok || tls?.ok === false || problems.length > 0) return { kind: 'keep', outcome: problemOutcome(problems) };
  if (tls === undefined) return { kind: 'render', model, credentials: credentials.value };
  const { name, hash, keys, dnsNames } = tls.value;
  return {
    kind: 'render',
    model,
    credentials: credentials.value,
    tls: { secretName: name, caKey: keys.includes('ca.crt') ? 'ca.crt' : 'tls.crt', hash, dnsNames },
  };
};

/** Readiness of the Builtin engine: its StatefulSet and Service. */
const builtinReadiness = (view: ParentView, observedSet: KubeObject | undefined): Readiness =>
  combineReadiness(
    [statefulSetReadiness(observedSet), serviceReadiness(findObject(view.children, GROUP_KEYS.service, view.namespace, databaseNames(view.name).service))],
    'all resources are available',
  );

type Difference = { readonly path: string; readonly found: unknown; readonly asked: unknown };

/** What a field of a mariadb-operator spec holds, as far as comparing it goes: a quantity, a map of them, or anything else. */
type Field = 'quantity' | 'quantities' | 'other';

/** The field under `key` of a field that holds `within`: a volume's `size`, and every resource of `requests` and `limits`, are quantities. */
const fieldOf = (key: string, within: Field): Field => {
  if (within === 'quantities' || key === 'size') return 'quantity';
  return key === 'requests' || key === 'limits' ? 'quantities' : 'other';
};

/**
 * Whether an observed value is the one asked. Quantities by value: ours are written in the API server's
 * canonical text, but another writer (a user's edit, which Metacontroller's three-way merge leaves alone while
 * our value does not change) may spell the same size otherwise (`20480Mi` for `20Gi`). Anything else as canonical
 * JSON, whatever the key order of either side.
 */
const sameValue = (desired: unknown, observed: unknown, field: Field): boolean => {
  if (field === 'quantity' && (typeof desired === 'string' || typeof desired === 'number') && (typeof observed === 'string' || typeof observed === 'number')) {
    const [asked, found] = [parseQuantity(desired), parseQuantity(observed)];
    if (asked !== undefined && found !== undefined) return compareQuantities(asked, found) === 0;
  }
  return canonicalJson(desired) === canonicalJson(observed);
};

/**
 * The first field of `desired` that `observed` does not have as asked: maps are compared key by key (others,
 * mariadb-operator included, may add fields), everything else whole. Undefined when all of it is applied.
 */
const unapplied = (desired: unknown, observed: unknown, path: string, field: Field = 'other'): Difference | undefined => {
  if (isRecord(desired) && isRecord(observed)) {
    for (const [key, value] of Object.entries(desired)) {
      const difference = unapplied(value, observed[key], `${path}.${key}`, fieldOf(key, field));
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  return sameValue(desired, observed, field) ? undefined : { path, found: observed, asked: desired };
};

/**
 * Readiness of a mariadb-operator object: the spec asked for must be the one observed (a write the API
 * server refused, or one not observed yet, is not), then its Ready condition as mariadb-operator reports
 * it. NOTE: mariadb-operator's conditions carry no observedGeneration, so a Ready condition written before
 * the last change of a spec that is observed cannot be told from one written after.
 */
const operatorObjectReadiness = (view: ParentView, desired: KubeChild): Readiness => {
  const {
    kind,
    metadata: { name },
  } = desired;
  const found = findObject(view.children, `${kind}.${desired.apiVersion}`, view.namespace, name);
  if (found === undefined) return progressing(`${kind} ${name} is being created`);
  const difference = unapplied(desired['spec'], found['spec'], 'spec');
  if (difference !== undefined)
    return progressing(
      `${kind} ${name} does not have the asked spec yet: ${difference.path} is ${describeValue(difference.found)}, not ${describeValue(difference.asked)}`,
    );
  const condition = findCondition(found['status'], READY_CONDITION);
  if (condition?.status === 'True') return ready(`${kind} ${name} is ready`);
  const why = textOf(condition?.message);
  return progressing(`${kind} ${name} is not ready yet${why !== undefined ? `: ${why}` : ''}`);
};

/** Readiness of the MariaDBOperator engine: each of its objects as asked and Ready, then the primary Service. */
const operatorReadiness = (view: ParentView, children: readonly KubeChild[]): Readiness => {
  const service = databaseNames(view.name).primaryService;
  const primary = findObject(view.related, GROUP_KEYS.service, view.namespace, service);
  return combineReadiness(
    [
      // A Backup and a Restore have no Ready condition (a Backup's Complete is the backups' state, in status.backup;
      // a Restore's the restore's, in restoreReadiness).
      ...children
        .filter((c) => c.apiVersion === MARIADB_API_VERSION && c.kind !== 'Backup' && c.kind !== 'Restore')
        .map((c) => operatorObjectReadiness(view, c)),
      primary === undefined ? progressing(`waiting for mariadb-operator to create Service ${service} of the Galera primary`) : serviceReadiness(primary),
    ],
    'the Galera cluster, its database, user and grant are ready',
  );
};

type Plan = { outcome: DatabaseOutcome; children: KubeChild[] };

/** How a Galera cluster is filled from spec.restoreFrom: not at all, by bootstrapFrom (a cluster made so), or by the hooks' Restore. */
type GaleraRestore =
  | { readonly kind: 'none' }
  | { readonly kind: 'bootstrap'; readonly bootstrapFrom: Record<string, unknown> }
  | { readonly kind: 'own'; readonly backup: string };

/**
 * How this cluster is filled from a backup. A new one (no MariaDB yet) by the hooks' own Restore, recorded on the
 * MariaDB (its restore-from annotation). One made with bootstrapFrom keeps it (mariadb-operator refuses a change,
 * and restores only when it is created). A restoreFrom added to a cluster that exists is refused: the backup would
 * be replayed over the live database.
 */
const galeraRestoreOf = (view: ParentView, input: DatabaseRenderInput): GaleraRestore | { problem: DatabaseOutcome } => {
  const restore = input.model.restore;
  const mariadb = findObject(view.children, GROUP_KEYS.mariadb, view.namespace, databaseNames(view.name).mariadb);
  if (mariadb === undefined) return restore === undefined ? { kind: 'none' } : { kind: 'own', backup: restore.backup };
  const observed = pathOf(mariadb, 'spec', 'bootstrapFrom');
  if (isRecord(observed)) return { kind: 'bootstrap', bootstrapFrom: observed };
  if (restore === undefined) return { kind: 'none' };
  if (textOf(pathOf(mariadb, 'metadata', 'annotations', LABELS.restoreFrom)) !== undefined) return { kind: 'own', backup: restore.backup };
  return {
    problem: {
      kind: 'invalidSpec',
      message:
        'spec.restoreFrom: the Galera cluster of this IronicDatabase exists already, and a restore is only for a new one (mariadb-operator would replay the backup over the live database); remove restoreFrom, or create a new IronicDatabase with it',
    },
  };
};

/** Where the hooks' own Restore stands: not made yet, running (with what it says), complete, or failed. */
type OwnRestoreState =
  { readonly state: 'absent' } | { readonly state: 'running'; readonly message?: string } | { readonly state: 'complete' } | { readonly state: 'failed' };

/** The hooks' Restore from its Complete condition (pkg/condition/complete.go: True JobComplete or True JobFailed, for good). */
const ownRestoreState = (view: ParentView): OwnRestoreState => {
  const restore = findObject(view.children, GROUP_KEYS.mariadbRestore, view.namespace, databaseNames(view.name).mariadbDataRestore);
  if (restore === undefined) return { state: 'absent' };
  const complete = findCondition(restore['status'], 'Complete');
  if (complete?.status === 'True') return textOf(complete.reason) === 'JobFailed' ? { state: 'failed' } : { state: 'complete' };
  const message = textOf(complete?.message);
  return message !== undefined ? { state: 'running', message } : { state: 'running' };
};

/** A value Go decodes to its zero value ('', false, 0, an empty map or list): leaving it out changes nothing to the webhook. */
const isGoZero = (value: unknown): boolean =>
  value === null ||
  value === '' ||
  value === false ||
  value === 0 ||
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

/**
 * The first field that `applied` (what was applied last) holds and `desired` leaves out, walking maps: mariadb-operator
 * compares the whole storage, so a removed `prefix`, `region`, CA or `storageClassName` is a change it refuses, which
 * `unapplied` (it walks the desired keys) cannot see.
 */
const removedField = (desired: unknown, applied: unknown, path: string): Difference | undefined => {
  if (!isRecord(applied)) return undefined;
  for (const [key, value] of Object.entries(applied)) {
    const wanted = isRecord(desired) ? desired[key] : undefined;
    const difference =
      wanted === undefined
        ? isGoZero(value)
          ? undefined
          : { path: `${path}.${key}`, found: value, asked: undefined }
        : removedField(wanted, value, `${path}.${key}`);
    if (difference !== undefined) return difference;
  }
  return undefined;
};

/**
 * A change of the Backup that mariadb-operator's webhook refuses (its storage never changes, its maxRetention
 * once set): reported with what to do, rather than a Backup that never gets the asked spec.
 */
const backupChangeProblem = (view: ParentView, backup: KubeChild | undefined): DatabaseOutcome | undefined => {
  if (backup === undefined) return undefined;
  const observed = findObject(view.children, GROUP_KEYS.mariadbBackup, view.namespace, backup.metadata.name);
  if (observed === undefined) return undefined;
  const storage = pathOf(backup, 'spec', 'storage');
  const difference =
    unapplied(storage, pathOf(observed, 'spec', 'storage'), 'spec.storage') ??
    removedField(storage, pathOf(keepObserved(observed), 'spec', 'storage'), 'spec.storage') ??
    unapplied(pathOf(backup, 'spec', 'maxRetention'), pathOf(observed, 'spec', 'maxRetention'), 'spec.maxRetention');
  if (difference === undefined) return undefined;
  const what =
    difference.asked === undefined
      ? `its ${difference.path} is ${describeValue(difference.found)}, which the new spec leaves out`
      : `its ${difference.path} is ${describeValue(difference.found)}, not ${describeValue(difference.asked)}`;
  return {
    kind: 'invalidSpec',
    message: `spec.backup: the destination and the retention of a Galera database's backups cannot change once its Backup ${backup.metadata.name} exists (mariadb-operator refuses a new storage or maxRetention; ${what}): set them back, or remove spec.backup, apply, and add it again with the new values (a claim of the backups stays: mariadb-operator never deletes it)`,
  };
};

/**
 * mariadb-operator admits a Backup's priorityClassName (its Jobs' pod template) set where it was unset and removed,
 * and refuses a change: a new one goes in two syncs, this one without it (removed), the next with it (set).
 */
const priorityClassStep = (view: ParentView, backup: KubeChild | undefined): KubeChild | undefined => {
  if (backup === undefined) return undefined;
  const observed = findObject(view.children, GROUP_KEYS.mariadbBackup, view.namespace, backup.metadata.name);
  const [before, after] = [textOf(pathOf(observed, 'spec', 'priorityClassName')), textOf(pathOf(backup, 'spec', 'priorityClassName'))];
  const spec = backup['spec'];
  if (before === undefined || after === undefined || before === after || !isRecord(spec)) return backup;
  const { priorityClassName: _removedFirst, ...rest } = spec;
  return { ...backup, spec: rest };
};

/** What the restore of spec.restoreFrom reads, for messages: `backup latest of claim x`. */
const restoreWhat = (view: ParentView, restore: NonNullable<DatabaseRenderInput['model']['restore']>): string => {
  const source = restore.s3 !== undefined ? `bucket ${restore.s3.bucket}` : `claim ${restore.claimName ?? databaseNames(view.name).mariadbBackup}`;
  return `backup ${restore.backup} of ${source}`;
};

/** A cluster made with bootstrapFrom: restoring until mariadb-operator reports BackupRestored, failed while its Restore says so. */
const bootstrapReadiness = (view: ParentView, what: string, asked: Readiness): Readiness => {
  const names = databaseNames(view.name);
  const state = operatorRestoreState(
    findObject(view.children, GROUP_KEYS.mariadb, view.namespace, names.mariadb),
    findObject(view.related, GROUP_KEYS.mariadbRestore, view.namespace, names.mariadbRestore),
  );
  if (state.state === 'restored') return asked;
  if (state.state === 'failed')
    return failed(
      `restoring ${what} failed: mariadb-operator's Restore ${names.mariadbRestore} reports its Job failed; the database is not used until it is restored: see kubectl -n ${view.namespace} logs job/${names.mariadbRestore}, fix the cause, then delete this IronicDatabase and its volumes and create it again`,
    );
  return progressing(`restoring ${what} into the Galera cluster: ${state.message ?? asked.message}`);
};

/**
 * While a new cluster is filled from a backup: Ready=False saying so, then Ready only once the hooks' Restore reports
 * its Job complete; a failed one is failed for good (nobody deletes it), saying where its log is and how to retry.
 */
const restoreReadiness = (view: ParentView, input: DatabaseRenderInput, galera: GaleraRestore, asked: Readiness): Readiness => {
  const restore = input.model.restore;
  if (restore === undefined || galera.kind === 'none' || restoredFrom(view.status) !== undefined) return asked;
  const what = restoreWhat(view, restore);
  if (galera.kind === 'bootstrap') return bootstrapReadiness(view, what, asked);
  const name = databaseNames(view.name).mariadbDataRestore;
  const own = ownRestoreState(view);
  if (own.state === 'complete') return asked;
  if (own.state === 'failed')
    return failed(
      `restoring ${what} failed: mariadb-operator's Restore ${name} reports its Job failed; the database is not used and no backup is taken until a restore succeeds: see kubectl -n ${view.namespace} logs job/${name}, fix the cause (the source, its Secret, the file), then delete the Restore ${name} to run it again`,
    );
  if (own.state === 'absent') return progressing(`waiting for the Galera cluster before restoring ${what} into it: ${asked.message}`);
  return progressing(`restoring ${what} into the Galera cluster: ${own.message ?? `mariadb-operator runs its Restore ${name}`}`);
};

/**
 * The hooks' Restore, once the new cluster runs (its MariaDB as asked and Ready), and from then on for good: a
 * Restore left out would be deleted, and made again would replay the backup over the live database.
 */
const ownRestore = (view: ParentView, input: DatabaseRenderInput, galera: GaleraRestore, operatorChildren: readonly KubeChild[]): KubeChild[] => {
  if (galera.kind !== 'own') return [];
  const mariadb = operatorChildren.find((c) => c.kind === 'MariaDB');
  const running = mariadb !== undefined && operatorObjectReadiness(view, mariadb).state === 'ready';
  const restore = renderMariaDBRestore(input);
  return restore !== undefined && (running || ownRestoreState(view).state !== 'absent') ? [restore] : [];
};

/**
 * The MariaDBOperator engine: its objects, the user's under the name users.ts gives them, and the objects
 * of previous users until they are dropped; Ready once the asked objects are, no previous user remains, and a
 * restore asked for completed.
 */
const planOperator = (view: ParentView, input: DatabaseRenderInput): Plan => {
  const { username, password } = input.credentials;
  const name = userObjectName(view, username);
  // Keyed with the parent's uid: the name is readable by more than the Secret, and a password has few guesses.
  const user = { name, passwordSecret: databaseNames(view.name).userPassword(name, keyedContentHash(view.uid ?? view.name, password)) };
  const galera = galeraRestoreOf(view, input);
  if ('problem' in galera) return { outcome: galera.problem, children: keepObservedChildren(view.children) };
  // No scheduled backup until a restore is proven: it would dump an empty schema where the good files are, and
  // its retention would age them out.
  const restoring = galera.kind === 'own' && restoredFrom(view.status) === undefined && ownRestoreState(view).state !== 'complete';
  const observedBackup = findObject(view.children, GROUP_KEYS.mariadbBackup, view.namespace, databaseNames(view.name).mariadbBackup);
  const backup = restoring && observedBackup === undefined ? undefined : priorityClassStep(view, renderMariaDBBackup(input));
  const backupProblem = backupChangeProblem(view, backup);
  if (backupProblem !== undefined) return { outcome: backupProblem, children: keepObservedChildren(view.children) };
  const operatorChildren = renderOperatorChildren(
    input,
    user,
    galera.kind === 'bootstrap' ? galera.bootstrapFrom : undefined,
    galera.kind === 'own' ? galera.backup : undefined,
  );
  const children = [...operatorChildren, ...(backup !== undefined ? [backup] : []), ...ownRestore(view, input, galera, operatorChildren)];
  const asked = restoreReadiness(view, input, galera, operatorReadiness(view, children));
  const previous = previousUsers(view, name, asked.state === 'ready');
  const readiness =
    previous.switchingFrom.length > 0 && asked.state !== 'ready'
      ? { ...asked, message: `switching the database user from ${previous.switchingFrom.join(', ')} to ${username}: ${asked.message}` }
      : previous.dropping.length > 0
        ? progressing(`the database user ${username} is ready; dropping the previous user ${previous.dropping.join(', ')}`)
        : asked;
  // A previous User may read the generated credentials Secret (as Users did before the password had a Secret of its own).
  const rendered = new Set(children.map((c) => `${c.kind} ${c.metadata.name}`));
  return {
    outcome: { kind: 'rendered', readiness, input },
    children: [...children, ...previous.children.filter((c) => !rendered.has(`${c.kind} ${c.metadata.name}`))],
  };
};

/**
 * The host names mariadb-operator connects to with TLS, checking each against the certificate (pkg/sql/sql.go,
 * api/v1alpha1/mariadb_types.go, pkg/statefulset): the primary Service for Database, User and Grant, and every
 * Galera node by its name under the internal Service. Under its CLUSTER_NAME, cluster.local unless set; the hooks
 * take their CLUSTER_DOMAIN for it.
 */
const galeraTlsHosts = (view: ParentView, replicas: number, config: RenderConfig): string[] => {
  const names = databaseNames(view.name);
  const domain = config.clusterDomain !== '' ? config.clusterDomain : 'cluster.local';
  const nodes = Array.from({ length: replicas }, (_, i) => `${names.mariadb}-${i}.${names.mariadb}-internal.${view.namespace}.svc.${domain}`);
  return [`${names.primaryService}.${view.namespace}.svc.${domain}`, ...nodes];
};

/** Why the engine cannot render in this deployment or with this certificate, if it cannot. */
const engineProblem = (view: ParentView, prepared: PreparedDatabase & { kind: 'render' }, config: RenderConfig): DatabaseOutcome | undefined => {
  if (prepared.model.engine !== 'MariaDBOperator') return undefined;
  if (config.mariadbOperator !== true) {
    return {
      kind: 'invalidSpec',
      message:
        'spec.engine: MariaDBOperator needs mariadb-operator in the cluster and the hooks deployed with deploy/overlays/mariadb-operator (which declares its kinds to Metacontroller and sets MARIADB_OPERATOR=true); install both, or use engine Builtin on a new IronicDatabase',
    };
  }
  if (prepared.tls === undefined) return undefined;
  if (prepared.tls.caKey !== 'ca.crt') {
    return {
      kind: 'invalidReference',
      message: `spec.tlsCertificateName: Secret ${prepared.tls.secretName} has no ca.crt, which mariadb-operator needs (serverCASecretRef) with engine MariaDBOperator: add the CA certificate as ca.crt (cert-manager writes it)`,
    };
  }
  const { dnsNames, secretName } = prepared.tls;
  const uncovered = galeraTlsHosts(view, prepared.model.replicas, config).filter((host) => !hostCovered(dnsNames, host));
  if (uncovered.length === 0) return undefined;
  const names = databaseNames(view.name);
  return {
    kind: 'invalidReference',
    message: `spec.tlsCertificateName: the certificate in Secret ${secretName} is not for ${uncovered.join(', ')}, which mariadb-operator connects to and checks the certificate against (with engine MariaDBOperator its Database, User and Grant never become ready otherwise): issue it with these DNS names, for example ${names.primaryService}.${view.namespace}.svc.<cluster domain> and *.${names.mariadb}-internal.${view.namespace}.svc.<cluster domain>`,
  };
};

/** The rendered children and the outcome (with its readiness), or the kept children. */
const planDatabase = (
  view: ParentView,
  prepared: PreparedDatabase,
  password: string,
  config: RenderConfig,
): { outcome: DatabaseOutcome; children: KubeChild[] } => {
  if (prepared.kind === 'keep') return { outcome: prepared.outcome, children: keepObservedChildren(view.children) };
  const problem = engineProblem(view, prepared, config);
  if (problem !== undefined) return { outcome: problem, children: keepObservedChildren(view.children) };
  const names = databaseNames(view.name);
  const observedSet = findObject(view.children, GROUP_KEYS.statefulSet, view.namespace, names.statefulSet);
  const credentials =
    'generate' in prepared.credentials
      ? { secretName: prepared.credentials.generate, username: GENERATED_USERNAME, password, generated: true }
      : prepared.credentials;
  const input: DatabaseRenderInput = {
    name: view.name,
    namespace: view.namespace,
    model: prepared.model,
    credentials,
    credentialsVersion: keyedContentHash(view.uid ?? view.name, `${credentials.username}\n${credentials.password}`).slice(0, 16),
    ...(prepared.tls && { tls: prepared.tls }),
    ...observedClaimTemplates(observedSet),
    config,
  };
  if (prepared.model.engine === 'MariaDBOperator') return planOperator(view, input);
  const children = [...renderDatabaseChildren(input), ...backupChildren(view, input)];
  const database = readinessAfterApply(builtinReadiness(view, observedSet), children, view.children);
  const restore = restoreStep(view, input, database);
  return { outcome: { kind: 'rendered', readiness: restore.readiness, input }, children: [...children, ...restore.children] };
};

/**
 * The backup status while backups are configured (with its BackupsFailing condition); otherwise the previous
 * one as it was, so that an invalid spec or removed backups never hide the last backup taken.
 */
const backupOf = (view: ParentView, outcome: DatabaseOutcome): { backup?: { status: DatabaseBackupStatus; condition?: Condition } } => {
  if (outcome.kind === 'rendered' && outcome.input.model.backup !== undefined && outcome.input.model.engine === 'Builtin') {
    const status = backupStatus({
      related: view.related,
      children: view.children,
      namespace: view.namespace,
      name: view.name,
      schedule: outcome.input.model.backup.schedule,
      previousStatus: view.status,
    });
    return { backup: { status, condition: backupsFailingCondition(status, view.status, view.now) } };
  }
  if (outcome.kind === 'rendered' && outcome.input.model.backup !== undefined) {
    const where = { children: view.children, namespace: view.namespace, name: view.name, previousStatus: view.status };
    return {
      backup: {
        status: operatorBackupStatus({ ...where, related: view.related }),
        condition: operatorBackupsFailing({ ...where, related: view.related, now: view.now }),
      },
    };
  }
  const previous = previousBackup(view.status);
  return previous !== undefined ? { backup: { status: previous } } : {};
};

/** The backup a database was restored from, as its status says (then the restore never runs again). */
const restoredFrom = (status: unknown): string | undefined => textOf(pathOf(status, 'restoredFrom'));

/**
 * spec.restoreFrom of a new Builtin database: once MariaDB is up, a Job replays the backup; the database is Ready
 * only after it completed, so the Ironics using it wait, and never migrate an empty schema. A failed restore is
 * Ready=False with the end of its log. Once the status records the restore, it is done for good: a deleted Job is
 * not created again (it would overwrite the rows written since).
 */
const restoreStep = (view: ParentView, input: DatabaseRenderInput, database: Readiness): { children: KubeChild[]; readiness: Readiness } => {
  const restore = input.model.restore;
  const job = findObject(view.children, GROUP_KEYS.job, view.namespace, databaseNames(view.name).restoreJob);
  if (restore === undefined || restoredFrom(view.status) !== undefined) return { children: job !== undefined ? [keepObserved(job)] : [], readiness: database };
  const claim = restore.claimName ?? databaseNames(view.name).backupClaim;
  const what = `backup ${restore.backup} of claim ${claim}`;
  if (job === undefined) {
    // A database that has been Ready holds rows a restore would overwrite (Galera refuses this case too).
    if (findCondition(view.status, READY_CONDITION)?.status === 'True')
      return {
        children: [],
        readiness: failed(
          `restoreFrom applies only to a new IronicDatabase, and this one has been Ready and holds data that ${what} would overwrite: remove restoreFrom, or restore into a new IronicDatabase`,
        ),
      };
    if (database.state !== 'ready')
      return { children: [], readiness: { ...database, message: `${database.message}; then ${what} is restored before the database is Ready` } };
    return {
      children: [toChild(renderRestoreJob(input, restore))],
      readiness: progressing(`restoring ${what}: Job ${databaseNames(view.name).restoreJob} is being created`),
    };
  }
  const children = [toChild(renderRestoreJob(input, restore))];
  const state = jobReadiness(job, 'restore');
  if (state.state === 'failed') {
    const why = jobPodMessage(view.related, view.namespace, job.metadata.name);
    return {
      children,
      readiness: failed(
        `restoring ${what} failed${why !== undefined ? `: ${reasonOf(why)}` : ` (${state.message})`}; the database is not used until it is restored: fix the cause (kubectl logs job/${job.metadata.name}), then delete Job ${job.metadata.name} to run the restore again`,
      ),
    };
  }
  if (state.state === 'progressing') return { children, readiness: progressing(`restoring ${what}: Job ${job.metadata.name} is running`) };
  return { children, readiness: database };
};

/**
 * What mariadb-operator restored, as far as anyone but its Job's log can tell: it names no file, and a named file is
 * its targetRecoveryTime, the newest backup not newer than that time (pkg/backup/processor.go, GetBackupTargetFile), so
 * a file that is not there restores an older one. `latest` stays `latest`.
 */
const operatorRestoredFrom = (backup: string): string => (backup === 'latest' ? backup : `the newest backup not newer than ${backup}`);

/** The restored backup for the status: recorded once its Job completed, then kept. */
const restoredOf = (view: ParentView, outcome: DatabaseOutcome): { restoredFrom?: string } => {
  const previous = restoredFrom(view.status);
  if (previous !== undefined) return { restoredFrom: previous };
  const restore = outcome.kind === 'rendered' ? outcome.input.model.restore : undefined;
  if (restore !== undefined && outcome.kind === 'rendered' && outcome.input.model.engine === 'MariaDBOperator') {
    // A cluster made with bootstrapFrom is restored when mariadb-operator says so; a new one when the hooks' Restore
    // reports its Job complete.
    const mariadb = findObject(view.children, GROUP_KEYS.mariadb, view.namespace, databaseNames(view.name).mariadb);
    const restored = isRecord(pathOf(mariadb, 'spec', 'bootstrapFrom'))
      ? operatorRestoreState(mariadb, undefined).state === 'restored'
      : ownRestoreState(view).state === 'complete';
    return restored ? { restoredFrom: operatorRestoredFrom(restore.backup) } : {};
  }
  const job = findObject(view.children, GROUP_KEYS.job, view.namespace, databaseNames(view.name).restoreJob);
  if (restore === undefined || job === undefined || jobReadiness(job, 'restore').state !== 'ready') return {};
  const file = jobPodMessage(view.related, view.namespace, job.metadata.name);
  return { restoredFrom: file !== undefined && BACKUP_FILE_PATTERN.test(file) ? file : restore.backup };
};

/** Whether the hook must generate a password before `finishDatabase`. */
export const needsPassword = (prepared: PreparedDatabase): boolean => prepared.kind === 'render' && 'generate' in prepared.credentials;

/** The database's side of the used-by protocol: its plan and its status, for one sync or finalize. */
const usedDatabase = (
  view: ParentView,
  prepared: PreparedDatabase,
  password: string,
  config: RenderConfig,
): UsedKind<DatabaseOutcome, IronicDatabaseStatus> => ({
  usedBy: DATABASE_USED_BY,
  plan: () => planDatabase(view, prepared, password, config),
  status: (outcome, usage) =>
    computeDatabaseStatus({
      outcome,
      usage,
      previousStatus: view.status,
      generation: view.generation,
      now: view.now,
      ...backupOf(view, outcome),
      ...restoredOf(view, outcome),
    }),
});

/** sync: the children and the status (`password` is used only when `needsPassword`). */
export const finishDatabase = (view: ParentView, prepared: PreparedDatabase, password: string, config: RenderConfig): DatabaseSyncResult =>
  syncUsed(view, usedDatabase(view, prepared, password, config));

/**
 * finalize: while an Ironic still names this database, keep everything running and say who blocks.
 * Then delete the children (the data volume follows storage.whenDeleted) and finish once they are gone.
 */
export const finalizeDatabase = (view: ParentView, prepared: PreparedDatabase, password: string, config: RenderConfig): DatabaseSyncResult =>
  finalizeUsed(view, usedDatabase(view, prepared, password, config));
