/**
 * A stand-in for mariadb-operator 26.6.0 (k8s.mariadb.com/v1alpha1) in the in-memory cluster: its
 * validating webhooks, which the API server calls on every create and update of the main resource, and
 * its controllers, which make the objects Ready, give a MariaDB its Services and the storage defaults it
 * writes into the spec, and keep the SQL accounts of each MariaDB as its User and Grant controllers would.
 * Read from mariadb-operator's sources at tag 26.6.0: the `webhook:"inmutable"` and `webhook:"inmutableinit"`
 * tags of api/v1alpha1/*_types.go (pkg/webhook/inmutable_webhook.go), internal/webhook/v1alpha1/
 * {mariadb,user,grant,database}_webhook.go, api/v1alpha1/user_indexes.go (the Secrets a User watches) and
 * pkg/controller/sql (requeue and cleanup). Differences are marked NOTE.
 */
import { compareQuantities, isPositive, parseQuantity, type Quantity } from '../api/shared/quantity.js';
import { controllerRef, deepEqual, groupKeyOf, isRecord, objectKeyOf, type Json, type KubeResource } from './objects.js';

import { MARIADB_API_VERSION } from '../render/shared/mariadb-operator-backup.js';

export { MARIADB_API_VERSION };

/** mariadb-operator's kinds the hooks create, and the Restore it creates itself for a MariaDB's bootstrapFrom. */
const KINDS = new Set(['MariaDB', 'Database', 'User', 'Grant', 'Backup', 'Restore']);

/** A Secret with this label (any value) is watched: a change to it reconciles the objects that use it. */
export const WATCH_LABEL = 'k8s.mariadb.com/watch';

/** `--requeue-sql`: every User and Grant is reconciled again this often, changed or not (10 hours). */
const REQUEUE_SQL_SECONDS = 10 * 3600;

export const isMariadbOperatorObject = (object: { readonly apiVersion: string; readonly kind: string }): boolean =>
  object.apiVersion === MARIADB_API_VERSION && KINDS.has(object.kind);

const at = (value: unknown, path: readonly string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

const textAt = (value: unknown, path: readonly string[]): string | undefined => {
  const found = at(value, path);
  return typeof found === 'string' && found !== '' ? found : undefined;
};

// --- The validating webhooks ----------------------------------------------------------------------------

/**
 * Go's zero values (absent, null, '', false, 0, empty maps and lists) are one value to the webhook, which
 * compares decoded structs. NOTE: a Go pointer field tells nil from a pointer to zero; none of the fields
 * the hooks render is set to a zero value, so the difference never shows here.
 */
const normalized = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalized);
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .map(([key, item]) => [key, normalized(item)] as const)
      .filter(([, item]) => item !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value === null || value === '' || value === false || value === 0 ? undefined : value;
};

const same = (a: unknown, b: unknown): boolean => deepEqual(normalized(a), normalized(b));

/**
 * A field tagged `inmutable` (never changes) or `inmutableinit` (cannot change once set). The webhook walks
 * the spec's structs and descends only into a struct set in both objects, so a rule on a nested field
 * applies only when every struct above it is set before and after.
 */
type ImmutableField = { readonly path: readonly string[]; readonly once?: true; readonly whenBothSet?: true };

const SQL_REFERENCE: ImmutableField = { path: ['spec', 'mariaDbRef'] };

/** The tagged fields of the kinds the hooks render (api/v1alpha1 at 26.6.0). */
const IMMUTABLE: Readonly<Record<string, readonly ImmutableField[]>> = {
  User: [SQL_REFERENCE, { path: ['spec', 'name'] }, { path: ['spec', 'host'] }],
  Grant: [
    SQL_REFERENCE,
    { path: ['spec', 'database'] },
    { path: ['spec', 'table'] },
    { path: ['spec', 'username'] },
    { path: ['spec', 'host'] },
    { path: ['spec', 'grantOption'] },
  ],
  Database: [SQL_REFERENCE, { path: ['spec', 'characterSet'] }, { path: ['spec', 'collate'] }, { path: ['spec', 'name'] }],
  Backup: [
    SQL_REFERENCE,
    { path: ['spec', 'storage'] },
    { path: ['spec', 'stagingStorage'] },
    { path: ['spec', 'maxRetention'], once: true },
    { path: ['spec', 'restartPolicy'] },
    // The Jobs' pod template (JobPodTemplate, inline): set where unset and removed are admitted, a change is
    // refused (seen on the real webhook: 'spec.priorityClassName' field is immutable).
    { path: ['spec', 'priorityClassName'], whenBothSet: true },
  ],
  Restore: [SQL_REFERENCE, { path: ['spec', 'backupRef'], once: true }, { path: ['spec', 's3'], once: true }, { path: ['spec', 'targetRecoveryTime'] }],
  // NOTE: the tagged fields of sections the hooks never render (metrics, replication, the Galera recovery and
  // agent settings, the Jobs' pod templates) are not listed.
  MariaDB: [
    { path: ['spec', 'bootstrapFrom', 'backupRef'], once: true },
    { path: ['spec', 'bootstrapFrom', 'backupContentType'], once: true },
    { path: ['spec', 'bootstrapFrom', 's3'], once: true },
    { path: ['spec', 'bootstrapFrom', 'volume'], once: true },
    { path: ['spec', 'bootstrapFrom', 'targetRecoveryTime'] },
    { path: ['spec', 'storage', 'storageClassName'] },
    { path: ['spec', 'storage', 'ephemeral'], once: true },
    { path: ['spec', 'affinity', 'antiAffinityEnabled'] },
    { path: ['spec', 'serviceAccountName'], once: true },
    { path: ['spec', 'rootPasswordSecretKeyRef'], once: true },
    { path: ['spec', 'rootEmptyPassword'], once: true },
    { path: ['spec', 'database'] },
    { path: ['spec', 'username'] },
    { path: ['spec', 'timeZone'] },
    { path: ['spec', 'connection'] },
    { path: ['spec', 'primaryConnection'] },
    { path: ['spec', 'secondaryConnection'] },
  ],
};

/** Whether the structs above a field are set (present: the ones the rules name are Go pointers, or never empty when valid). */
const structsSet = (object: unknown, path: readonly string[]): boolean => path.slice(1, -1).every((_, i) => isRecord(at(object, path.slice(0, i + 2))));

/** Whether a rule compares the field at all: `once` once it was set, `whenBothSet` only while it is set before and after. */
const compared = ({ path, once, whenBothSet }: ImmutableField, stored: KubeResource, updated: KubeResource): boolean => {
  const [before, after] = [normalized(at(stored, path)), normalized(at(updated, path))];
  if (whenBothSet === true) return before !== undefined && after !== undefined;
  return once !== true || before !== undefined;
};

const immutableProblems = (stored: KubeResource, updated: KubeResource): string[] =>
  (IMMUTABLE[stored.kind] ?? [])
    .filter(({ path }) => structsSet(stored, path) && structsSet(updated, path))
    .filter((field) => compared(field, stored, updated) && !same(at(stored, field.path), at(updated, field.path)))
    .map(({ path }) => `${path.join('.')}: Invalid value: ${JSON.stringify(at(updated, path) ?? null)}: field is immutable`);

const quantityAt = (value: unknown): Quantity | undefined => (typeof value === 'string' || typeof value === 'number' ? parseQuantity(value) : undefined);

/** The size the volumes are made with: the claim template's request first (the operator writes it), else `size`. */
const storageSize = (mariadb: unknown): { readonly text: unknown; readonly quantity: Quantity } | undefined => {
  for (const path of [
    ['spec', 'storage', 'volumeClaimTemplate', 'resources', 'requests', 'storage'],
    ['spec', 'storage', 'size'],
  ]) {
    const quantity = quantityAt(at(mariadb, path));
    if (quantity !== undefined) return { text: at(mariadb, path), quantity };
  }
  return undefined;
};

const isHighlyAvailable = (mariadb: unknown): boolean =>
  at(mariadb, ['spec', 'galera', 'enabled']) === true || at(mariadb, ['spec', 'replication', 'enabled']) === true;

/** The storage of a MariaDB, on create and update (Storage.Validate). */
const storageProblems = (mariadb: KubeResource): string[] => {
  const storage = at(mariadb, ['spec', 'storage']);
  const size = at(storage, ['size']);
  const template = at(storage, ['volumeClaimTemplate']);
  if (at(storage, ['ephemeral']) === true) {
    if (isHighlyAvailable(mariadb)) return ['spec.storage.ephemeral: Invalid value: true: a Galera or replicated MariaDB keeps its data on volumes only'];
    return size !== undefined || template !== undefined ? ['spec.storage: Invalid value: ephemeral with a size or a claim template: use one of them'] : [];
  }
  const quantity = quantityAt(size);
  if (quantity !== undefined && !isPositive(quantity)) return [`spec.storage.size: Invalid value: ${JSON.stringify(size)}: must be greater than zero`];
  if (size === undefined && template === undefined) return ['spec.storage: Required value: a size or a claim template'];
  const requested = quantityAt(at(template, ['resources', 'requests', 'storage']));
  if (quantity !== undefined && requested !== undefined && compareQuantities(quantity, requested) < 0) {
    return [
      `spec.storage.size: Invalid value: ${JSON.stringify(size)}: smaller than the claim template's ${JSON.stringify(at(template, ['resources', 'requests', 'storage']))}, and volumes never shrink`,
    ];
  }
  return [];
};

/** An update of a MariaDB: its storage never shrinks (the size of its volumes, GetSize). */
const shrinkProblems = (stored: KubeResource, updated: KubeResource): string[] => {
  const [before, after] = [storageSize(stored), storageSize(updated)];
  return before !== undefined && after !== undefined && compareQuantities(after.quantity, before.quantity) < 0
    ? [`spec.storage.size: Invalid value: ${JSON.stringify(after.text)}: smaller than the volumes' ${JSON.stringify(before.text)}, and volumes never shrink`]
    : [];
};

/** At most one way to give a User its password (validatePassword). */
const passwordProblems = (user: KubeResource): string[] => {
  const ways = [
    ['spec', 'passwordSecretKeyRef'],
    ['spec', 'passwordHashSecretKeyRef'],
    ['spec', 'passwordPlugin', 'pluginNameSecretKeyRef'],
  ].filter((path) => at(user, path) !== undefined);
  return ways.length > 1 ? [`spec.passwordSecretKeyRef: Invalid value: ${ways.map((w) => w.join('.')).join(', ')}: set only one of them`] : [];
};

/**
 * A Backup's schedule, on create and update: robfig/cron's parser with the five fields only (api/v1alpha1/
 * base_types.go, CronParser), which refuses a descriptor as the real webhook words it.
 */
const scheduleProblems = (backup: KubeResource): string[] => {
  const cron = at(backup, ['spec', 'schedule', 'cron']);
  return typeof cron === 'string' && cron.trim().startsWith('@') ? [`invalid Schedule: parser does not accept descriptors: ${cron.trim()}`] : [];
};

/**
 * Why mariadb-operator's validating webhook refuses a create (`stored` undefined) or an update of the main
 * resource, as the API server reports it (422 Invalid); undefined when it admits it or the object is not
 * one of its kinds. The status subresource is not validated: no webhook is registered for it.
 */
export const mariadbOperatorDenial = (stored: KubeResource | undefined, object: KubeResource): string | undefined => {
  if (!isMariadbOperatorObject(object)) return undefined;
  const problems = [
    ...(stored !== undefined ? immutableProblems(stored, object) : []),
    ...(object.kind === 'MariaDB' ? storageProblems(object) : []),
    ...(object.kind === 'MariaDB' && stored !== undefined ? shrinkProblems(stored, object) : []),
    ...(object.kind === 'User' ? passwordProblems(object) : []),
    ...(object.kind === 'Backup' ? scheduleProblems(object) : []),
  ];
  if (problems.length === 0) return undefined;
  return `admission webhook "v${object.kind.toLowerCase()}-v1alpha1.kb.io" denied the request: ${object.kind}.k8s.mariadb.com "${object.metadata.name}" is invalid: ${problems.join(', ')}`;
};

// --- The controllers ------------------------------------------------------------------------------------

/** The status mariadb-operator reports once it reconciled an object: Ready, and for a MariaDB its primary (pod 0) and replicas. */
export const mariadbOperatorReadyStatus = (object: KubeResource): Json => {
  const replicas = at(object, ['spec', 'replicas']);
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: object.kind === 'MariaDB' ? 'StatefulSetReady' : 'Created',
        message: object.kind === 'MariaDB' ? 'Running' : 'Created',
      },
    ],
    ...(object.kind === 'MariaDB' && {
      currentPrimary: `${object.metadata.name}-0`,
      currentPrimaryPodIndex: 0,
      replicas: typeof replicas === 'number' ? replicas : 1,
    }),
  };
};

/** The status of a Backup or Restore: its one condition, Complete (pkg/condition/complete.go). */
const completeStatus = (complete: boolean, reason: string, message: string): Json => ({
  conditions: [{ type: 'Complete', status: complete ? 'True' : 'False', reason, message }],
});

/** The status of a MariaDB while its bootstrap Restore runs (SetRestoringBackup). */
const restoringStatus = (): Json => ({
  conditions: [
    { type: 'Ready', status: 'False', reason: 'RestoreBackup', message: 'Restoring backup' },
    { type: 'BackupRestored', status: 'False', reason: 'RestoreBackup', message: 'Restoring backup' },
  ],
});

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const conditionOf = (object: KubeResource, type: string): Json | undefined =>
  listOf(at(object, ['status', 'conditions'])).find((c): c is Json => isRecord(c) && c['type'] === type);

const hasCondition = (object: KubeResource, type: string, status: string): boolean => conditionOf(object, type)?.['status'] === status;

/**
 * A status with its conditions' lastTransitionTime as meta.SetStatusCondition keeps it: the previous time while a
 * condition's status is unchanged, `now` when it changes.
 */
const transitioned = (object: KubeResource, status: Json, now: number): Json => ({
  ...status,
  conditions: listOf(status['conditions']).map((c) => {
    if (!isRecord(c)) return c;
    const before = listOf(at(object, ['status', 'conditions'])).find((p): p is Json => isRecord(p) && p['type'] === c['type']);
    const since = before !== undefined && before['status'] === c['status'] ? before['lastTransitionTime'] : undefined;
    return { ...c, lastTransitionTime: typeof since === 'string' ? since : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }),
});

/** The Job of a one-shot Backup or a Restore (BuildBackupJob, BuildRestoreJob): named as it, owned by it. NOTE: a placeholder pod. */
const jobOf = (owner: KubeResource): KubeResource => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: owner.metadata.name,
    namespace: owner.metadata.namespace ?? '',
    ownerReferences: [controllerRef(owner)],
  },
  spec: {
    backoffLimit: 5,
    template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'mariadb', image: 'docker-registry1.mariadb.com/library/mariadb' }] } },
  },
});

const jobConditionTrue = (job: KubeResource, type: string): boolean =>
  listOf(at(job, ['status', 'conditions'])).some((c) => isRecord(c) && c['type'] === type && c['status'] === 'True');

/** The Restore of a MariaDB's bootstrapFrom (BuildRestore): its source, owned by the MariaDB. */
const restoreOf = (mariadb: KubeResource): KubeResource => {
  const bootstrap = at(mariadb, ['spec', 'bootstrapFrom']);
  const source = Object.fromEntries(
    Object.entries(isRecord(bootstrap) ? bootstrap : {}).filter(([key]) => key !== 'backupContentType' && key !== 'restoreJob'),
  );
  return {
    apiVersion: MARIADB_API_VERSION,
    kind: 'Restore',
    metadata: {
      name: `${mariadb.metadata.name}-restore`,
      namespace: mariadb.metadata.namespace ?? '',
      ownerReferences: [controllerRef(mariadb)],
    },
    spec: { mariaDbRef: { name: mariadb.metadata.name }, ...source },
  };
};

/** The status of an object its controller failed to reconcile. NOTE: mariadb-operator words its reasons and messages its own way. */
const failedStatus = (message: string): Json => ({ conditions: [{ type: 'Ready', status: 'False', reason: 'Failed', message }] });

/**
 * The Services mariadb-operator makes for a Galera MariaDB (api/v1alpha1/mariadb_keys.go): `<name>` for
 * every ready node, `<name>-internal` (headless), `<name>-primary` and `<name>-secondary`, owned by the MariaDB.
 */
export const mariadbServices = (mariadb: KubeResource): KubeResource[] => {
  if (mariadb.apiVersion !== MARIADB_API_VERSION || mariadb.kind !== 'MariaDB' || mariadb.metadata.uid === undefined) return [];
  const name = mariadb.metadata.name;
  const owner = controllerRef(mariadb);
  return ['', '-internal', '-primary', '-secondary'].map((suffix) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${name}${suffix}`, namespace: mariadb.metadata.namespace ?? '', ownerReferences: [owner] },
    spec: {
      ...(suffix === '-internal' ? { clusterIP: 'None' } : { type: 'ClusterIP' }),
      selector: { 'app.kubernetes.io/instance': name, ...(suffix === '-primary' && { 'statefulset.kubernetes.io/pod-name': `${name}-0` }) },
      ports: [{ name: 'mariadb', port: 3306 }],
    },
  }));
};

/**
 * The storage the MariaDB controller writes into the spec (Storage.SetDefaults, part of setSpecDefaults):
 * a claim template with `size` and `storageClassName`, whenever they differ from it; undefined when there
 * is nothing to write. NOTE: its other spec defaults (image, probes, pod anti-affinity, ...) are not written.
 */
const storageDefaults = (mariadb: KubeResource): Json | undefined => {
  const storage = at(mariadb, ['spec', 'storage']);
  if (!isRecord(storage) || storage['ephemeral'] === true) return undefined;
  const size = storage['size'];
  const sizeQuantity = quantityAt(size);
  if (sizeQuantity === undefined) return undefined;
  const template = storage['volumeClaimTemplate'];
  const templateQuantity = quantityAt(at(template, ['resources', 'requests', 'storage']));
  const storageClass = textAt(storage, ['storageClassName']);
  const upToDate =
    templateQuantity !== undefined &&
    compareQuantities(sizeQuantity, templateQuantity) === 0 &&
    (storageClass === undefined || storageClass === textAt(template, ['storageClassName']));
  if (upToDate) return undefined;
  return {
    ...storage,
    volumeClaimTemplate: {
      resources: { requests: { storage: size } },
      accessModes: ['ReadWriteOnce'],
      ...(storageClass !== undefined && { storageClassName: storageClass }),
    },
  };
};

/** A SQL account of an emulated MariaDB: its password and what it was granted (`ALL PRIVILEGES ON ironic.*`). */
export type SqlAccount = { readonly password: string; readonly grants: readonly string[] };

/** What the stand-in remembers of a User or Grant it reconciled. */
type Seen = {
  readonly generation: number;
  /** The resourceVersion of the watched password Secret it read, if it is watched. */
  readonly secretVersion: string | undefined;
  readonly at: number;
  readonly failed: boolean;
  readonly cleanupPolicy: unknown;
  readonly mariadb: string;
  readonly account: string;
  readonly grant?: string;
};

/** The store the stand-in reads and writes: the in-memory API server (src/cli/store.ts). */
export type MariaDBOperatorStore = {
  get(group: string, key: string): KubeResource | undefined;
  list(group?: string): KubeResource[];
  create(object: KubeResource): KubeResource;
  update(object: KubeResource): KubeResource | undefined;
  updateStatus(object: KubeResource, status: unknown): KubeResource;
  delete(group: string, key: string): unknown;
};

const decoded = (secret: KubeResource | undefined, key: string): string | undefined => {
  const data = secret?.['data'];
  const value = isRecord(data) ? data[key] : undefined;
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
};

const accountOf = (name: string, host: string | undefined): string => `${name}@${host ?? '%'}`;

/**
 * mariadb-operator's controllers, one pass at a time (`reconcile`), with the SQL accounts of each MariaDB
 * they keep (`accounts`). A User is reconciled when it is new or its spec changed, when the Secret of its
 * password changed and carries the watch label, and every 10 hours; only then does its account take the
 * password of that Secret. A Grant needs its user's account. A User or Grant deleted with `cleanupPolicy:
 * Delete` (the default) drops its account or revokes its grant; with `Skip` they stay. NOTE: the operator
 * does that through a finalizer before the object goes; the stand-in notices once it is gone.
 */
export class MariaDBOperatorStandIn {
  readonly #accounts = new Map<string, Map<string, SqlAccount>>();
  readonly #seen = new Map<string, Seen>();

  /** The SQL accounts (`user@host`) of MariaDB `namespace/name`, as its server has them. */
  accounts(namespace: string, name: string): Record<string, SqlAccount> {
    return Object.fromEntries([...(this.#accounts.get(`${namespace}/${name}`) ?? new Map<string, SqlAccount>())].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** One pass of every controller over the store at `now`; returns how many objects it wrote. */
  reconcile(store: MariaDBOperatorStore, now: string): number {
    const objects = store.list().filter(isMariadbOperatorObject);
    this.#forget(objects);
    let writes = 0;
    for (const kind of ['MariaDB', 'Database', 'User', 'Grant', 'Backup', 'Restore']) {
      for (const object of objects.filter((o) => o.kind === kind && o.metadata.deletionTimestamp === undefined)) {
        // The current object: an earlier controller of this pass may have changed or deleted it (a bootstrap Restore).
        const current = store.get(groupKeyOf(object), objectKeyOf(object));
        if (current !== undefined) writes += this.#reconcileOne(store, current, Date.parse(now));
      }
    }
    return writes;
  }

  /** Users and Grants that are gone: their cleanup policy decides what happens to the account. */
  #forget(objects: readonly KubeResource[]): void {
    const present = new Set(objects.map((o) => o.metadata.uid ?? ''));
    for (const [uid, seen] of this.#seen) {
      if (present.has(uid)) continue;
      this.#seen.delete(uid);
      const accounts = this.#accounts.get(seen.mariadb);
      const account = accounts?.get(seen.account);
      if (accounts === undefined || account === undefined || (seen.cleanupPolicy ?? 'Delete') !== 'Delete') continue;
      if (seen.grant === undefined) accounts.delete(seen.account);
      else accounts.set(seen.account, { ...account, grants: account.grants.filter((g) => g !== seen.grant) });
    }
    const mariadbs = new Set(objects.filter((o) => o.kind === 'MariaDB').map(objectKeyOf));
    for (const key of this.#accounts.keys()) if (!mariadbs.has(key)) this.#accounts.delete(key);
  }

  #setStatus(store: MariaDBOperatorStore, object: KubeResource, status: Json): number {
    if (deepEqual(object['status'], status)) return 0;
    store.updateStatus(object, status);
    return 1;
  }

  #reconcileOne(store: MariaDBOperatorStore, object: KubeResource, now: number): number {
    switch (object.kind) {
      case 'MariaDB':
        return this.#reconcileMariaDB(store, object);
      case 'User':
        return this.#reconcileUser(store, object, now);
      case 'Grant':
        return this.#reconcileGrant(store, object, now);
      case 'Backup':
        // NOTE: the stand-in runs no CronJob: a scheduled Backup stays Scheduled (SetCompleteWithCronJob before a first run).
        if (isRecord(at(object, ['spec', 'schedule']))) return this.#setStatus(store, object, completeStatus(false, 'CronJobScheduled', 'Scheduled'));
        return this.#reconcileJobOf(store, object, now);
      case 'Restore':
        return this.#reconcileJobOf(store, object, now);
      default:
        return this.#setStatus(store, object, mariadbOperatorReadyStatus(object));
    }
  }

  /**
   * A one-shot Backup (a Backup without a schedule) or a Restore (BatchReconciler.reconcileJob, restore_controller.go):
   * its Job, named as it and owned by it, is created when missing (so deleting it deletes the Job, and a new one runs
   * a new Job), and its Complete condition follows the Job (SetCompleteWithJob): True
   * JobFailed, True JobComplete, else False JobRunning. The test plays the Job's pods (completeJob, failJob, or
   * settleWorkloads). NOTE: the Job runs no mariadb-dump nor restore; its pod template is a placeholder.
   */
  #reconcileJobOf(store: MariaDBOperatorStore, owner: KubeResource, now: number): number {
    const key = objectKeyOf(owner);
    const job = store.get('Job.batch/v1', key);
    if (job === undefined) {
      store.create(jobOf(owner));
      return 1 + this.#setStatus(store, owner, transitioned(owner, completeStatus(false, 'JobRunning', 'Running'), now));
    }
    const status = jobConditionTrue(job, 'Failed')
      ? completeStatus(true, 'JobFailed', 'Failed')
      : jobConditionTrue(job, 'Complete')
        ? completeStatus(true, 'JobComplete', 'Success')
        : completeStatus(false, 'JobRunning', 'Running');
    return this.#setStatus(store, owner, transitioned(owner, status, now));
  }

  /**
   * A MariaDB bootstrapped from a logical backup (reconcileRestore of mariadb_controller.go): once its nodes run,
   * it is Ready=False and BackupRestored=False while its Restore `<name>-restore` runs; once that is Complete, the
   * Restore is deleted and BackupRestored=True stays in the status. Undefined when there is nothing to restore
   * (no bootstrapFrom, or restored already).
   */
  #restoreStatus(store: MariaDBOperatorStore, mariadb: KubeResource): Json | undefined {
    if (!isRecord(at(mariadb, ['spec', 'bootstrapFrom'])) || hasCondition(mariadb, 'BackupRestored', 'True')) return undefined;
    const key = `${mariadb.metadata.namespace ?? ''}/${mariadb.metadata.name}-restore`;
    const restore = store.get(`Restore.${MARIADB_API_VERSION}`, key);
    if (restore === undefined) {
      store.create(restoreOf(mariadb));
      return restoringStatus();
    }
    // As upstream: a Restore whose Job failed is Complete=True too (JobFailed), and counts as done: it is deleted
    // (its Job with it) and the MariaDB reports BackupRestored=True, whatever the Job did.
    if (!hasCondition(restore, 'Complete', 'True')) return restoringStatus();
    store.delete(`Restore.${MARIADB_API_VERSION}`, key);
    return undefined;
  }

  #reconcileMariaDB(store: MariaDBOperatorStore, mariadb: KubeResource): number {
    let writes = 0;
    const storage = storageDefaults(mariadb);
    const current = storage === undefined ? mariadb : (store.update({ ...mariadb, spec: { ...(mariadb['spec'] as Json), storage } }) ?? mariadb);
    if (storage !== undefined) writes += 1;
    for (const service of mariadbServices(current)) {
      if (store.get(groupKeyOf(service), objectKeyOf(service)) !== undefined) continue;
      store.create(service);
      writes += 1;
    }
    if (!this.#accounts.has(objectKeyOf(current))) this.#accounts.set(objectKeyOf(current), new Map());
    const restoring = this.#restoreStatus(store, current);
    if (restoring !== undefined) return writes + 1 + this.#setStatus(store, current, restoring);
    const ready = mariadbOperatorReadyStatus(current);
    const restored = isRecord(at(current, ['spec', 'bootstrapFrom']))
      ? {
          ...ready,
          conditions: [...listOf(ready['conditions']), { type: 'BackupRestored', status: 'True', reason: 'RestoreBackup', message: 'Restored backup' }],
        }
      : ready;
    return writes + this.#setStatus(store, current, restored);
  }

  /** The MariaDB of a User or Grant (`mariaDbRef`, in its namespace), or undefined. */
  #mariadbOf(store: MariaDBOperatorStore, object: KubeResource): string | undefined {
    const name = textAt(object, ['spec', 'mariaDbRef', 'name']);
    const namespace = textAt(object, ['spec', 'mariaDbRef', 'namespace']) ?? object.metadata.namespace ?? '';
    return name !== undefined && store.get(`MariaDB.${MARIADB_API_VERSION}`, `${namespace}/${name}`) !== undefined ? `${namespace}/${name}` : undefined;
  }

  /** Whether a User or Grant is due: new, changed, its watched Secret changed, failed before, or the periodic requeue. */
  #due(object: KubeResource, secretVersion: string | undefined, now: number): boolean {
    const seen = this.#seen.get(object.metadata.uid ?? '');
    if (seen === undefined || seen.failed || seen.generation !== (object.metadata.generation ?? 1)) return true;
    return secretVersion !== seen.secretVersion || now - seen.at >= REQUEUE_SQL_SECONDS * 1000;
  }

  #remember(object: KubeResource, seen: Omit<Seen, 'generation' | 'cleanupPolicy'>): void {
    this.#seen.set(object.metadata.uid ?? '', { ...seen, generation: object.metadata.generation ?? 1, cleanupPolicy: at(object, ['spec', 'cleanupPolicy']) });
  }

  #reconcileUser(store: MariaDBOperatorStore, user: KubeResource, now: number): number {
    const namespace = user.metadata.namespace ?? '';
    const secretName = textAt(user, ['spec', 'passwordSecretKeyRef', 'name']);
    const secret = secretName === undefined ? undefined : store.get('Secret.v1', `${namespace}/${secretName}`);
    // Only a labelled Secret is watched (user_indexes.go): the version of another one is never looked at.
    const secretVersion = secret?.metadata.labels?.[WATCH_LABEL] !== undefined ? secret.metadata.resourceVersion : undefined;
    if (!this.#due(user, secretVersion, now)) return 0;
    const mariadb = this.#mariadbOf(store, user);
    const account = accountOf(textAt(user, ['spec', 'name']) ?? user.metadata.name, textAt(user, ['spec', 'host']));
    const password = decoded(secret, textAt(user, ['spec', 'passwordSecretKeyRef', 'key']) ?? '');
    const failure =
      mariadb === undefined
        ? 'MariaDB not found'
        : secretName !== undefined && password === undefined
          ? `error reading the password: Secret ${namespace}/${secretName} or its key not found`
          : undefined;
    this.#remember(user, { secretVersion, at: now, failed: failure !== undefined, mariadb: mariadb ?? '', account });
    if (failure !== undefined || mariadb === undefined) return this.#setStatus(store, user, failedStatus(failure ?? ''));
    const accounts = this.#accounts.get(mariadb) ?? new Map<string, SqlAccount>();
    accounts.set(account, { password: password ?? '', grants: accounts.get(account)?.grants ?? [] });
    this.#accounts.set(mariadb, accounts);
    return this.#setStatus(store, user, mariadbOperatorReadyStatus(user));
  }

  #reconcileGrant(store: MariaDBOperatorStore, grant: KubeResource, now: number): number {
    if (!this.#due(grant, undefined, now)) return 0;
    const mariadb = this.#mariadbOf(store, grant);
    const account = accountOf(textAt(grant, ['spec', 'username']) ?? '', textAt(grant, ['spec', 'host']));
    const privileges = at(grant, ['spec', 'privileges']);
    const granted = `${Array.isArray(privileges) ? privileges.join(', ') : ''} ON ${textAt(grant, ['spec', 'database']) ?? '*'}.${textAt(grant, ['spec', 'table']) ?? '*'}`;
    const accounts = mariadb === undefined ? undefined : this.#accounts.get(mariadb);
    const existing = accounts?.get(account);
    this.#remember(grant, { secretVersion: undefined, at: now, failed: existing === undefined, mariadb: mariadb ?? '', account, grant: granted });
    if (accounts === undefined || existing === undefined)
      return this.#setStatus(store, grant, failedStatus(mariadb === undefined ? 'MariaDB not found' : `user ${account} not found`));
    if (!existing.grants.includes(granted)) accounts.set(account, { ...existing, grants: [...existing.grants, granted] });
    return this.#setStatus(store, grant, mariadbOperatorReadyStatus(grant));
  }
}
