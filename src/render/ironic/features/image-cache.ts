/**
 * An IronicImageCache (spec.imageCacheName) in place of the pod's own IPA download: its URLs reach the containers through
 * the common variables (common-env.ts); the workload records which URLs it runs with, so that a refreshing
 * cache holds back only the Ironics that would get new ones (plan.ts).
 */
import type { IronicFeature } from '../feature.js';
import { AGENT_IMAGES_ANNOTATION, agentImagesHash } from '../image-cache.js';

export const IMAGE_CACHE: IronicFeature = {
  name: 'image-cache',
  order: 140,
  applies: (model) => model.ramdisk.imageCacheName !== undefined,
  workloadAnnotations: (input) =>
    input.references.imageCache !== undefined ? { [AGENT_IMAGES_ANNOTATION]: agentImagesHash(input.references.imageCache) } : {},
};
