/**
 * `parseIronicImageCache`: an IronicImageCache spec in, every problem or the typed, defaulted model out.
 */
import { jsonMemo, type JsonMemo } from '../shared/memo.js';
import { pullSecretNames } from '../shared/pull-secrets.js';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import { DEFAULT_CACHE_CONTAINER_REQUESTS, DEFAULT_IMAGE_CACHE_SIZE, DEFAULT_IPA_ARCHITECTURE } from '../shared/constants.js';
import { given, listEntries, optionalFields, resourcesOverDefaults, sortedMap } from '../shared/fields.js';
import type { IronicImageCacheSpec } from './schema.js';
import type { IronicImageCacheModel } from './model.js';
import type { Parsed } from '../shared/model.js';
import { volumeStorageModel } from '../shared/storage.js';
import { isIronicImageCacheSpec, validateIronicImageCache } from './validate.js';

const cacheModel = (spec: IronicImageCacheSpec): IronicImageCacheModel => {
  const architectures = spec.architectures ?? [{ name: DEFAULT_IPA_ARCHITECTURE }];
  const proxy = spec.proxy ?? {};
  // Validation refused every toleration that is not a core/v1 Toleration.
  const tolerations = (spec.tolerations ?? []) as IToleration[];
  return {
    ...optionalFields({
      agentBranch: given(spec.agentBranch?.trim()),
      agentDownloadURL: given(spec.agentDownloadURL?.trim()),
      agentDownloaderImage: given(spec.agentDownloaderImage?.trim()),
      agentMinimumModificationTime: given(spec.agentMinimumModificationTime),
      tlsCertificateName: given(spec.tlsCertificateName),
      priorityClassName: given(spec.priorityClassName),
    }),
    imagePullSecrets: pullSecretNames(spec.imagePullSecrets),
    architectures: architectures.map((a) => ({ name: a.name, ...optionalFields({ filename: given(a.filename) }) })),
    proxy: {
      ...optionalFields({ httpProxy: given(proxy.httpProxy?.trim()), httpsProxy: given(proxy.httpsProxy?.trim()) }),
      noProxy: listEntries(proxy.noProxy),
    },
    storage: volumeStorageModel(spec.storage, DEFAULT_IMAGE_CACHE_SIZE),
    nodeSelector: sortedMap(spec.nodeSelector),
    tolerations,
    resources: Object.fromEntries(
      Object.entries(DEFAULT_CACHE_CONTAINER_REQUESTS).map(([name, defaults]) => [name, resourcesOverDefaults(defaults, spec.resources?.[name])]),
    ),
  };
};

/** Parses a spec there and then (see parseIronicImageCache). */
const parseIronicImageCacheNow = (spec: unknown): Parsed<IronicImageCacheModel> => {
  const problems = validateIronicImageCache(spec);
  if (problems.length > 0) return { ok: false, problems };
  if (!isIronicImageCacheSpec(spec))
    return {
      ok: false,
      problems: [{ path: 'spec', message: 'the spec does not match the IronicImageCache API: compare it with `kubectl explain ironicimagecache.spec`' }],
    };
  return { ok: true, model: cacheModel(spec) };
};

/** Specs already parsed, by their exact JSON: every sync of a parent parses the same spec. Frozen answers. */
export const parsedIronicImageCacheSpecs: JsonMemo<Parsed<IronicImageCacheModel>> = jsonMemo(64, 256 * 1024, (spec) => parseIronicImageCacheNow(spec));

/** Parses an IronicImageCache spec: every problem, or the model. Pure and total: never throws. */
export const parseIronicImageCache = (spec: unknown): Parsed<IronicImageCacheModel> => parsedIronicImageCacheSpecs.get(spec);
