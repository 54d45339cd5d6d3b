/** What a sync or finalize reads of its request, for every parent kind: the parent and the observed objects. */
import type { ObjectMap } from '../api/shared/hook.js';

export type ParentView = {
  readonly name: string;
  readonly namespace: string;
  /** The parent's uid: the controller ownerReference of its children carries it. */
  readonly uid: string | undefined;
  /** The parent's finalizers: `foregroundDeletion` means the garbage collector deletes the children now. */
  readonly finalizers: readonly string[];
  readonly generation: number | undefined;
  /** The parent's creationTimestamp (RFC 3339), when the request has it: a young parent's children may not be observed yet. */
  readonly created?: string;
  readonly spec: unknown;
  readonly status: unknown;
  /** The observed children (Metacontroller's `children`). */
  readonly children: ObjectMap | null | undefined;
  /** The objects customize asked for (Metacontroller's `related`). */
  readonly related: ObjectMap | null | undefined;
  /** The current time (RFC 3339), for a condition whose status changes and for cache grace periods. */
  readonly now: string;
};

/** How many children Metacontroller still observes (terminating ones included). */
export const countChildren = (children: ObjectMap | null | undefined): number =>
  Object.values(children ?? {}).reduce((n, group) => n + Object.keys(group ?? {}).length, 0);
