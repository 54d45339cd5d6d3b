/**
 * The parsed, fully defaulted model of an IronicImageCache (`parseIronicImageCache` is its only producer).
 */
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import type { VolumeStorageModel } from '../shared/model.js';

/**
 * The defaults get-resource.sh of the IPA downloader gives IPA_BASEURI, IPA_BRANCH and IPA_FLAVOR; its
 * tarball is `<IPA_BASEURI>/<IPA_FILENAME>`, by default `ipa-<flavor>-<branch with / as ->.tar.gz`.
 */
export const DOWNLOADER_DEFAULTS = { baseURI: 'https://tarballs.opendev.org/openstack/ironic-python-agent/dib', branch: 'master', flavor: 'centos9' } as const;

/** One architecture an IronicImageCache downloads: IPA_ARCH, and the tarball name when not the default. */
export type CacheArchitectureModel = { readonly name: string; readonly filename?: string };

export type IronicImageCacheModel = {
  readonly agentBranch?: string;
  readonly agentDownloadURL?: string;
  readonly agentDownloaderImage?: string;
  /** RFC 3339, as given. */
  readonly agentMinimumModificationTime?: string;
  /** At least one; the first is the default for hosts of an unknown architecture. */
  readonly architectures: readonly CacheArchitectureModel[];
  /** The spec's proxy, field by field (each wins over the hook server's); noProxy split into entries. */
  readonly proxy: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy: readonly string[] };
  /** Storage of the images. */
  readonly storage: VolumeStorageModel;
  /** Sorted. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly IToleration[];
  readonly tlsCertificateName?: string;
  readonly priorityClassName?: string;
  /** spec.imagePullSecrets, in order. */
  readonly imagePullSecrets: readonly string[];
  /** The compute resources of every container of the cache pod (CACHE_CONTAINER_NAMES): the defaults with spec.resources applied, canonical. */
  readonly resources: Readonly<Record<string, IResourceRequirements>>;
};
