/** What the sync and finalize hooks read from the parent of a request. */
import type { ObjectMap, SyncRequest } from '../api/hook.js';

export type Parent = {
  readonly name: string;
  readonly namespace: string;
  readonly generation: number | undefined;
  readonly spec: unknown;
  readonly status: unknown;
};

export const parentOf = (request: SyncRequest): Parent => ({
  name: request.parent.metadata.name,
  namespace: request.parent.metadata.namespace ?? '',
  generation: request.parent.metadata.generation,
  spec: request.parent['spec'] ?? {},
  status: request.parent['status'],
});

/** How many children Metacontroller still observes (terminating ones included). */
export const countChildren = (children: ObjectMap | null | undefined): number =>
  Object.values(children ?? {}).reduce((n, group) => n + Object.keys(group ?? {}).length, 0);
