/**
 * An in-memory cluster with Metacontroller's part played for the CompositeControllers, one per parent
 * kind (src/cli/controllers.ts): for each parent, the finalizer, the children claimed (adopted and
 * released by their labels), customize (cached per uid and generation), the related objects, sync or
 * finalize in the v2 wire format, then the children applied as Metacontroller's dynamic apply does
 * (generateSelector label, selector check, create with ownerReference and last-applied annotation,
 * update per the child type's strategy, deletion of children left out) and the status written with
 * observedGeneration. A write the API server or an admission webhook refuses fails the sync (a SyncError
 * event, and a retry with backoff). Children and related objects are read from one informer cache, which
 * lags for the groups that are told to. Section 2 and 3 of docs on Metacontroller (v4.17.2); differences
 * are marked NOTE.
 */
import type { RelatedResourceRule } from '../api/shared/hook.js';
import { goJson } from './emulation/go-json.js';
import { applyUpdate, withLastApplied } from './apply.js';
import { CONTROLLERS, finalizerOf, type ControllerSpec, type UpdateStrategy } from './controllers.js';
import {
  controllerRef,
  deepEqual,
  describe,
  groupKeyOf,
  isRecord,
  isResource,
  objectKeyOf,
  type Json,
  type KubeResource,
  type OwnerReference,
} from './objects.js';
import { RelatedRuleError, resolveRelated } from './related.js';
import { ApiError, FOREGROUND_DELETION, ObjectStore, ORPHAN_DEPENDENTS, type Propagation } from './store.js';

/**
 * How a hook is reached: POST a JSON text to a path, get the status code and the parsed body. The text is
 * what Metacontroller sends (Go's encoding/json: keys sorted at every level, src/cli/emulation/go-json.ts).
 */
export type HookTransport = (path: string, body: string) => Promise<{ readonly statusCode: number; readonly body: unknown }>;

/** `adopt` and `release` are the ownerReference updates of claimChildren. */
export type WriteVerb = 'create' | 'update' | 'delete' | 'status' | 'finalizer' | 'adopt' | 'release';

/** One write to the cluster made for a parent, by Metacontroller or by the garbage collector. */
export type Write = {
  readonly round: number;
  readonly verb: WriteVerb;
  readonly object: string;
  readonly parent: string;
  readonly by: 'metacontroller' | 'garbage-collector';
};

export type SyncOutcome = {
  readonly parent: string;
  readonly hook: 'sync' | 'finalize';
  /**
   * Why the sync failed, if it did: before anything was applied (no child written, no status), or because
   * the API server or a webhook refused a child write (the other children applied and the status written,
   * as syncParentObject does).
   */
  readonly error?: string;
  /** The status the hook returned, with observedGeneration. */
  readonly status?: Json;
  /** The children the hook returned, with namespace and controller-uid label, in response order. */
  readonly desired: readonly KubeResource[];
  readonly resyncAfterSeconds?: number;
  readonly finalized?: boolean;
  readonly writes: readonly Write[];
  /** Children that differ from the desired form but are not updated (OnDelete), as `Kind ns/name`. */
  readonly pending: readonly string[];
  /**
   * Creates that collided with objects of someone else (AlreadyExists, which Metacontroller swallows). A
   * write the API server or a webhook refuses is no warning: it fails the sync (`error`).
   */
  readonly warnings: readonly string[];
};

/**
 * An event Metacontroller records on a parent: `Warning SyncError "Sync error: ..."` for every failed sync
 * (parentController.sync, pkg/controller/composite/controller.go, about line 612).
 */
export type ClusterEvent = {
  readonly round: number;
  readonly object: string;
  readonly type: 'Warning';
  readonly reason: 'SyncError';
  readonly message: string;
};

export type RoundResult = {
  readonly round: number;
  readonly syncs: readonly SyncOutcome[];
  readonly writes: readonly Write[];
  /**
   * Whether this round's informer cache showed every object as the store now has it: false while a lagging
   * group has news still to deliver (a round can be quiet only because the cache has not seen a change yet).
   */
  readonly cacheCurrent: boolean;
};

export type ClusterOptions = {
  readonly transport: HookTransport;
  readonly controllers?: readonly ControllerSpec[];
  /** RFC 3339 time for creationTimestamp and deletionTimestamp. */
  readonly clock?: () => string;
  /** What the API server stores for a status (e.g. with fields the CRD does not know pruned). */
  readonly storedStatus?: (parent: KubeResource, status: Json) => Json;
  /**
   * Why the API server (its schemas) or an admission webhook refuses a child write, one line each (empty
   * when it is admitted); `old` is the stored object on an update. A refusal fails the sync.
   */
  readonly admitChild?: (child: KubeResource, old?: KubeResource) => readonly string[];
  /**
   * Event-driven timing: a round syncs only the parents that are due (a change to the parent, a child or
   * a related object since the last sync, a failed last sync, the resync period or resyncAfterSeconds
   * elapsed), not every parent. Without it, every round syncs every parent.
   */
  readonly resyncPeriodSeconds?: number;
  /**
   * Groups (e.g. `Secret.v1`) whose informer cache lags: observed as they were a round earlier, as
   * children and as related objects alike (Metacontroller's shared informers serve both).
   */
  readonly laggingGroups?: readonly string[];
};

/** A failed sync: like Metacontroller, nothing is applied and the status is not written. */
export class SyncError extends Error {}

const CONTROLLER_UID = 'controller-uid';
/**
 * The work queue's per-item backoff after a failed sync: DefaultTypedControllerRateLimiter of client-go's
 * workqueue (5 ms doubling per failure up to 1000 s; a success forgets it), which parentController uses
 * (pkg/controller/composite/controller.go, newParentController, and processNextWorkItem's AddRateLimited).
 * NOTE: its overall token bucket (10 per second, burst 100) is not modelled.
 */
const BACKOFF_BASE_SECONDS = 0.005;
const BACKOFF_MAX_SECONDS = 1000;
const backoffSeconds = (failures: number): number => Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.max(0, failures - 1));
/** How long Metacontroller keeps a customize answer (per uid and generation). */
const CUSTOMIZE_CACHE_MS = 20 * 60 * 1000;
const RESPONSE_FIELDS = new Set(['status', 'children', 'resyncAfterSeconds', 'finalized']);
const RULE_FIELDS = new Set(['apiVersion', 'resource', 'labelSelector', 'namespaceSelector', 'namespace', 'names']);

type ObservedChildren = Record<string, Record<string, KubeResource>>;
type SyncResponse = { status: Json; children: KubeResource[]; resyncAfterSeconds?: number; finalized?: boolean };

/** The controller ownerReference of an object (metav1.GetControllerOf), if any. */
const controllerOf = (object: KubeResource): OwnerReference | undefined => (object.metadata.ownerReferences ?? []).find((r) => r.controller === true);

/** v2 strict parsing of a sync or finalize response. */
const parseSyncResponse = (body: unknown): SyncResponse => {
  if (!isRecord(body)) throw new SyncError('the response is not a JSON object');
  const unknown = Object.keys(body).filter((k) => !RESPONSE_FIELDS.has(k));
  if (unknown.length > 0) throw new SyncError(`strict validation failed for v2 webhookResponse: unknown field(s) ${unknown.join(', ')}`);
  const { status, children, resyncAfterSeconds, finalized } = body;
  if (status !== undefined && status !== null && !isRecord(status)) throw new SyncError('status must be an object');
  if (children !== undefined && children !== null && !Array.isArray(children)) throw new SyncError('children must be a list');
  const list = (children ?? []) as unknown[];
  const bad = list.findIndex((c) => !isResource(c));
  if (bad >= 0) throw new SyncError(`children[${bad}] needs apiVersion, kind and metadata.name`);
  if (resyncAfterSeconds !== undefined && typeof resyncAfterSeconds !== 'number') throw new SyncError('resyncAfterSeconds must be a number');
  if (finalized !== undefined && typeof finalized !== 'boolean') throw new SyncError('finalized must be a boolean');
  return {
    status: isRecord(status) ? status : {},
    children: list as KubeResource[],
    ...(resyncAfterSeconds !== undefined && { resyncAfterSeconds }),
    ...(finalized !== undefined && { finalized }),
  };
};

const parseCustomizeResponse = (body: unknown): RelatedResourceRule[] => {
  if (!isRecord(body) || Object.keys(body).some((k) => k !== 'relatedResources')) throw new SyncError('a customize response has only relatedResources');
  const rules = body['relatedResources'] ?? [];
  if (!Array.isArray(rules) || !rules.every((r) => isRecord(r) && typeof r['apiVersion'] === 'string' && typeof r['resource'] === 'string')) {
    throw new SyncError('relatedResources must be a list of rules with apiVersion and resource');
  }
  const extra = rules.flatMap((r: Json) => Object.keys(r).filter((k) => !RULE_FIELDS.has(k)));
  if (extra.length > 0) throw new SyncError(`unknown field(s) in relatedResources: ${extra.join(', ')}`);
  return rules as RelatedResourceRule[];
};

const gvkOf = (apiVersion: string, kind: string): readonly [string, string, string] => {
  const slash = apiVersion.lastIndexOf('/');
  return [slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), kind];
};

const compareGvk = (a: readonly [string, string, string], b: readonly [string, string, string]): number => {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return (a[i] ?? '') < (b[i] ?? '') ? -1 : 1;
  return 0;
};

/**
 * Metacontroller's order of child writes: ManageChildren (pkg/controller/common/manage_children.go) walks
 * UniformObjectMap.GetAllGVKs (pkg/controller/common/api/v2/common.go), sorted by group, then version,
 * then kind (so the core group, Secret and Service, comes before apps, batch, networking.k8s.io). NOTE:
 * within one type Go ranges over a map (random order); here by namespace/name.
 */
const byGvk = (children: readonly KubeResource[]): KubeResource[] =>
  [...children].sort(
    (a, b) =>
      compareGvk(gvkOf(a.apiVersion, a.kind), gvkOf(b.apiVersion, b.kind)) || (objectKeyOf(a) < objectKeyOf(b) ? -1 : objectKeyOf(a) > objectKeyOf(b) ? 1 : 0),
  );

/** Group keys (`Kind.apiVersion`) in GetAllGVKs order. */
const groupsByGvk = (groups: readonly string[]): string[] => {
  const split = (group: string): readonly [string, string, string] => {
    const dot = group.indexOf('.');
    return gvkOf(group.slice(dot + 1), group.slice(0, dot));
  };
  return [...groups].sort((a, b) => compareGvk(split(a), split(b)));
};

class WriteLog {
  readonly writes: Write[] = [];
  readonly pending: string[] = [];
  readonly warnings: string[] = [];
  constructor(
    private readonly round: number,
    private readonly parent: string,
  ) {}
  record(verb: WriteVerb, object: KubeResource, by: Write['by'] = 'metacontroller'): void {
    this.writes.push({ round: this.round, verb, object: describe(object), parent: this.parent, by });
  }
  removed(objects: readonly KubeResource[]): void {
    objects.forEach((o, i) => this.record('delete', o, i === 0 ? 'metacontroller' : 'garbage-collector'));
  }
}

export class Cluster {
  readonly store: ObjectStore;
  readonly #options: ClusterOptions;
  readonly #controllers: readonly ControllerSpec[];
  readonly #customized = new Map<string, { readonly rules: RelatedResourceRule[]; readonly at: number }>();
  readonly #clock: () => string;
  #round = 0;
  /** Objects of the lagging groups as the previous round began, and as the one before (what a lagging cache shows). */
  #previous: KubeResource[] = [];
  #lagging: KubeResource[] = [];
  readonly #lastSync = new Map<string, { readonly at: number; readonly fingerprint: string; readonly failures: number; readonly resyncAfter?: number }>();
  /** The SyncError events recorded on parents, oldest first. */
  readonly events: ClusterEvent[] = [];

  constructor(options: ClusterOptions) {
    this.#options = options;
    this.#controllers = options.controllers ?? CONTROLLERS;
    this.#clock = options.clock ?? (() => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    this.store = new ObjectStore(this.#clock);
  }

  /** Creates or updates an object the way `kubectl apply` would (spec only; status is a subresource). */
  put(object: KubeResource): KubeResource {
    const existing = this.store.get(groupKeyOf(object), objectKeyOf(object));
    return existing === undefined ? this.store.create(object) : (this.store.update(object) ?? existing);
  }

  /** `kubectl delete`: graceful when the object has finalizers. Returns the objects removed now. */
  remove(group: string, namespace: string, name: string, propagation: Propagation = 'Background'): KubeResource[] {
    return this.store.delete(group, `${namespace}/${name}`, propagation);
  }

  /** One pass of every controller over every parent (databases first). */
  async round(): Promise<RoundResult> {
    this.#round += 1;
    this.store.collectGarbage();
    this.#lagging = this.#previous;
    this.#previous = this.store.list().filter((o) => this.#options.laggingGroups?.includes(groupKeyOf(o)) === true);
    const syncs: SyncOutcome[] = [];
    for (const controller of this.#controllers) {
      for (const parent of this.store.list(controller.parentGroup)) {
        const current = this.store.get(controller.parentGroup, objectKeyOf(parent));
        if (current !== undefined && this.#due(controller, current)) syncs.push(await this.#timedSync(controller, current));
      }
    }
    const version = (o: KubeResource): string => `${groupKeyOf(o)} ${objectKeyOf(o)}@${o.metadata.resourceVersion ?? ''}`;
    const seen = this.#lagging.map(version).sort();
    const now = this.store
      .list()
      .filter((o) => this.#options.laggingGroups?.includes(groupKeyOf(o)) === true)
      .map(version)
      .sort();
    return { round: this.#round, syncs, writes: syncs.flatMap((s) => s.writes), cacheCurrent: deepEqual(seen, now) };
  }

  /** What a parent's sync would observe, as resource versions: a change is an event that enqueues it. */
  #fingerprint(controller: ControllerSpec, parent: KubeResource): string {
    const rules = this.#customized.get(`${parent.metadata.uid ?? ''} ${parent.metadata.generation ?? 0}`)?.rules ?? [];
    let related: string[] = [];
    try {
      related = Object.values(resolveRelated(rules, this.#informerCache())).flatMap((m) =>
        Object.values(m).map((o) => `${describe(o)}@${o.metadata.resourceVersion ?? ''}`),
      );
    } catch {
      related = ['unresolvable'];
    }
    const children = this.#candidates(controller, parent).map((o) => `${describe(o)}@${o.metadata.resourceVersion ?? ''}`);
    return JSON.stringify([parent.metadata.resourceVersion, children.sort(), related.sort()]);
  }

  #due(controller: ControllerSpec, parent: KubeResource): boolean {
    const period = this.#options.resyncPeriodSeconds;
    if (period === undefined) return true;
    const last = this.#lastSync.get(parent.metadata.uid ?? '');
    if (last === undefined) return true;
    const elapsed = (Date.parse(this.#clock()) - last.at) / 1000;
    // A failed sync is retried once its backoff has passed; an event enqueues it at once all the same.
    if (last.failures > 0 && elapsed >= backoffSeconds(last.failures)) return true;
    if (elapsed >= Math.max(1, period) || (last.resyncAfter !== undefined && elapsed >= last.resyncAfter)) return true;
    return this.#fingerprint(controller, parent) !== last.fingerprint;
  }

  async #timedSync(controller: ControllerSpec, parent: KubeResource): Promise<SyncOutcome> {
    const fingerprint = this.#options.resyncPeriodSeconds === undefined ? '' : this.#fingerprint(controller, parent);
    const outcome = await this.sync(controller, parent);
    const resyncAfter = outcome.resyncAfterSeconds !== undefined && outcome.resyncAfterSeconds > 0 ? outcome.resyncAfterSeconds : undefined;
    const uid = parent.metadata.uid ?? '';
    const failures = outcome.error === undefined ? 0 : (this.#lastSync.get(uid)?.failures ?? 0) + 1;
    this.#lastSync.set(uid, { at: Date.parse(this.#clock()), fingerprint, failures, ...(resyncAfter !== undefined && { resyncAfter }) });
    return outcome;
  }

  /**
   * syncParentObject for one parent; a failed sync records a SyncError event on it, as parentController.sync
   * does (pkg/controller/composite/controller.go, about line 612).
   */
  async sync(controller: ControllerSpec, given: KubeResource): Promise<SyncOutcome> {
    const outcome = await this.#syncParent(controller, given);
    if (outcome.error !== undefined)
      this.events.push({ round: this.#round, object: outcome.parent, type: 'Warning', reason: 'SyncError', message: `Sync error: ${outcome.error}` });
    return outcome;
  }

  async #syncParent(controller: ControllerSpec, given: KubeResource): Promise<SyncOutcome> {
    const log = new WriteLog(this.#round, describe(given));
    const parent = this.#syncFinalizer(controller, given, log);
    const hook = this.#shouldFinalize(controller, parent) ? 'finalize' : 'sync';
    const base = { parent: describe(parent), hook, writes: log.writes, pending: log.pending, warnings: log.warnings } as const;
    try {
      const observed = this.#claimChildren(controller, parent, log);
      // The related objects come from the same informer cache as the children (the shared informer
      // factory of customize.Manager, pkg/controller/common/customize/manager.go): neither is fresher.
      const related = resolveRelated(await this.#customize(controller, parent), this.#informerCache());
      const request = {
        controller: { metadata: { name: controller.name }, spec: {}, status: {} },
        parent,
        children: observed,
        related,
        finalizing: hook === 'finalize',
      };
      const response = parseSyncResponse(await this.#call(`${controller.hookPath}/${hook}`, request));
      return { ...base, ...this.#applyResponse(controller, parent, observed, response, log) };
    } catch (error) {
      if (!(error instanceof SyncError) && !(error instanceof RelatedRuleError)) throw error;
      return { ...base, desired: [], error: error.message };
    }
  }

  /**
   * What Metacontroller does with a response, in its order: the finalizer goes when finalized, the
   * children are checked (a bad one fails the sync), managed unless the parent is going away, and the
   * status is written.
   */
  #applyResponse(controller: ControllerSpec, parent: KubeResource, observed: ObservedChildren, response: SyncResponse, log: WriteLog) {
    const status = { ...response.status, observedGeneration: parent.metadata.generation ?? 0 };
    const extra = {
      ...(response.resyncAfterSeconds !== undefined && { resyncAfterSeconds: response.resyncAfterSeconds }),
      ...(response.finalized !== undefined && { finalized: response.finalized }),
    };
    const current = response.finalized === true ? this.#removeFinalizer(controller, parent, log) : parent;
    const desired = this.#desiredChildren(controller, parent, response.children);
    if (current === undefined) return { status, desired, ...extra };
    const failures = this.#managesChildren(controller, current) ? this.#manageChildren(controller, current, observed, desired, log) : [];
    this.#writeStatus(current, status, log);
    // As Metacontroller (syncParentObject, pkg/controller/composite/controller.go, about lines 717-745): a
    // failed child write is remembered, the status is written regardless, then the sync fails with
    // "can't reconcile children" (an event, and a retry with backoff).
    return { status, desired, ...extra, ...(failures.length > 0 && { error: `can't reconcile children for ${describe(current)}: ${failures.join('; ')}` }) };
  }

  /**
   * Whether the finalize hook is called: shouldCallFinalizeHook (pkg/controller/composite/hooks.go), a
   * finalize hook is declared and the parent is being deleted (finalizer or not).
   */
  #shouldFinalize(controller: ControllerSpec, parent: KubeResource): boolean {
    return controller.finalize && parent.metadata.deletionTimestamp !== undefined;
  }

  /**
   * Whether the children are managed, as syncParentObject (pkg/controller/composite/controller.go) decides:
   * `parent.GetDeletionTimestamp() == nil || pc.finalizer.ShouldFinalize(parent)`. Manager.ShouldFinalize
   * (pkg/controller/common/finalizer/finalizer.go) is false while the parent carries a garbage collector
   * finalizer (foregroundDeletion or orphan: "we'd be fighting the GC") and once Metacontroller's own
   * finalizer is gone (removed in this sync or earlier), true otherwise when a finalize hook is declared.
   */
  #managesChildren(controller: ControllerSpec, parent: KubeResource): boolean {
    if (parent.metadata.deletionTimestamp === undefined) return true;
    const finalizers = parent.metadata.finalizers ?? [];
    if (finalizers.includes(FOREGROUND_DELETION) || finalizers.includes(ORPHAN_DEPENDENTS)) return false;
    return controller.finalize && finalizers.includes(finalizerOf(controller));
  }

  /** Adds Metacontroller's finalizer to a live parent (or removes it when no finalize hook is declared). */
  #syncFinalizer(controller: ControllerSpec, parent: KubeResource, log: WriteLog): KubeResource {
    const finalizers = parent.metadata.finalizers ?? [];
    const name = finalizerOf(controller);
    const has = finalizers.includes(name);
    if (controller.finalize && !has && parent.metadata.deletionTimestamp === undefined) {
      this.store.setFinalizers(parent, [...finalizers, name]);
      log.record('finalizer', parent);
    } else if (!controller.finalize && has) {
      log.removed(
        this.store.setFinalizers(
          parent,
          finalizers.filter((f) => f !== name),
        ),
      );
      log.record('finalizer', parent);
    }
    return this.store.get(groupKeyOf(parent), objectKeyOf(parent)) ?? parent;
  }

  /** Removes the finalizer; returns the parent, or undefined when it is gone (it was being deleted). */
  #removeFinalizer(controller: ControllerSpec, parent: KubeResource, log: WriteLog): KubeResource | undefined {
    const finalizers = parent.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizerOf(controller))) return parent;
    const removed = this.store.setFinalizers(
      parent,
      finalizers.filter((f) => f !== finalizerOf(controller)),
    );
    log.record('finalizer', parent);
    log.removed(removed);
    return this.store.get(groupKeyOf(parent), objectKeyOf(parent));
  }

  /**
   * What Metacontroller's informers show: the store for the groups whose cache keeps up, the previous
   * round's snapshot for the lagging ones. Children, related objects and the events that enqueue a parent
   * are all read from it (one shared informer per type, pkg/dynamic/informer).
   */
  #informerCache(): KubeResource[] {
    const lagging = new Set(this.#options.laggingGroups ?? []);
    return [...this.store.list().filter((o) => !lagging.has(groupKeyOf(o))), ...this.#lagging];
  }

  /**
   * The children claimChildren considers (pkg/controller/composite/controller.go, about lines 826-858):
   * of each declared type, in the parent's namespace, those whose controller reference is the parent
   * (ListByOwnerUID) and the orphans without a controller reference (ListOrphans), from the informer cache.
   */
  #candidates(controller: ControllerSpec, parent: KubeResource): KubeResource[] {
    const uid = parent.metadata.uid ?? '';
    const groups = new Set(controller.childTypes.map((t) => t.group));
    const cached = this.#informerCache().filter((o) => groups.has(groupKeyOf(o)) && o.metadata.namespace === parent.metadata.namespace);
    return [
      ...cached.filter((o) => controllerOf(o)?.uid === uid),
      ...cached.filter((o) => controllerOf(o) === undefined && o.metadata.labels?.[CONTROLLER_UID] === uid),
    ];
  }

  /**
   * claimChildren: ClaimObject (pkg/third_party/kubernetes/controller_ref_manager.go, lines 62-115) for
   * each candidate, with the selector `controller-uid=<uid>` of generateSelector. Ours and matching: claimed.
   * Ours and no longer matching (its label removed or changed): released (its ownerReference to the parent
   * removed, releaseChild in pkg/dynamic/controllerref/unstructured.go), unless the parent is being deleted;
   * either way it is no longer a child, so it is neither updated nor deleted. An orphan that matches, while
   * neither it nor the parent is being deleted: adopted (adoptChild: an uncached read of the parent must
   * show it alive, then the controller ownerReference is added). A failed adoption or release fails the
   * sync ("can't claim ... children"), a vanished object is skipped. Every declared group is present (v2 keys).
   */
  #claimChildren(controller: ControllerSpec, parent: KubeResource, log: WriteLog): ObservedChildren {
    const out: ObservedChildren = Object.fromEntries(controller.childTypes.map((t) => [t.group, {}]));
    const uid = parent.metadata.uid ?? '';
    const deleting = parent.metadata.deletionTimestamp !== undefined;
    const failures: string[] = [];
    const claim = (child: KubeResource): void => {
      const group = out[groupKeyOf(child)];
      if (group !== undefined) group[objectKeyOf(child)] = child;
    };
    for (const child of this.#candidates(controller, parent)) {
      // The candidates are ours or orphans; orphans are candidates only when they match.
      const ours = controllerOf(child) !== undefined;
      const matches = child.metadata.labels?.[CONTROLLER_UID] === uid;
      try {
        if (ours && matches) claim(child);
        else if (ours && !deleting) this.#release(parent, child, log);
        else if (!ours && !deleting && child.metadata.deletionTimestamp === undefined) {
          this.#adopt(parent, child, log);
          // The cached object is what the hook sees (ClaimChildren returns it, not the updated one).
          claim(child);
        }
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code !== 404) failures.push(error.message);
      }
    }
    if (failures.length > 0) throw new SyncError(`can't claim children of ${describe(parent)}: ${failures.join('; ')}`);
    return out;
  }

  /**
   * adoptChild: an atomic update of the ownerReferences (GET, then PUT). NOTE: canAdopt's uncached re-read
   * of the parent (RecheckDeletionTimestamp) is not modelled: the parent a sync gets here is read fresh.
   */
  #adopt(parent: KubeResource, child: KubeResource, log: WriteLog): void {
    const current = this.store.get(groupKeyOf(child), objectKeyOf(child));
    if (current === undefined) throw new ApiError(404, `${describe(child)} not found`);
    // addOwnerReference (pkg/dynamic/controllerref/controller_ref.go): a reference with the parent's uid is replaced, else appended.
    const existing = current.metadata.ownerReferences ?? [];
    const refs = existing.some((r) => r.uid === parent.metadata.uid)
      ? existing.map((r) => (r.uid === parent.metadata.uid ? controllerRef(parent) : r))
      : [...existing, controllerRef(parent)];
    if (this.store.setOwnerReferences(current, refs) !== undefined) log.record('adopt', current);
  }

  /** releaseChild: an atomic update that removes every ownerReference with the parent's uid (removeOwnerReference). */
  #release(parent: KubeResource, child: KubeResource, log: WriteLog): void {
    const current = this.store.get(groupKeyOf(child), objectKeyOf(child));
    if (current === undefined) return;
    const refs = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== parent.metadata.uid);
    if (this.store.setOwnerReferences(current, refs) !== undefined) log.record('release', current);
  }

  /** customize, cached per (uid, generation) for 20 minutes as Metacontroller does: it must depend on the spec only. */
  async #customize(controller: ControllerSpec, parent: KubeResource): Promise<RelatedResourceRule[]> {
    const key = `${parent.metadata.uid ?? ''} ${parent.metadata.generation ?? 0}`;
    const now = Date.parse(this.#clock());
    const cached = this.#customized.get(key);
    if (cached !== undefined && now - cached.at < CUSTOMIZE_CACHE_MS) return cached.rules;
    const rules = parseCustomizeResponse(await this.#call(`${controller.hookPath}/customize`, { controller: { metadata: { name: controller.name } }, parent }));
    this.#customized.set(key, { rules, at: now });
    return rules;
  }

  async #call(path: string, body: unknown): Promise<unknown> {
    const response = await this.#options.transport(path, goJson(body));
    if (response.statusCode !== 200) throw new SyncError(`${path}: unsupported status code: ${response.statusCode} body: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  /**
   * The desired children as Metacontroller sees them: namespace defaulted, the controller-uid label
   * added, and the whole sync refused when a child's labels do not match the selector. NOTE: children of
   * an undeclared type, in another namespace, or listed twice also fail the sync here; Metacontroller
   * would create the first two without ever managing them, and keep the last duplicate.
   */
  #desiredChildren(controller: ControllerSpec, parent: KubeResource, children: readonly KubeResource[]): KubeResource[] {
    const seen = new Set<string>();
    return children.map((child) => {
      const desired = this.#checkedChild(controller, parent, child);
      const id = `${groupKeyOf(desired)} ${objectKeyOf(desired)}`;
      if (seen.has(id)) throw new SyncError(`${describe(desired)} is returned twice`);
      seen.add(id);
      return desired;
    });
  }

  #checkedChild(controller: ControllerSpec, parent: KubeResource, child: KubeResource): KubeResource {
    const namespace = parent.metadata.namespace;
    const uid = parent.metadata.uid ?? '';
    const labels = { ...(child.metadata.labels ?? {}) };
    labels[CONTROLLER_UID] ??= uid;
    const desired = { ...child, metadata: { ...child.metadata, ...(namespace !== undefined && { namespace: child.metadata.namespace ?? namespace }), labels } };
    if (labels[CONTROLLER_UID] !== uid) throw new SyncError(`labels on desired child ${describe(desired)} don't match parent selector controller-uid=${uid}`);
    if (!controller.childTypes.some((t) => t.group === groupKeyOf(desired)))
      throw new SyncError(`${describe(desired)}: ${groupKeyOf(desired)} is not a child type of CompositeController ${controller.name}`);
    if (desired.metadata.namespace !== namespace)
      throw new SyncError(`${describe(desired)}: a child must be in the namespace of its parent (${namespace ?? ''})`);
    return desired;
  }

  #strategy(controller: ControllerSpec, child: KubeResource): UpdateStrategy {
    return controller.childTypes.find((t) => t.group === groupKeyOf(child))?.strategy ?? 'OnDelete';
  }

  /** ManageChildren: delete what was left out, then create or update (by group, version, kind). Returns the writes the API server refused. */
  #manageChildren(controller: ControllerSpec, parent: KubeResource, observed: ObservedChildren, desired: readonly KubeResource[], log: WriteLog): string[] {
    const failures: string[] = [];
    const wanted = new Set(desired.map((d) => `${groupKeyOf(d)} ${objectKeyOf(d)}`));
    for (const group of groupsByGvk(Object.keys(observed))) {
      for (const [key, child] of Object.entries(observed[group] ?? {})) {
        if (child.metadata.deletionTimestamp === undefined && !wanted.has(`${group} ${key}`)) log.removed(this.store.delete(group, key));
      }
    }
    for (const child of byGvk(desired)) {
      const current = observed[groupKeyOf(child)]?.[objectKeyOf(child)];
      try {
        if (current === undefined) this.#create(parent, child, log);
        else this.#update(controller, current, child, log);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failures.push(error.message);
      }
    }
    return failures;
  }

  /**
   * The API server's admission of a child write: its schemas and the admission webhooks. A refusal is an
   * error that DynamicApply.Apply returns (pkg/controller/common/manage_children.go, about lines 594-604
   * and 626-632: only NotFound, Conflict and, on create, AlreadyExists are swallowed), so the sync fails.
   */
  #admit(verb: 'create' | 'update', child: KubeResource, old?: KubeResource): void {
    const problems = this.#options.admitChild?.(child, old) ?? [];
    // NOTE: one code for both (the API server answers 422 for its schemas, a webhook's denial has the webhook's code): only the message matters here.
    if (problems.length > 0) throw new ApiError(422, `can't ${verb} ${describe(child)}: ${problems.join('; ')}`);
  }

  #create(parent: KubeResource, child: KubeResource, log: WriteLog): void {
    const existing = this.store.get(groupKeyOf(child), objectKeyOf(child));
    // AlreadyExists: ignored by Metacontroller. Ours, and not yet in a lagging cache: nothing to say.
    if (existing !== undefined && (existing.metadata.ownerReferences ?? []).some((r) => r.uid === parent.metadata.uid)) return;
    if (existing !== undefined) {
      log.warnings.push(`${describe(child)} already exists and is not owned by ${describe(parent)}: left alone`);
      return;
    }
    const owned = withLastApplied(
      { ...child, metadata: { ...child.metadata, ownerReferences: [...(child.metadata.ownerReferences ?? []), controllerRef(parent)] } },
      child,
    );
    this.#admit('create', owned);
    this.store.create(owned);
    log.record('create', owned);
  }

  #update(controller: ControllerSpec, observed: KubeResource, desired: KubeResource, log: WriteLog): void {
    // DynamicApply.Apply (pkg/controller/common/manage_children.go): ApplyUpdate, then DeepEqual.
    const merged = applyUpdate(observed, desired);
    if (deepEqual(merged, observed) || observed.metadata.deletionTimestamp !== undefined) return;
    switch (this.#strategy(controller, observed)) {
      case 'OnDelete':
        log.pending.push(describe(observed));
        return;
      case 'Recreate':
        log.removed(this.store.delete(groupKeyOf(observed), objectKeyOf(observed)));
        return;
      case 'InPlace':
        // Metacontroller sends the update whenever the merge differs (reflect.DeepEqual), even when the
        // API server then stores nothing new (a value it normalises); a refused update throws.
        this.#admit('update', merged, this.store.get(groupKeyOf(observed), objectKeyOf(observed)));
        log.record('update', merged);
        this.store.update(merged);
    }
  }

  /** updateParentStatus: replaces the whole status when it differs from the stored one. */
  #writeStatus(parent: KubeResource, status: Json, log: WriteLog): void {
    const stored = this.store.get(groupKeyOf(parent), objectKeyOf(parent));
    if (stored === undefined || deepEqual(stored['status'], status)) return;
    this.store.updateStatus(stored, this.#options.storedStatus?.(stored, status) ?? status);
    log.record('status', stored);
  }
}
