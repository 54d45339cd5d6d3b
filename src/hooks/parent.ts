/** From a hook request to the view of its parent that the plans read. */
import type { SyncRequest } from '../api/shared/hook.js';
import { pathOf } from '../render/observed.js';
import type { ParentView } from '../render/parent.js';

const finalizersOf = (request: SyncRequest): string[] => {
  const list = pathOf(request.parent, 'metadata', 'finalizers');
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
};

/** The parent's creationTimestamp, as a view field when the request has one. */
const createdOf = (request: SyncRequest): { created?: string } => {
  const created = pathOf(request.parent, 'metadata', 'creationTimestamp');
  return typeof created === 'string' ? { created } : {};
};

export const viewOf = (request: SyncRequest, now: string): ParentView => ({
  name: request.parent.metadata.name,
  namespace: request.parent.metadata.namespace ?? '',
  uid: request.parent.metadata.uid,
  finalizers: finalizersOf(request),
  generation: request.parent.metadata.generation,
  ...createdOf(request),
  spec: request.parent['spec'] ?? {},
  status: request.parent['status'],
  children: request.children,
  related: request.related,
  now,
});
