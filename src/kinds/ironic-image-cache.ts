/** The IronicImageCache parent kind: the IPA kernel and initramfs, downloaded once and served to Ironics. */
import { IMAGE_CACHE_USED_BY, IronicImageCacheSpec, IronicImageCacheStatus } from '../api/ironic-image-cache/schema.js';
import { ageColumn, readyColumns } from '../crd/crd.js';
import { customizeIronicImageCache, finalizeIronicImageCache, syncIronicImageCache } from '../hooks/ironic-image-cache.js';
import { children, parentIdentity, type ParentKind } from './descriptor.js';
import { CONFIG_MAPS, IRONIC_IMAGE_CACHES, SERVICES, STATEFUL_SETS } from '../api/shared/resource-types.js';

/** IronicImageCache: its httpd configuration, the StatefulSet that downloads and serves IPA, and its Service. */
export const IRONIC_IMAGE_CACHE: ParentKind<'IronicImageCache'> = {
  ...parentIdentity(IRONIC_IMAGE_CACHES),
  hookPath: 'ironicimagecache',
  spec: IronicImageCacheSpec,
  status: IronicImageCacheStatus,
  crd: {
    description:
      'The IPA (ironic-python-agent) kernel and initramfs, downloaded once into a volume and served over HTTP(S). Ironic objects use it through spec.imageCacheName.',
    // The StatefulSet `<name>-ipa-cache` labels its pods with `<statefulset>-<hash>`, which must fit 63 characters.
    rules: [
      {
        rule: 'size(self.metadata.name) <= 42',
        message: 'the name of an IronicImageCache is at most 42 characters (its StatefulSet name must fit pod labels)',
      },
    ],
    columns: [
      ...readyColumns,
      { name: 'Branch', type: 'string', jsonPath: '.status.agentBranch', description: 'The IPA branch being served', priority: 1 },
      ageColumn,
    ],
  },
  hooks: { customize: customizeIronicImageCache, sync: syncIronicImageCache, finalize: finalizeIronicImageCache },
  childTypes: children(CONFIG_MAPS, STATEFUL_SETS, SERVICES),
  controllerName: 'ironicimagecache',
  metricLabel: 'IronicImageCache',
  // With the databases, before the Ironics that read its status in the same round.
  syncOrder: 2,
  usedBy: IMAGE_CACHE_USED_BY,
};
