/**
 * The Ironic pod template: containers, volumes, labels, restart annotations and user overrides.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import { imageTagFor, IRONIC_IMAGE_REPOSITORY } from '../../api/version.js';
import { LABELS, ironicNames, labelValue, versionAnnotation } from '../names.js';
import { ironicLabels, nodeSelection, sortedMap } from '../meta.js';
import type { IronicRenderInput } from './input.js';
import {
  buildDnsmasqContainer,
  buildDownloaderContainer,
  buildExporterContainer,
  buildHttpdContainer,
  buildIronicContainer,
  buildKeepalivedContainer,
  buildRamdiskLogsContainer,
} from './containers.js';
import { hostNetwork, isHighAvailability } from './env.js';
import { VOLUMES, buildReferenceVolumes, scratchVolume, scratchVolumeName } from './volumes.js';
import { buildRpcCertificateContainer, rpcVolumes } from './ha.js';
import { networkingEnabled, rpcAuthVolume } from './networking-service.js';
import { IRONIC_GID } from '../security.js';

/** The images of one Ironic. */
export type IronicImages = { readonly ironic: string; readonly downloader: string; readonly keepalived: string };

/**
 * Images from spec.images, else from spec.version (the Ironic image) and the operator defaults.
 * Explicit images always win, as upstream.
 */
export const resolveImages = (input: IronicRenderInput): IronicImages => {
  const images = input.spec.images;
  const defaults = input.config.images;
  const repository = defaults.ironicRepository === '' ? IRONIC_IMAGE_REPOSITORY : defaults.ironicRepository;
  const tag = imageTagFor(input.spec.version) ?? 'latest';
  const pick = (explicit: string | undefined, fallback: string): string => (explicit !== undefined && explicit !== '' ? explicit : fallback);
  return {
    ironic: pick(images?.ironic, `${repository}:${tag}`),
    downloader: pick(images?.deployRamdiskDownloader, defaults.downloader),
    keepalived: pick(images?.keepalived, defaults.keepalived),
  };
};

/** Replaces items with the same name, appends the others; whole objects, no field is lost (upstream drops some). */
export const mergeByName = <T extends { name: string }>(base: readonly T[], overrides: readonly T[] | undefined): T[] => {
  if (overrides === undefined || overrides.length === 0) return [...base];
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const replaced = base.map((b) => byName.get(b.name) ?? b);
  const baseNames = new Set(base.map((b) => b.name));
  return [...replaced, ...overrides.filter((o) => !baseNames.has(o.name))];
};

const usesKeepalived = (input: IronicRenderInput): boolean =>
  input.spec.networking.keepalived?.enabled === true || input.spec.networking.ipAddressManager === 'keepalived';

/** The containers we build, in upstream's order, before overrides. */
export const buildContainers = (input: IronicRenderInput, images: IronicImages): IContainer[] => {
  const htpasswd = ironicNames(input.name).htpasswd(input.credentials.hash);
  const dhcp = input.spec.networking.dhcp;
  return [
    buildIronicContainer(input, images.ironic, htpasswd),
    buildHttpdContainer(input, images.ironic, htpasswd),
    buildRamdiskLogsContainer(images.ironic),
    ...(dhcp !== undefined && !isHighAvailability(input) ? [buildDnsmasqContainer(input, images.ironic, dhcp)] : []),
    ...(usesKeepalived(input) ? [buildKeepalivedContainer(input, images.keepalived)] : []),
    ...(input.spec.prometheusExporter?.enabled === true ? [buildExporterContainer(input, images.ironic)] : []),
  ];
};

/** The init containers we build, before overrides. */
export const buildInitContainers = (input: IronicRenderInput, images: IronicImages): IContainer[] => [
  ...(isHighAvailability(input) ? [buildRpcCertificateContainer(input)] : []),
  ...(input.spec.deployRamdisk?.disableDownloader === true ? [] : [buildDownloaderContainer(input, images.downloader)]),
];

/** Our volumes: the shared emptyDir, one scratch emptyDir per read-only container, then the references. */
export const buildVolumes = (input: IronicRenderInput, containers: readonly IContainer[]): IVolume[] => [
  { name: VOLUMES.shared, emptyDir: {} },
  // A scratch volume for each container that mounts its own (override containers may not).
  ...containers
    .filter((c) => (c.volumeMounts ?? []).some((m) => m.name === scratchVolumeName(c.name)))
    .map((c) => scratchVolume(c.name)),
  ...buildReferenceVolumes(input),
  ...(isHighAvailability(input) ? rpcVolumes(input) : networkingEnabled(input) ? [rpcAuthVolume(input)] : []),
];

/** Pod annotations: a hash per referenced content, so a rotated password or certificate rolls the pods. */
export const restartAnnotations = (input: IronicRenderInput): Record<string, string> => {
  const { tls, bmcCA, trustedCA, database } = input.references;
  return {
    // The same hash the credentials carry (and the networking pod uses): it changes with the htpasswd.
    [versionAnnotation('api-secret')]: input.credentials.hash,
    ...(tls && { [versionAnnotation('tls-secret')]: tls.hash }),
    ...(bmcCA && { [versionAnnotation('bmc-ca')]: bmcCA.hash }),
    ...(trustedCA && { [versionAnnotation('trusted-ca')]: trustedCA.hash }),
    ...(database?.credentialsHash !== undefined && { [versionAnnotation('database-secret')]: database.credentialsHash }),
    ...(input.rpcCA !== undefined && { [versionAnnotation('rpc-ca')]: input.rpcCA.hash }),
  };
};

/** Where Ironic pods (and the pods that go with them: networking, upgrade Jobs) may run. */
export const ironicScheduling = (input: IronicRenderInput): { nodeSelector?: Record<string, string>; tolerations?: IToleration[] } => {
  const tolerations = input.spec.overrides?.tolerations as IToleration[] | undefined;
  return { ...nodeSelection(input.spec.nodeSelector), ...(tolerations !== undefined && tolerations.length > 0 && { tolerations }) };
};

/** Labels that select the Ironic pods. */
export const selectorLabels = (input: IronicRenderInput): Record<string, string> => ({
  [LABELS.app]: labelValue(ironicNames(input.name).workload),
});

/**
 * The complete pod template. User labels and annotations come first so that ours win on conflict;
 * user containers, init containers and volumes replace ours by name.
 */
export const buildPodTemplate = (input: IronicRenderInput): IPodTemplateSpec => {
  const images = resolveImages(input);
  const overrides = input.spec.overrides;
  const containers = buildContainers(input, images);
  const initContainers = buildInitContainers(input, images);
  const host = hostNetwork(input);
  const mergedInit = mergeByName(initContainers, overrides?.initContainers as IContainer[] | undefined);
  const mergedContainers = mergeByName(containers, overrides?.containers as IContainer[] | undefined);
  return {
    metadata: {
      labels: { ...sortedMap(overrides?.labels), ...selectorLabels(input), ...ironicLabels(input.name, input.spec.version) },
      annotations: { ...sortedMap(overrides?.annotations), ...restartAnnotations(input) },
    },
    spec: {
      hostNetwork: host,
      dnsPolicy: host ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
      // NOTE: Ironic never talks to the Kubernetes API (upstream meant this too but lost it in a merge).
      automountServiceAccountToken: false,
      // Service links would add variables such as IRONIC_PORT next to the ones the image reads.
      enableServiceLinks: false,
      // The RPC CA key is readable by the ironic group only: the certificate issuer runs in it.
      ...(isHighAvailability(input) && { securityContext: { fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch' } }),
      ...ironicScheduling(input),
      ...(mergedInit.length > 0 && { initContainers: mergedInit }),
      containers: mergedContainers,
      volumes: mergeByName(buildVolumes(input, [...mergedContainers, ...mergedInit]), overrides?.volumes as IVolume[] | undefined),
    },
  };
};
