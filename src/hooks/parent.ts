/** From a hook request to the view of its parent that the plans read. */
import type { SyncRequest } from '../api/hook.js';
import type { ParentView } from '../render/parent.js';

export const viewOf = (request: SyncRequest, now: string): ParentView => ({
  name: request.parent.metadata.name,
  namespace: request.parent.metadata.namespace ?? '',
  uid: request.parent.metadata.uid,
  generation: request.parent.metadata.generation,
  spec: request.parent['spec'] ?? {},
  status: request.parent['status'],
  children: request.children,
  related: request.related,
  now,
});
