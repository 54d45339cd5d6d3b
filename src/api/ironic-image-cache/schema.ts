/**
 * The `IronicImageCache` custom resource: the IPA (ironic-python-agent) kernel and initramfs, downloaded
 * once into a volume and served over HTTP(S) to any number of Ironic objects of its namespace, which use it
 * through `spec.imageCacheName` instead of running the IPA downloader themselves.
 */
import { DOWNLOADER_DEFAULTS } from './model.js';
import { ImagePullSecrets } from '../shared/pull-secrets.js';
import { Type, type Static } from '@sinclair/typebox';
import { Conditions, EmbeddedObject, StringEnum, StringMap } from '../shared/common.js';
import {
  CACHE_CONTAINER_NAMES,
  DEFAULT_CACHE_CONTAINER_REQUESTS,
  DEFAULT_IMAGE_CACHE_SIZE,
  DEFAULT_IPA_ARCHITECTURE,
  DNS_SUBDOMAIN_PATTERN,
  IPA_ARCHITECTURES,
} from '../shared/constants.js';
import { PROXY_CREDENTIALS_RULE, PROXY_URL_RULE } from '../shared/proxy.js';
import { resourcesByContainer } from '../shared/resources.js';
import { ephemeralOf, storageTransitionRules, VolumeStorage } from '../shared/storage.js';
import { UsedByStatus, type UsedBy } from '../used-by.js';
import { FILE_NAME_PATTERN } from '../shared/schema-messages.js';

/** An IronicImageCache is used by the Ironics whose spec.imageCacheName names it. */
export const IMAGE_CACHE_USED_BY: UsedBy = { what: 'image cache', ironicField: 'imageCacheName' };

export const CacheStorage = VolumeStorage(
  {
    volume: 'cache volume',
    defaultSize: DEFAULT_IMAGE_CACHE_SIZE,
    sizeNote: 'Each architecture needs about 1Gi; older downloads are removed once a newer one is in place. It cannot be changed once the cache exists.',
    ephemeral: 'Keep the images in an emptyDir instead of a PersistentVolumeClaim: they are downloaded again whenever the pod restarts.',
    description: 'Storage of the cached images. Persistent by default, so a restart does not download them again.',
  },
  {},
);
export type CacheStorage = Static<typeof CacheStorage>;

export const CacheArchitecture = Type.Object(
  {
    name: StringEnum(IPA_ARCHITECTURES, {
      description: 'The CPU architecture (IPA_ARCH of the downloader); the files are named ironic-python-agent_<name>.kernel and .initramfs.',
    }),
    filename: Type.Optional(
      Type.String({
        description: `Name of the IPA tarball under agentDownloadURL for this architecture (IPA_FILENAME). Required for every architecture but ${DEFAULT_IPA_ARCHITECTURE}, whose default is the downloader's ipa-<flavor>-<branch>.tar.gz (an ${DEFAULT_IPA_ARCHITECTURE} IPA).`,
        pattern: FILE_NAME_PATTERN,
        maxLength: 253,
      }),
    ),
  },
  {
    description: 'One architecture to cache.',
    'x-kubernetes-validations': [
      {
        rule: `self.name == '${DEFAULT_IPA_ARCHITECTURE}' || has(self.filename)`,
        message: `filename is required for every architecture but ${DEFAULT_IPA_ARCHITECTURE}: the downloader's default tarball name does not depend on the architecture, so it would download the ${DEFAULT_IPA_ARCHITECTURE} IPA`,
      },
    ],
  },
);
export type CacheArchitecture = Static<typeof CacheArchitecture>;

export const CacheProxy = Type.Object(
  {
    httpProxy: Type.Optional(
      Type.String({
        description: 'Proxy for http:// URLs (HTTP_PROXY and http_proxy of the downloader), for example `http://proxy.example.com:3128`.',
        maxLength: 2048,
      }),
    ),
    httpsProxy: Type.Optional(Type.String({ description: 'Proxy for https:// URLs (HTTPS_PROXY and https_proxy of the downloader).', maxLength: 2048 })),
    noProxy: Type.Optional(
      Type.String({
        description:
          'Comma-separated hosts, domains (`.example.com`), IP addresses and CIDRs reached without the proxy (NO_PROXY and no_proxy). Loopback and `.svc` are added.',
        maxLength: 4096,
      }),
    ),
  },
  {
    description: 'The proxy the downloader uses. Each field wins over the setting of the hook server (IPA_HTTP_PROXY, IPA_HTTPS_PROXY, IPA_NO_PROXY).',
    'x-kubernetes-validations': [PROXY_URL_RULE, PROXY_CREDENTIALS_RULE],
  },
);
export type CacheProxy = Static<typeof CacheProxy>;

const Toleration = EmbeddedObject({}, 'A Kubernetes toleration (core/v1 Toleration).');

/** `download-x86-64 (10m, 64Mi), ...`: the containers and their default requests, for the description. */
const DEFAULT_CACHE_REQUESTS_TEXT = CACHE_CONTAINER_NAMES.map(
  (name) => `${name} (${Object.values(DEFAULT_CACHE_CONTAINER_REQUESTS[name] ?? {}).join(', ')})`,
).join(', ');

export const CacheResources = resourcesByContainer(
  CACHE_CONTAINER_NAMES,
  `Compute resources of the cache pod by container name: download-<architecture> (the download of one architecture, \`_\` written \`-\`), prune and httpd. Every container has default requests: ${DEFAULT_CACHE_REQUESTS_TEXT} (CPU, memory). A request given here replaces the default of that resource; a limit below the default request and without a request lowers the request to the limit.`,
);

/** CEL, on the spec: the size of the cache volume, the default when unset. */
const sizeOf = (root: string): string => `(has(${root}.storage) && has(${root}.storage.size) ? ${root}.storage.size : '${DEFAULT_IMAGE_CACHE_SIZE}')`;

export const IronicImageCacheSpec = Type.Object(
  {
    agentBranch: Type.Optional(
      Type.String({
        description: `Branch of IPA to download (IPA_BRANCH of the downloader), for example \`stable/2025.1\`. Defaults to the downloader's \`${DOWNLOADER_DEFAULTS.branch}\`.`,
        maxLength: 128,
      }),
    ),
    agentDownloadURL: Type.Optional(
      Type.String({
        description: `Where the IPA tarballs are downloaded from (IPA_BASEURI of the downloader). Defaults to the operator-wide setting, else ${DOWNLOADER_DEFAULTS.baseURI}.`,
        format: 'uri',
      }),
    ),
    agentDownloaderImage: Type.Optional(Type.String({ description: "Image of the IPA downloader. Defaults to the operator's downloader image." })),
    agentMinimumModificationTime: Type.Optional(
      Type.String({
        description:
          'RFC 3339 time. The cached IPA must have been modified at or after it (the Last-Modified of the download); changing it downloads again. Until such an IPA is available the cache is not ready.',
        format: 'date-time',
      }),
    ),
    architectures: Type.Optional(
      Type.Array(CacheArchitecture, {
        description: `The architectures to cache, the first one being the default for hosts without a known architecture. Defaults to ${DEFAULT_IPA_ARCHITECTURE} alone.`,
        minItems: 1,
        maxItems: IPA_ARCHITECTURES.length,
        'x-kubernetes-validations': [{ rule: 'self.all(a, self.exists_one(b, b.name == a.name))', message: 'each architecture may appear only once' }],
      }),
    ),
    proxy: Type.Optional(CacheProxy),
    storage: Type.Optional(CacheStorage),
    nodeSelector: Type.Optional(StringMap('Node labels the cache pod must match.')),
    tolerations: Type.Optional(Type.Array(Toleration, { description: 'Tolerations of the cache pod.', maxItems: 64 })),
    imagePullSecrets: Type.Optional(ImagePullSecrets),
    priorityClassName: Type.Optional(
      Type.String({
        description:
          'PriorityClass of the cache pod, so that it is scheduled (and kept) before less important pods. When unset or empty, it gets the default priority of the cluster. The class must exist: a pod naming a missing class is not created.',
        maxLength: 253,
        pattern: DNS_SUBDOMAIN_PATTERN,
      }),
    ),
    resources: Type.Optional(CacheResources),
    tlsCertificateName: Type.Optional(
      Type.String({
        description:
          'Name of a Secret (`tls.crt`, `tls.key`) with the certificate to serve the images with over HTTPS. The Ironic objects using the cache must trust its CA (spec.tls.trustedCA).',
        maxLength: 253,
      }),
    ),
  },
  {
    description: 'Desired state of the IPA image cache.',
    'x-kubernetes-validations': [
      ...storageTransitionRules('cache', 'IronicImageCache'),
      {
        rule: `${ephemeralOf('self')} || ${sizeOf('self')} == ${sizeOf('oldSelf')}`,
        message:
          'storage.size cannot be changed once the cache exists (the claim template of its StatefulSet is immutable): restore the previous size, or create a new IronicImageCache',
      },
    ],
  },
);
export type IronicImageCacheSpec = Static<typeof IronicImageCacheSpec>;

export const CachedImages = Type.Object(
  {
    architecture: Type.String({ description: 'The CPU architecture.' }),
    kernel: Type.String({ description: 'URL of the IPA kernel.' }),
    initramfs: Type.String({ description: 'URL of the IPA initramfs.' }),
  },
  { description: 'Where the IPA of one architecture is served.' },
);
export type CachedImages = Static<typeof CachedImages>;

export const IronicImageCacheStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions),
    images: Type.Optional(
      Type.Array(CachedImages, { description: 'The URLs of the cached kernel and initramfs of each architecture, the default one first.' }),
    ),
    agentBranch: Type.Optional(Type.String({ description: 'The IPA branch of the images being served.' })),
    agentMinimumModificationTime: Type.Optional(Type.String({ description: 'The minimum modification time the images being served were checked against.' })),
    tlsCertificateName: Type.Optional(Type.String({ description: 'Secret with the serving certificate, when the images are served over HTTPS.' })),
    usedBy: UsedByStatus(IMAGE_CACHE_USED_BY),
    observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the spec the status was computed for.', minimum: 0 })),
  },
  { description: 'Observed state of the IPA image cache.' },
);
export type IronicImageCacheStatus = Static<typeof IronicImageCacheStatus>;
