/**
 * The IronicImageCache hooks: adapters from the Metacontroller wire format to the pure plan
 * (src/render/image-cache/plan.ts).
 */
import { ironicImageCacheSpecReferences } from '../api/ironic-image-cache/references.js';
import type { CustomizeRequest, CustomizeResponse, SyncRequest, SyncResponse } from '../api/shared/hook.js';
import { finalizeCache, finishCache, prepareCache, wantedCacheChildren } from '../render/image-cache/plan.js';
import { imageCacheNames } from '../render/names.js';
import { usersRule } from '../render/used-by.js';
import type { HookContext } from './context.js';
import { viewOf } from './parent.js';
import { wire } from './wire.js';
import { referenceRules, withWanted } from './related.js';

/** customize: the serving certificate by name, and the Ironic objects of the namespace (to know who uses us). */
export const customizeIronicImageCache = (request: CustomizeRequest): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const referenced = [...referenceRules(ironicImageCacheSpecReferences(request.parent['spec']), namespace), usersRule(namespace)];
  return { relatedResources: withWanted(referenced, wantedCacheChildren(imageCacheNames(request.parent.metadata.name)), namespace) };
};

const answer = (request: SyncRequest, ctx: HookContext, finish: typeof finishCache): SyncResponse => {
  const view = viewOf(request, ctx.now());
  return wire(finish(view, prepareCache(view), ctx.config));
};

/** sync: the children and the status. */
export const syncIronicImageCache = (request: SyncRequest, ctx: HookContext): SyncResponse => answer(request, ctx, finishCache);

/** finalize: blocked while an Ironic uses the cache, then the children are deleted. */
export const finalizeIronicImageCache = (request: SyncRequest, ctx: HookContext): SyncResponse => answer(request, ctx, finalizeCache);
