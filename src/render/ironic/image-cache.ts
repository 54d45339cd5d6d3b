/**
 * The IronicImageCache an Ironic uses (spec.imageCacheName), resolved from the related objects: the URLs
 * its status publishes once it is ready.
 */
import { READY_CONDITION } from '../../api/common.js';
import { GROUP_KEYS, type ObjectMap } from '../../api/hook.js';
import { findObject, isRecord, pathOf, textOf } from '../observed.js';
import { findCondition, previousReady } from '../status.js';
import type { CachedAgentImages } from './input.js';

export type ImageCacheResult =
  | { readonly ok: true; readonly images?: CachedAgentImages }
  | { readonly ok: false; readonly kind: 'missing' | 'waiting'; readonly message: string };

/** The kernel and initramfs URLs of each architecture, as the cache's status lists them (default first). */
const publishedImages = (status: unknown): CachedAgentImages => {
  const list = pathOf(status, 'images');
  return (Array.isArray(list) ? list : []).flatMap((entry: unknown) => {
    if (!isRecord(entry)) return [];
    const [architecture, kernel, initramfs] = [textOf(entry['architecture']), textOf(entry['kernel']), textOf(entry['initramfs'])];
    return architecture !== undefined && kernel !== undefined && initramfs !== undefined ? [{ architecture, kernel, initramfs }] : [];
  });
};

/**
 * The images of the named cache once it is ready for its current spec (a status written for an older
 * generation may list URLs the new spec no longer serves); no cache named means nothing to resolve.
 */
export const resolveImageCache = (name: string | undefined, related: ObjectMap | null | undefined, namespace: string): ImageCacheResult => {
  if (name === undefined) return { ok: true };
  const cache = findObject(related, GROUP_KEYS.ironicImageCache, namespace, name);
  if (cache === undefined) {
    return { ok: false, kind: 'missing', message: `IronicImageCache ${namespace}/${name} named in spec.imageCacheName was not found: create it, or fix the name` };
  }
  if (cache.metadata.deletionTimestamp !== undefined) {
    return {
      ok: false,
      kind: 'waiting',
      message: `IronicImageCache ${namespace}/${name} is being deleted; it keeps serving while this Ironic uses it: delete this Ironic, or name another image cache`,
    };
  }
  const status = cache['status'];
  const images = publishedImages(status);
  if (previousReady(status)?.status !== 'True' || images.length === 0) {
    const why = textOf(findCondition(status, READY_CONDITION)?.message);
    return { ok: false, kind: 'waiting', message: `waiting for IronicImageCache ${namespace}/${name} to become ready${why !== undefined ? `: ${why}` : ''}` };
  }
  const generation = cache.metadata.generation;
  if (generation !== undefined && pathOf(status, 'observedGeneration') !== generation) {
    return {
      ok: false,
      kind: 'waiting',
      message: `waiting for IronicImageCache ${namespace}/${name} to become ready: its spec changed (generation ${generation}) and its status does not describe it yet`,
    };
  }
  return { ok: true, images };
};
