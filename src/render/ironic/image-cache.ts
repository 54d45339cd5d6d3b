/**
 * The IronicImageCache an Ironic uses (spec.imageCacheName), resolved from the related objects: the URLs
 * its status publishes once it is ready.
 */
import { READY_CONDITION } from '../../api/shared/common.js';
import { GROUP_KEYS, type ObjectMap } from '../../api/shared/hook.js';
import { contentHash } from '../meta.js';
import { findObject, isRecord, pathOf, textOf } from '../observed.js';
import { findCondition, previousReady } from '../status.js';
import type { CachedAgentImages } from './input.js';

export type ImageCacheResult =
  | { readonly ok: true; readonly images?: CachedAgentImages }
  | {
      readonly ok: false;
      readonly kind: 'missing' | 'waiting';
      readonly message: string;
      /** While a cache that exists refreshes: the URLs its status lists, which an Ironic already using them may keep. */
      readonly published?: CachedAgentImages;
    };

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
    return {
      ok: false,
      kind: 'missing',
      message: `IronicImageCache ${namespace}/${name} named in spec.imageCacheName was not found: create it, or fix the name`,
    };
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
  const published = images.length > 0 ? { published: images } : {};
  if (previousReady(status)?.status !== 'True' || images.length === 0) {
    const why = textOf(findCondition(status, READY_CONDITION)?.message);
    return {
      ok: false,
      kind: 'waiting',
      message: `waiting for IronicImageCache ${namespace}/${name} to become ready${why !== undefined ? `: ${why}` : ''}`,
      ...published,
    };
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

/** The value of DEPLOY_KERNEL_BY_ARCH or DEPLOY_RAMDISK_BY_ARCH for a cache's images: `arch:url` joined with commas. */
export const byArch = (images: CachedAgentImages, file: 'kernel' | 'initramfs'): string => images.map((i) => `${i.architecture}:${i[file]}`).join(',');

/**
 * The annotation of the Ironic workload object (not of its pods, so it rolls nothing) that records which
 * cache URLs its pods run with: a hash of every architecture's kernel and initramfs URL.
 */
export const AGENT_IMAGES_ANNOTATION = 'ironic.metal3.io/agent-images';

/** The value of AGENT_IMAGES_ANNOTATION for a cache's images. */
export const agentImagesHash = (images: CachedAgentImages): string => contentHash(images.map((i) => [i.architecture, i.kernel, i.initramfs]));

/**
 * Whether an observed Ironic workload already runs with exactly these cache URLs (by the annotation it was
 * rendered with). Such an Ironic does not wait while its cache refreshes: the URLs stay, and the cache
 * serves them again once its new pod is ready.
 */
export const workloadUsesImages = (workload: unknown, images: CachedAgentImages): boolean =>
  pathOf(workload, 'metadata', 'annotations', AGENT_IMAGES_ANNOTATION) === agentImagesHash(images);
