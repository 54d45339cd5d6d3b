/**
 * Children of an IronicImageCache: the httpd configuration, the StatefulSet that downloads IPA and serves
 * it, and its Service. Facts about the downloader: ironic-ipa-downloader's get-resource.sh (ironic-image.md
 * §6); httpd and its modules come from the ironic image (its /etc/httpd/modules).
 *
 * NOTE: the workload is a StatefulSet with one replica and a volumeClaimTemplate rather than a Deployment
 * with a claim of its own: the StatefulSet controller creates the claim, never starts the new pod before
 * the old one is gone (two pods on one ReadWriteOnce volume would stall a Deployment's rolling update, and
 * Recreate would need the claim as a separate child with its own lifecycle), and removes the claim with the
 * cache (persistentVolumeClaimRetentionPolicy), since everything in it can be downloaded again. Its
 * podManagementPolicy is Parallel: under the default OrderedReady the controller never replaces a pod of an
 * old revision that is not ready (kubernetes/kubernetes#67250), so a failed download could not be fixed by
 * correcting the spec. The field is immutable: an existing StatefulSet keeps the value it has.
 *
 * The downloads run as init containers, so httpd starts only once every architecture is in place and never
 * serves a half-written file. The downloader itself extracts into a temporary directory of the volume, moves
 * it into place whole and then repoints the `ironic-python-agent_<arch>.*` symlinks; the previous download
 * is put back when a new one fails. Any change of the inputs (branch, URL, architectures, proxy, minimum
 * modification time, image) changes the pod template, so the pod is replaced and the downloads run again
 * on the same volume: the ETag check of DOWNLOAD_SCRIPT makes an unchanged IPA cost one HEAD request.
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import { cacheDownloadContainer } from '../../api/shared/constants.js';
import { DOWNLOADER_DEFAULTS } from '../../api/ironic-image-cache/model.js';
import { baseNoProxy, proxyVariables } from '../shared/proxy.js';
import type { CacheArchitectureModel } from '../../api/ironic-image-cache/model.js';
import { DEFAULT_VERSION, IRONIC_IMAGE_REPOSITORY, imageTagFor } from '../../api/shared/version.js';
import { defaultImage } from '../config.js';
import { IPA_DOWNLOADER_IMAGE } from '../shared/ipa-download.js';
import { stamped, toChild, type KubeChild } from '../child.js';
import { contentHash, imageCacheLabels, keptRenders, nodeSelection } from '../meta.js';
import { LABELS, imageCacheNames, labelValue, versionAnnotation } from '../names.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../security.js';
import { claimFields, ephemeralVolumes } from '../volume-claim.js';
import { CACHE_PORTS, schemeOf, type CacheRenderInput } from './input.js';

const VOLUMES = { images: 'images', config: 'config', tmp: 'tmp', tls: 'tls' } as const;
const CONFIG_DIR = '/etc/ipa-cache';
const CONFIG_FILE = 'httpd.conf';
const TLS_DIR = '/certs/ipa-cache';

/** Where the downloader writes and httpd serves from (fixed by the downloader: SHARED_DIR/html/images). */
const SHARED_DIR = '/shared';

/** The file name the downloader gives the IPA kernel or initramfs of one architecture (IPA_ARCH). */
const agentFile = (architecture: string, part: 'kernel' | 'initramfs'): string => `ironic-python-agent_${architecture}.${part}`;

/** The branch the downloads fetch: the spec's, else the downloader's default (IPA_BRANCH is set only for the spec's). */
export const downloadedBranch = (model: CacheRenderInput['model']): string => model.agentBranch ?? DOWNLOADER_DEFAULTS.branch;

/** The downloader's own script (its image's ENTRYPOINT). */
const GET_RESOURCE = '/usr/local/bin/get-resource.sh';

/**
 * One download. get-resource.sh, started again on a volume that holds its previous download, asks the source
 * with If-None-Match and, when the answer is 304, looks for the download under another directory name than
 * the one it wrote and then moves a `<tarball>.headers` file that only exists with its CACHEURL mirror: it
 * fails, and the cache would stay in init until a new IPA is published (and it also fails when the source
 * cannot be reached). So the script is only ever run as on an empty volume, and this wrapper does the
 * restart itself:
 *
 * - the links `ironic-python-agent_<arch>.{headers,kernel,initramfs}` resolving to non-empty files in one
 *   directory, whose headers are those of the tarball the variables name now (with the downloader's
 *   defaults), are the current download;
 * - its ETag (any letter case: HTTP/2 writes `etag:`) is sent with If-None-Match in a HEAD request: `304`,
 *   or a 2xx with the same ETag, keeps it without downloading;
 * - no answer or a 5xx keeps it too, saying so (serving the last download beats a pod that never starts);
 * - anything else (no ETag kept, another ETag, a redirect, a 404) downloads again: the current directory
 *   is moved aside, so the links no longer resolve and the script takes its first-download path (and a new
 *   directory of the same name cannot land inside the old one), then put back if the download fails or
 *   leaves no complete download, and the init container fails. The prune container removes it after a
 *   success.
 *
 * Then the minimum modification time is checked against the Last-Modified header kept with the download
 * (the last one). An older IPA fails the init container, with a message.
 */
export const DOWNLOAD_SCRIPT = [
  'set -euo pipefail',
  `images=${SHARED_DIR}/html/images`,
  'dest="ironic-python-agent_${IPA_ARCH}"',
  `branch="\${IPA_BRANCH:-${DOWNLOADER_DEFAULTS.branch}}"`,
  `file="\${IPA_FILENAME:-ipa-\${IPA_FLAVOR:-${DOWNLOADER_DEFAULTS.flavor}}-\${branch//\\//-}.tar.gz}"`,
  `url="\${IPA_BASEURI:-${DOWNLOADER_DEFAULTS.baseURI}}/$file"`,
  '# The directory the links of this architecture point into, when they resolve to non-empty files there.',
  'complete_download() {',
  '  local dir="" target part',
  '  for part in headers kernel initramfs; do',
  '    target="$(readlink -- "$images/$dest.$part")" || return 0',
  '    case "$target" in .* | /* | */*/*) return 0 ;; */?*) ;; *) return 0 ;; esac',
  '    [ -z "$dir" ] || [ "${target%%/*}" = "$dir" ] || return 0',
  '    dir="${target%%/*}"',
  '    [ -f "$images/$target" ] && [ -s "$images/$target" ] || return 0',
  '  done',
  '  printf \'%s\\n\' "$dir"',
  '}',
  'etag_in() { awk \'tolower($0) ~ /^etag:/ { sub(/^[^:]*:[ \\t]*/, ""); sub(/[ \\t\\r]*$/, ""); value = $0 } END { print value }\'; }',
  'current="$(complete_download)"',
  'if [ -n "$current" ] && [ "$(readlink -- "$images/$dest.headers")" != "$current/$file.headers" ]; then',
  '  echo "$dest: $images/$current is not a download of $file"',
  '  current=""',
  'fi',
  'fresh=true',
  'if [ -n "$current" ]; then',
  '  etag="$(etag_in < "$images/$current/$file.headers")"',
  '  if [ -z "$etag" ]; then',
  '    echo "$dest: $images/$current has no ETag to ask $url with"',
  '  else',
  '    answer="$(curl -g -sS --head --connect-timeout 30 --max-time 120 --dump-header - --output /dev/null --write-out \'%{http_code}\' --header "If-None-Match: $etag" "$url")" || answer=000',
  '    status="${answer##*$\'\\n\'}"',
  '    case "$status" in',
  '      304) fresh=false; echo "$dest: $url is unchanged (ETag $etag): keeping $images/$current" ;;',
  '      2??) if [ "$(etag_in <<< "$answer")" = "$etag" ]; then fresh=false; echo "$dest: $url is unchanged (ETag $etag): keeping $images/$current"; fi ;;',
  '      000 | 5??) fresh=false; echo "$dest: $url could not be checked ($([ "$status" = 000 ] && echo no answer || echo "HTTP $status")): serving the download already in $images/$current" >&2 ;;',
  '    esac',
  '    [ "$fresh" = false ] || echo "$dest: $url answered $status to If-None-Match $etag: downloading again"',
  '  fi',
  'fi',
  'if [ "$fresh" = true ]; then',
  '  aside=""',
  '  if [ -n "$current" ]; then',
  '    aside="$current.previous"',
  '    rm -rf -- "${images:?}/$aside"',
  '    mv -T -- "$images/$current" "$images/$aside"',
  '  else',
  '    rm -f -- "$images/$dest.headers"',
  '  fi',
  '  failure=""',
  `  ${GET_RESOURCE} || failure="the downloader exited with code $?"`,
  '  [ -n "$failure" ] || [ -n "$(complete_download)" ] || failure="the downloader left no complete download"',
  '  if [ -n "$failure" ]; then',
  '    if [ -n "$aside" ] && [ ! -e "$images/$current" ]; then mv -T -- "$images/$aside" "$images/$current"; fi',
  '    echo "$dest: the download of $url failed: $failure${aside:+ (the previous download stays in $images/$current)}" >&2',
  '    exit 1',
  '  fi',
  'fi',
  'if [ -n "${IPA_MINIMUM_MODIFICATION_TIME:-}" ]; then',
  '  headers="$images/$dest.headers"',
  `  modified="$(awk 'tolower($1) == "last-modified:" { sub(/^[^:]*:[ \\t]*/, ""); line = $0 } END { print line }' "$headers" | tr -d '\\r')"`,
  '  if [ -z "$modified" ] || [ "$(date -u -d "$modified" +%s)" -lt "$(date -u -d "$IPA_MINIMUM_MODIFICATION_TIME" +%s)" ]; then',
  '    echo "the IPA for ${IPA_ARCH} was last modified ${modified:-at an unknown time}, before agentMinimumModificationTime ${IPA_MINIMUM_MODIFICATION_TIME}: publish a newer one or lower agentMinimumModificationTime" >&2',
  '    exit 1',
  '  fi',
  'fi',
  '',
].join('\n');

/**
 * After the downloads: drop the links of architectures no longer cached, then every download directory
 * no link points into (older versions), and leftovers of interrupted downloads.
 */
export const PRUNE_SCRIPT = [
  'set -eu',
  `cd ${SHARED_DIR}/html/images`,
  'for link in ironic-python-agent*; do',
  '  [ -L "$link" ] || continue',
  '  case " $CACHED " in *" ${link%.*} "*) ;; *) echo "removing $link"; rm -f -- "$link" ;; esac',
  'done',
  'for dir in */; do',
  '  dir="${dir%/}"',
  '  [ -d "$dir" ] && [ ! -L "$dir" ] || continue',
  '  keep=false',
  '  for link in ironic-python-agent*; do',
  '    [ -L "$link" ] || continue',
  '    case "$(readlink "$link")" in "$dir"/*) keep=true ;; esac',
  '  done',
  '  if [ "$keep" = false ]; then echo "removing the older download $dir"; rm -rf -- "$dir"; fi',
  'done',
  `rm -rf ${SHARED_DIR}/tmp/*`,
  '',
].join('\n');

const selector = (input: CacheRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(imageCacheNames(input.name).statefulSet) });

/**
 * The host name of the cache's Service, as the Ironics reach it: `<service>.<namespace>.svc`, plus the
 * cluster domain when the hook server is given one (CLUSTER_DOMAIN), as for every Service name Ironic gets.
 */
export const cacheHost = (input: Pick<CacheRenderInput, 'name' | 'namespace' | 'config'>): string => {
  const domain = input.config.clusterDomain;
  return `${imageCacheNames(input.name).service}.${input.namespace}.svc${domain !== '' ? `.${domain}` : ''}`;
};

/** The port httpd listens on. */
const listenPort = (input: CacheRenderInput): number => CACHE_PORTS[schemeOf(input)].container;

/**
 * A minimal httpd configuration: the images directory only, read-only, logs to the container output, every
 * runtime file in /tmp so that the root filesystem stays read-only. No User/Group: httpd runs as the
 * container's unprivileged user.
 */
export const httpdConfig = (input: CacheRenderInput): string =>
  [
    'ServerRoot /etc/httpd',
    `ServerName ${cacheHost(input)}`,
    `Listen ${listenPort(input)}`,
    'PidFile /tmp/httpd.pid',
    'DefaultRuntimeDir /tmp',
    'LoadModule mpm_event_module modules/mod_mpm_event.so',
    'LoadModule unixd_module modules/mod_unixd.so',
    'LoadModule authz_core_module modules/mod_authz_core.so',
    'LoadModule log_config_module modules/mod_log_config.so',
    ...(input.tls !== undefined ? ['LoadModule ssl_module modules/mod_ssl.so'] : []),
    'ErrorLog /dev/stderr',
    'LogLevel warn',
    'LogFormat "%h %l %u %t \\"%r\\" %>s %b" common',
    'CustomLog /dev/stdout common',
    'EnableSendfile on',
    'TraceEnable off',
    'ServerTokens Prod',
    `DocumentRoot ${SHARED_DIR}/html`,
    '<Directory />',
    '    AllowOverride None',
    '    Require all denied',
    '</Directory>',
    `<Directory ${SHARED_DIR}/html/images>`,
    '    Options FollowSymLinks',
    '    AllowOverride None',
    '    Require all granted',
    '</Directory>',
    ...(input.tls !== undefined
      ? [
          'SSLEngine on',
          `SSLCertificateFile ${TLS_DIR}/tls.crt`,
          `SSLCertificateKeyFile ${TLS_DIR}/tls.key`,
          'SSLProtocol -all +TLSv1.2 +TLSv1.3',
          'SSLSessionCache none',
        ]
      : []),
    '',
  ].join('\n');

export const renderCacheConfig = (input: CacheRenderInput): IConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: imageCacheNames(input.name).config, namespace: input.namespace, labels: imageCacheLabels(input.name) },
  data: { [CONFIG_FILE]: httpdConfig(input) },
});

const optional = (name: string, value: string | undefined): IEnvVar[] => (value !== undefined && value !== '' ? [{ name, value }] : []);

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY by the rule of every downloading pod (render/shared/proxy.ts): each field of
 * the spec winning over the hook server's; with a proxy, NO_PROXY also lists loopback and Services (a mirror inside
 * the cluster).
 */
const proxyEnv = (input: CacheRenderInput): IEnvVar[] => {
  const operator = input.config.ipaSettings;
  return proxyVariables(input.model.proxy, baseNoProxy(input.config.clusterDomain), {
    HTTP_PROXY: operator['HTTP_PROXY'],
    HTTPS_PROXY: operator['HTTPS_PROXY'],
    NO_PROXY: operator['NO_PROXY'],
  });
};

/** The downloader's settings: the hook server's (IPA_BASEURI, IPA_FLAVOR, the proxy), each replaced by the spec's. */
const downloaderEnv = (input: CacheRenderInput, architecture: CacheArchitectureModel): IEnvVar[] => {
  const operator = input.config.ipaSettings;
  const { model } = input;
  return [
    { name: 'IPA_ARCH', value: architecture.name },
    ...optional('IPA_BASEURI', model.agentDownloadURL ?? operator['IPA_BASEURI']),
    ...optional('IPA_BRANCH', model.agentBranch),
    ...optional('IPA_FLAVOR', operator['IPA_FLAVOR']),
    ...optional('IPA_FILENAME', architecture.filename),
    ...optional('IPA_MINIMUM_MODIFICATION_TIME', model.agentMinimumModificationTime),
    ...proxyEnv(input),
  ];
};

/** The resources of a container of the cache pod: its defaults with the spec's applied (the model has every name). */
const resourcesOf = (input: CacheRenderInput, name: string): IResourceRequirements => input.model.resources[name] ?? {};

const tmpMount: IVolumeMount = { name: VOLUMES.tmp, mountPath: '/tmp' };

const downloaderImage = (input: CacheRenderInput): string => input.model.agentDownloaderImage ?? defaultImage(input.config, IPA_DOWNLOADER_IMAGE);

const downloadContainer = (input: CacheRenderInput, architecture: CacheArchitectureModel): IContainer => ({
  name: cacheDownloadContainer(architecture.name),
  image: downloaderImage(input),
  command: ['/bin/bash', '-c', DOWNLOAD_SCRIPT],
  env: downloaderEnv(input, architecture),
  volumeMounts: [{ name: VOLUMES.images, mountPath: SHARED_DIR }, tmpMount],
  resources: resourcesOf(input, cacheDownloadContainer(architecture.name)),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

const pruneContainer = (input: CacheRenderInput): IContainer => ({
  name: 'prune',
  image: downloaderImage(input),
  command: ['/bin/bash', '-c', PRUNE_SCRIPT],
  env: [{ name: 'CACHED', value: input.model.architectures.map((a) => `ironic-python-agent_${a.name}`).join(' ') }],
  volumeMounts: [{ name: VOLUMES.images, mountPath: SHARED_DIR }, tmpMount],
  resources: resourcesOf(input, 'prune'),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

/** The ironic image of the newest supported release: httpd and its modules. */
export const serverImage = (input: CacheRenderInput): string => {
  const repository = input.config.images.ironicRepository === '' ? IRONIC_IMAGE_REPOSITORY : input.config.images.ironicRepository;
  return `${repository}:${imageTagFor(DEFAULT_VERSION) ?? 'latest'}`;
};

/** Ready once httpd serves the kernel and initramfs of every architecture (HEAD requests). */
const readinessProbe = (input: CacheRenderInput): IProbe => {
  const base = `${schemeOf(input)}://127.0.0.1:${listenPort(input)}/images`;
  const files = input.model.architectures.flatMap((a) => [agentFile(a.name, 'kernel'), agentFile(a.name, 'initramfs')]);
  const checks = files.map((file) => `curl --head --fail --silent --show-error --insecure --output /dev/null ${base}/${file}`);
  return {
    exec: { command: ['sh', '-c', checks.join(' && ')] },
    initialDelaySeconds: 1,
    periodSeconds: 10,
    timeoutSeconds: 5,
    successThreshold: 1,
    failureThreshold: 3,
  };
};

const httpdContainer = (input: CacheRenderInput): IContainer => ({
  name: 'httpd',
  image: serverImage(input),
  command: ['/usr/sbin/httpd', '-DFOREGROUND', '-f', `${CONFIG_DIR}/${CONFIG_FILE}`],
  ports: [{ name: schemeOf(input), containerPort: listenPort(input), protocol: 'TCP' }],
  volumeMounts: [
    { name: VOLUMES.images, mountPath: SHARED_DIR, readOnly: true },
    { name: VOLUMES.config, mountPath: CONFIG_DIR, readOnly: true },
    tmpMount,
    ...(input.tls !== undefined ? [{ name: VOLUMES.tls, mountPath: TLS_DIR, readOnly: true }] : []),
  ],
  readinessProbe: readinessProbe(input),
  livenessProbe: {
    tcpSocket: { port: listenPort(input) },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 5,
    successThreshold: 1,
    failureThreshold: 6,
  },
  resources: resourcesOf(input, 'httpd'),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

const volumes = (input: CacheRenderInput): IVolume[] => [
  ...ephemeralVolumes(input, VOLUMES.images),
  { name: VOLUMES.config, configMap: { name: imageCacheNames(input.name).config } },
  { name: VOLUMES.tmp, emptyDir: { medium: 'Memory' } },
  ...(input.tls !== undefined ? [{ name: VOLUMES.tls, secret: { secretName: input.tls.secretName, defaultMode: 0o440 } }] : []),
];

type PodTemplate = NonNullable<IStatefulSet['spec']>['template'];

const podTemplate = (input: CacheRenderInput): PodTemplate => {
  const { model } = input;
  const annotations = {
    [versionAnnotation('config')]: contentHash(httpdConfig(input)),
    ...(input.tls !== undefined && { [versionAnnotation('tls-secret')]: input.tls.hash }),
  };
  return {
    metadata: { labels: { ...selector(input), ...imageCacheLabels(input.name) }, annotations },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { runAsNonRoot: true, fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
      ...(model.priorityClassName !== undefined && { priorityClassName: model.priorityClassName }),
      ...nodeSelection(model.nodeSelector),
      ...(model.tolerations.length > 0 && { tolerations: [...model.tolerations] }),
      ...podPullSecrets(model.imagePullSecrets, input.config, []),
      initContainers: [...model.architectures.map((a) => downloadContainer(input, a)), pruneContainer(input)],
      containers: [httpdContainer(input)],
      volumes: volumes(input),
    },
  };
};

/** The StatefulSet, stamped (its stamp tells the plan whether the observed one has been given this spec). */
export const renderCacheStatefulSet = (input: CacheRenderInput): IStatefulSet => {
  const names = imageCacheNames(input.name);
  return stamped({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet, namespace: input.namespace, labels: imageCacheLabels(input.name) },
    spec: {
      replicas: 1,
      serviceName: names.service,
      podManagementPolicy: input.observedPodManagementPolicy ?? 'Parallel',
      selector: { matchLabels: selector(input) },
      // Everything on the claim can be downloaded again: it goes with the cache.
      ...claimFields(input, { volume: VOLUMES.images, labels: imageCacheLabels(input.name), whenDeleted: 'Delete' }),
      template: podTemplate(input),
    },
  });
};

export const renderCacheService = (input: CacheRenderInput): IService => {
  const scheme = schemeOf(input);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: imageCacheNames(input.name).service, namespace: input.namespace, labels: imageCacheLabels(input.name) },
    spec: { type: 'ClusterIP', selector: selector(input), ports: [{ name: scheme, port: CACHE_PORTS[scheme].service, targetPort: scheme, protocol: 'TCP' }] },
  };
};

/** Every child of an IronicImageCache, in a fixed order; kept (keptRenders): equal inputs get the same frozen answer. */
export const renderCache: (input: CacheRenderInput) => KubeChild[] = keptRenders((input: CacheRenderInput) =>
  [renderCacheConfig(input), renderCacheStatefulSet(input), renderCacheService(input)].map(toChild),
);

/** Where the kernel and initramfs of each architecture are served, the default architecture first. */
export const cachedImages = (input: CacheRenderInput): { architecture: string; kernel: string; initramfs: string }[] => {
  const base = `${schemeOf(input)}://${cacheHost(input)}/images`;
  return input.model.architectures.map((a) => ({
    architecture: a.name,
    kernel: `${base}/${agentFile(a.name, 'kernel')}`,
    initramfs: `${base}/${agentFile(a.name, 'initramfs')}`,
  }));
};
