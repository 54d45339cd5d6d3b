/**
 * The API server and garbage collector of the in-memory cluster: objects by group and key, with the
 * metadata the server owns (uid, resourceVersion, generation, creationTimestamp), a few server defaults,
 * graceful deletion with finalizers, and background deletion of dependents. The pods a workload loses
 * (scaled down or deleted) are kept by the kubelet stand-in for their grace period.
 */
import { base64 } from '../render/meta.js';
import { podsInStatus, TerminatingPodLedger, type TerminatingPods } from './kubelet.js';
import { mariadbOperatorDenial } from './mariadb-operator.js';
import { duplicateKeyProblems, immutableFieldProblems, serverDefaulted } from './server-defaults.js';
import {
  deepCopy,
  deepEqual,
  groupKeyOf,
  isRecord,
  objectKeyOf,
  withoutNulls,
  type Json,
  type KubeResource,
  type Metadata,
  type OwnerReference,
} from './objects.js';

/** Core (`v1`) kinds have no metadata.generation; apps, batch, networking and custom resources do. */
const hasGeneration = (object: KubeResource): boolean => object.apiVersion !== 'v1';

/** Everything but metadata and status: a change here bumps metadata.generation. */
const specOf = (object: KubeResource): Json => {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return rest;
};

const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'finalizers', 'ownerReferences'] as const;

/** Secret stringData is write-only: the server folds it into data. */
const foldStringData = (object: KubeResource): KubeResource => {
  const stringData = object['stringData'];
  if (object.kind !== 'Secret' || !isRecord(stringData)) return object;
  const { stringData: _stringData, ...rest } = object;
  const data = { ...(isRecord(object['data']) ? object['data'] : {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = base64(String(value));
  return { ...rest, data };
};

/** A write the API server refuses: 409 AlreadyExists, 422 Invalid (an immutable field), 404 NotFound. */
export class ApiError extends Error {
  constructor(
    readonly code: 404 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}

/** How a deletion treats what the object owns (kubectl delete --cascade=background|foreground|orphan). */
export type Propagation = 'Background' | 'Foreground' | 'Orphan';

/** The finalizer the API server puts on an object deleted in the foreground, until its dependents are gone. */
export const FOREGROUND_DELETION = 'foregroundDeletion';

/** The finalizer of an object deleted with orphan propagation, until its dependents are orphaned. */
export const ORPHAN_DEPENDENTS = 'orphan';

export class ObjectStore {
  readonly #objects = new Map<string, KubeResource>();
  readonly #clock: () => string;
  #resourceVersion = 0;
  #uids = 0;
  #clusterIPs = 0;
  readonly #terminating = new TerminatingPodLedger();

  constructor(clock: () => string) {
    this.#clock = clock;
  }

  /** Increases with every write: a caller can tell whether anything changed since it last looked. */
  get resourceVersion(): number {
    return this.#resourceVersion;
  }

  get(group: string, key: string): KubeResource | undefined {
    const found = this.#objects.get(`${group} ${key}`);
    return found === undefined ? undefined : deepCopy(found);
  }

  /** Every object, or those of one group, in creation order. */
  list(group?: string): KubeResource[] {
    return [...this.#objects.values()].filter((o) => group === undefined || groupKeyOf(o) === group).map(deepCopy);
  }

  /** Objects whose controller ownerReference points at the given uid. */
  ownedBy(uid: string): KubeResource[] {
    return this.list().filter((o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.controller === true));
  }

  /** Pods of scaled-down or deleted workloads still in their termination grace period, by the store's clock. */
  terminatingPods(): TerminatingPods[] {
    return this.#terminating.at(this.#clock());
  }

  /** 422 when the object repeats a key the API server wants unique (container names, volume names, ...). */
  #validate(object: KubeResource): void {
    const problems = duplicateKeyProblems(object);
    if (problems.length > 0) throw new ApiError(422, `${object.kind} ${objectKeyOf(object)} is invalid: ${problems.join('; ')}`);
  }

  /** 422 when a validating admission webhook refuses the write (mariadb-operator's, for its kinds). */
  #admit(stored: KubeResource | undefined, object: KubeResource): void {
    const denial = mariadbOperatorDenial(stored, object);
    if (denial !== undefined) throw new ApiError(422, denial);
  }

  #nextVersion(): string {
    this.#resourceVersion += 1;
    return String(this.#resourceVersion);
  }

  #nextUid(): string {
    this.#uids += 1;
    return `00000000-0000-4000-8000-${this.#uids.toString(16).padStart(12, '0')}`;
  }

  #defaults(object: KubeResource): KubeResource {
    const clean = serverDefaulted(foldStringData(withoutNulls(object)));
    const spec = clean['spec'];
    if (clean.kind !== 'Service' || !isRecord(spec) || spec['type'] === 'ExternalName' || spec['clusterIP'] !== undefined) return clean;
    this.#clusterIPs += 1;
    const ip = `10.96.${Math.floor(this.#clusterIPs / 250)}.${(this.#clusterIPs % 250) + 1}`;
    return { ...clean, spec: { ...spec, clusterIP: ip, clusterIPs: [ip] } };
  }

  #save(object: KubeResource): KubeResource {
    this.#objects.set(`${groupKeyOf(object)} ${objectKeyOf(object)}`, deepCopy(object));
    return deepCopy(object);
  }

  /** Creates an object; throws when it exists. */
  create(object: KubeResource): KubeResource {
    if (this.get(groupKeyOf(object), objectKeyOf(object)) !== undefined) throw new ApiError(409, `${object.kind} ${objectKeyOf(object)} already exists`);
    const defaulted = this.#defaults(object);
    this.#validate(defaulted);
    this.#admit(undefined, defaulted);
    const metadata: Metadata = {
      ...defaulted.metadata,
      uid: this.#nextUid(),
      resourceVersion: this.#nextVersion(),
      creationTimestamp: this.#clock(),
      ...(hasGeneration(defaulted) && { generation: 1 }),
    };
    const { status: _status, ...rest } = defaulted;
    return this.#save({ ...rest, metadata });
  }

  /**
   * Replaces an object (an update through the main resource): server metadata and status are kept from
   * the stored object, generation moves when anything but metadata changed. Returns undefined when
   * nothing changed (no write).
   */
  update(object: KubeResource): KubeResource | undefined {
    const stored = this.get(groupKeyOf(object), objectKeyOf(object));
    if (stored === undefined) throw new Error(`${object.kind} ${objectKeyOf(object)} does not exist`);
    const defaulted = this.#defaults(object);
    this.#validate(defaulted);
    const metadata: Json = { ...defaulted.metadata };
    for (const field of SERVER_METADATA) {
      if (field === 'finalizers' || field === 'ownerReferences') {
        if (metadata[field] === undefined && stored.metadata[field] !== undefined) metadata[field] = stored.metadata[field];
      } else if (stored.metadata[field] === undefined) Reflect.deleteProperty(metadata, field);
      else metadata[field] = stored.metadata[field];
    }
    const { status: _status, ...rest } = defaulted;
    const candidate = { ...rest, metadata: metadata as Metadata, ...(stored['status'] !== undefined && { status: stored['status'] }) } as KubeResource;
    const immutable = immutableFieldProblems(stored, candidate);
    if (immutable.length > 0) throw new ApiError(422, `${object.kind} ${objectKeyOf(object)} is invalid: ${immutable.join('; ')}`);
    if (deepEqual(candidate, stored)) return undefined;
    this.#admit(stored, candidate);
    const generation = stored.metadata.generation;
    const bumped = generation !== undefined && !deepEqual(specOf(candidate), specOf(stored)) ? generation + 1 : generation;
    return this.#save({
      ...candidate,
      metadata: { ...candidate.metadata, resourceVersion: this.#nextVersion(), ...(bumped !== undefined && { generation: bumped }) },
    });
  }

  /** Writes the status subresource. */
  updateStatus(object: KubeResource, status: unknown): KubeResource {
    const stored = this.get(groupKeyOf(object), objectKeyOf(object));
    if (stored === undefined) throw new Error(`${object.kind} ${objectKeyOf(object)} does not exist`);
    const updated = this.#save({ ...stored, metadata: { ...stored.metadata, resourceVersion: this.#nextVersion() }, status: withoutNulls(status) });
    this.#terminating.record(stored, podsInStatus(stored), podsInStatus(updated), this.#clock());
    return updated;
  }

  /** Sets or removes metadata.finalizers; an object being deleted goes away with its last finalizer. */
  setFinalizers(object: KubeResource, finalizers: readonly string[]): KubeResource[] {
    const stored = this.get(groupKeyOf(object), objectKeyOf(object));
    if (stored === undefined) return [];
    const { finalizers: _old, ...metadata } = stored.metadata;
    const updated = {
      ...stored,
      metadata: { ...metadata, ...(finalizers.length > 0 && { finalizers: [...finalizers] }), resourceVersion: this.#nextVersion() },
    };
    this.#save(updated);
    return updated.metadata.deletionTimestamp !== undefined && finalizers.length === 0 ? this.#remove(updated) : [];
  }

  /**
   * Sets metadata.ownerReferences (an update through the main resource that changes nothing else, as
   * Metacontroller's adopt and release do). Returns the stored object, or undefined when nothing changed:
   * the API server writes nothing for an update that changes nothing (the resourceVersion stays).
   */
  setOwnerReferences(object: KubeResource, ownerReferences: readonly OwnerReference[]): KubeResource | undefined {
    const stored = this.get(groupKeyOf(object), objectKeyOf(object));
    if (stored === undefined) throw new ApiError(404, `${object.kind} ${objectKeyOf(object)} not found`);
    if (deepEqual(stored.metadata.ownerReferences ?? [], ownerReferences)) return undefined;
    const { ownerReferences: _old, ...metadata } = stored.metadata;
    return this.#save({
      ...stored,
      metadata: { ...metadata, ...(ownerReferences.length > 0 && { ownerReferences: [...ownerReferences] }), resourceVersion: this.#nextVersion() },
    });
  }

  /**
   * Deletes an object: with finalizers it only gets a deletionTimestamp (and, as the API server does, a
   * new generation); otherwise it is removed with everything it owns. Returns the removed objects.
   */
  delete(group: string, key: string, propagation: Propagation = 'Background'): KubeResource[] {
    const stored = this.get(group, key);
    if (stored === undefined) return [];
    if (propagation === 'Orphan') this.#orphanDependents(stored);
    if (propagation === 'Foreground' && this.#dependents(stored).length > 0) return this.#deleteInForeground(stored);
    if ((stored.metadata.finalizers ?? []).length === 0) return this.#remove(stored);
    if (stored.metadata.deletionTimestamp === undefined) this.#markDeleted(stored, stored.metadata.finalizers ?? []);
    return [];
  }

  #markDeleted(stored: KubeResource, finalizers: readonly string[]): void {
    const generation = stored.metadata.generation;
    this.#save({
      ...stored,
      metadata: {
        ...stored.metadata,
        finalizers: [...finalizers],
        deletionTimestamp: stored.metadata.deletionTimestamp ?? this.#clock(),
        resourceVersion: this.#nextVersion(),
        ...(generation !== undefined && stored.metadata.deletionTimestamp === undefined && { generation: generation + 1 }),
      },
    });
  }

  /** Foreground: the object waits (finalizer foregroundDeletion) while the garbage collector deletes its dependents. */
  #deleteInForeground(stored: KubeResource): KubeResource[] {
    const finalizers = stored.metadata.finalizers ?? [];
    this.#markDeleted(stored, finalizers.includes(FOREGROUND_DELETION) ? finalizers : [FOREGROUND_DELETION, ...finalizers]);
    return this.#dependents(stored).flatMap((d) => this.delete(groupKeyOf(d), objectKeyOf(d)));
  }

  /** Orphan: the dependents lose their ownerReference to the object and keep everything else (labels too). */
  #orphanDependents(stored: KubeResource): void {
    const uid = stored.metadata.uid;
    for (const dependent of this.#dependents(stored)) {
      const ownerReferences = (dependent.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const { ownerReferences: _old, ...metadata } = dependent.metadata;
      this.#save({ ...dependent, metadata: { ...metadata, ...(ownerReferences.length > 0 && { ownerReferences }), resourceVersion: this.#nextVersion() } });
    }
  }

  #dependents(object: KubeResource): KubeResource[] {
    const uid = object.metadata.uid;
    return uid === undefined ? [] : this.list().filter((o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid));
  }

  /**
   * One pass of the garbage collector: an object deleted in the foreground whose dependents are gone loses
   * its foregroundDeletion finalizer (and goes, with no other finalizer). Returns the objects removed.
   */
  collectGarbage(): KubeResource[] {
    const waiting = this.list().filter((o) => o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).includes(FOREGROUND_DELETION));
    return waiting
      .filter((o) => this.#dependents(o).length === 0)
      .flatMap((o) =>
        this.setFinalizers(
          o,
          (o.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_DELETION),
        ),
      );
  }

  /** Removes an object, then (background propagation) its dependents. */
  #remove(object: KubeResource): KubeResource[] {
    this.#objects.delete(`${groupKeyOf(object)} ${objectKeyOf(object)}`);
    this.#nextVersion();
    // Its pods go after it (background propagation) and run out their grace period.
    this.#terminating.record(object, podsInStatus(object), 0, this.#clock());
    const uid = object.metadata.uid;
    const dependents = uid === undefined ? [] : this.ownedBy(uid);
    return [object, ...dependents.flatMap((d) => this.delete(groupKeyOf(d), objectKeyOf(d)))];
  }
}
