/**
 * The decisions of the "used by Ironics" protocol (src/api/used-by.ts), the same for every kind that
 * Ironic objects name in their spec: who uses an object, the status that says so, and a finalize that
 * keeps everything running while an Ironic still uses it. A kind brings its `UsedBy` words, its sync plan
 * and its status; the protocol decides when to plan, what to delete and when to look again.
 */
import { IRONICS } from '../api/shared/resource-types.js';
import type { Condition } from '../api/shared/common.js';
import { GROUP_KEYS, type KubeObject, type RelatedResourceRule } from '../api/shared/hook.js';
import type { UsedBy } from '../api/used-by.js';
import type { KubeChild } from './child.js';
import { objectsOf, pathOf } from './observed.js';
import { countChildren, type ParentView } from './parent.js';
import { previousTrueTime } from './status.js';

/** The finalizer the API server sets for `kubectl delete --cascade=foreground`. */
const FOREGROUND_DELETION = 'foregroundDeletion';

/** How long to wait before looking again while a deletion is blocked or children remain. */
export const BLOCKED_RESYNC_SECONDS = 30;
export const DELETING_RESYNC_SECONDS = 5;

/** The condition a finalize reports while an Ironic still uses the object. */
export const DELETION_BLOCKED_CONDITION = 'DeletionBlocked';

/** The customize rule that brings the users: every Ironic of the namespace (an Ironic names objects of its own namespace only). */
export const usersRule = (namespace: string): RelatedResourceRule => ({ apiVersion: IRONICS.apiVersion, resource: IRONICS.resource, namespace });

/** Names of the Ironic objects of the view's namespace whose spec field (`usedBy.ironicField`) names this object, sorted. */
export const usersOf = (usedBy: UsedBy, view: Pick<ParentView, 'related' | 'namespace' | 'name'>): string[] =>
  objectsOf(view.related, GROUP_KEYS.ironic)
    .filter((o: KubeObject) => (o.metadata.namespace ?? view.namespace) === view.namespace && pathOf(o, 'spec', usedBy.ironicField) === view.name)
    .map((o) => o.metadata.name)
    .sort();

/** Who uses the object, and whether its deletion waits for them. */
export type Usage = { readonly usedBy: readonly string[]; readonly deletionBlocked: boolean };

/** The conditions the protocol adds after the kind's own: DeletionBlocked while a deletion waits for the users. */
export const usageConditions = (usedBy: UsedBy, usage: Usage, previousStatus: unknown, now: string): Condition[] =>
  usage.deletionBlocked
    ? [
        {
          type: DELETION_BLOCKED_CONDITION,
          status: 'True',
          reason: 'InUse',
          message: `deletion waits until no Ironic uses this ${usedBy.what}; still used by: ${usage.usedBy.join(', ')}`,
          lastTransitionTime: previousTrueTime(previousStatus, DELETION_BLOCKED_CONDITION) ?? now,
        },
      ]
    : [];

/** The `usedBy` status field: the users, omitted when there are none. */
export const usageStatus = (usage: Usage): { usedBy?: string[] } => (usage.usedBy.length > 0 ? { usedBy: [...usage.usedBy] } : {});

/** A sync's or finalize's answer before it is put on the wire. */
export type UsedSyncResult<Status> = {
  readonly status: Status;
  readonly children: KubeChild[];
  readonly resyncAfterSeconds?: number;
  readonly finalized?: boolean;
};

/** The outcome of a deletion, as the Ready condition reports it. */
export type DeletingOutcome = { readonly kind: 'deleting'; readonly message: string };

/** What a kind brings to the protocol: its words, its sync plan and its status. */
export type UsedKind<Outcome, Status> = {
  readonly usedBy: UsedBy;
  /** The children and the outcome of a sync: rendered, or the observed children kept (and why). */
  readonly plan: () => { readonly outcome: Outcome; readonly children: KubeChild[] };
  /** The status of an outcome (a deletion's included) for a usage. */
  readonly status: (outcome: Outcome | DeletingOutcome, usage: Usage) => Status;
};

/** sync: the kind's plan, and its status with the current users. */
export const syncUsed = <Outcome, Status>(view: ParentView, kind: UsedKind<Outcome, Status>): UsedSyncResult<Status> => {
  const { outcome, children } = kind.plan();
  return { status: kind.status(outcome, { usedBy: usersOf(kind.usedBy, view), deletionBlocked: false }), children };
};

/** ` although a, b still use it (...)` when foreground deletion goes ahead regardless of the users. */
const ignoredUsers = (usedBy: readonly string[], foreground: boolean): string =>
  foreground && usedBy.length > 0 ? ` although ${usedBy.join(', ')} still use it (deleted with foreground propagation, which does not wait for them)` : '';

/**
 * finalize: while an Ironic still names the object, keep everything running (the kind's plan), say who
 * blocks and look again in BLOCKED_RESYNC_SECONDS. Then delete the children and finish once they are gone.
 */
export const finalizeUsed = <Outcome, Status>(view: ParentView, kind: UsedKind<Outcome, Status>): UsedSyncResult<Status> => {
  const usedBy = usersOf(kind.usedBy, view);
  // Foreground deletion: the garbage collector deletes the children whatever this hook answers, so the
  // object cannot be kept for its users; say so instead of claiming it is kept.
  const foreground = view.finalizers.includes(FOREGROUND_DELETION);
  if (usedBy.length > 0 && !foreground) {
    const { outcome, children } = kind.plan();
    return { status: kind.status(outcome, { usedBy, deletionBlocked: true }), children, resyncAfterSeconds: BLOCKED_RESYNC_SECONDS };
  }
  const remaining = countChildren(view.children);
  const { what } = kind.usedBy;
  const users = ignoredUsers(usedBy, foreground);
  const message = remaining === 0 ? `the ${what} has been removed${users}` : `the ${what} is being deleted${users}: ${remaining} resources remain`;
  return {
    status: kind.status({ kind: 'deleting', message }, { usedBy, deletionBlocked: false }),
    children: [],
    ...(remaining > 0 && { resyncAfterSeconds: DELETING_RESYNC_SECONDS }),
    finalized: remaining === 0,
  };
};
