/**
 * The Ironic pod template: containers, volumes, labels, restart annotations and user overrides.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { versionAnnotation } from '../names.js';
import { IRONIC_GID } from '../security.js';
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
import { childLabels, ironicImages, ironicScheduling, selectorLabels, type IronicImages } from './facts.js';
import { buildRpcCertificateContainer, rpcVolumes } from './ha.js';
import { buildIPXEBuilderContainer, ipxeAffinity } from './ipxe-tls.js';
import { buildTLSCertificateContainer, generatedTLSAnnotations, generatedTLSVolumes } from './generated-tls.js';
import { keepalivedVolumes } from './keepalived.js';
import { buildReferenceVolumes, rpcAuthVolume, scratchVolume, scratchVolumeName, sharedVolume } from './volumes.js';

/** Replaces items with the same name, appends the others; whole objects, no field is lost (upstream drops some). */
export const mergeByName = <T extends { name: string }>(base: readonly T[], overrides: readonly T[]): T[] => {
  if (overrides.length === 0) return [...base];
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const replaced = base.map((b) => byName.get(b.name) ?? b);
  const baseNames = new Set(base.map((b) => b.name));
  return [...replaced, ...overrides.filter((o) => !baseNames.has(o.name))];
};

/** The containers we build, in upstream's order, before overrides. */
export const buildContainers = (input: IronicRenderInput, images: IronicImages): IContainer[] => {
  const { networking, highAvailability, exporter } = input.model;
  return [
    buildIronicContainer(input, images.ironic),
    buildHttpdContainer(input, images.ironic),
    buildRamdiskLogsContainer(input, images.ironic),
    ...(networking.dhcp !== undefined && !highAvailability ? [buildDnsmasqContainer(input, images.ironic, networking.dhcp)] : []),
    ...(networking.keepalived !== undefined ? [buildKeepalivedContainer(input, images.keepalived)] : []),
    ...(exporter !== undefined ? [buildExporterContainer(input, images.ironic, exporter)] : []),
  ];
};

/** The init containers we build, before overrides. */
export const buildInitContainers = (input: IronicRenderInput, images: IronicImages): IContainer[] => [
  ...(input.model.highAvailability ? [buildRpcCertificateContainer(input)] : []),
  ...(input.generatedTLS !== undefined ? [buildTLSCertificateContainer(input)] : []),
  // After the certificate is issued: the firmware trusts its CA.
  ...(input.model.tls.ipxe ? [buildIPXEBuilderContainer(input, images.ipxeBuilder)] : []),
  ...(input.model.ramdisk.downloader ? [buildDownloaderContainer(input, images.downloader)] : []),
];

/** Our volumes: the shared emptyDir, one scratch emptyDir per read-only container, then the references. */
export const buildVolumes = (input: IronicRenderInput, containers: readonly IContainer[]): IVolume[] => [
  sharedVolume,
  // A scratch volume for each container that mounts its own (override containers may not).
  ...containers.filter((c) => (c.volumeMounts ?? []).some((m) => m.name === scratchVolumeName(c.name))).map((c) => scratchVolume(c.name)),
  ...buildReferenceVolumes(input),
  ...(input.model.highAvailability ? rpcVolumes(input) : []),
  ...generatedTLSVolumes(input),
  ...keepalivedVolumes(input),
  ...(!input.model.highAvailability && input.model.networkingService !== undefined ? [rpcAuthVolume(input)] : []),
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
    ...generatedTLSAnnotations(input),
  };
};

/**
 * The complete pod template. User labels and annotations come first so that ours win on conflict;
 * user containers, init containers and volumes replace ours by name.
 */
export const buildPodTemplate = (input: IronicRenderInput): IPodTemplateSpec => {
  const images = ironicImages(input);
  const { overrides, networking, highAvailability } = input.model;
  const host = networking.hostNetwork;
  const initContainers = mergeByName(buildInitContainers(input, images), overrides.initContainers);
  const containers = mergeByName(buildContainers(input, images), overrides.containers);
  return {
    metadata: {
      labels: { ...overrides.labels, ...selectorLabels(input), ...childLabels(input) },
      annotations: { ...overrides.annotations, ...restartAnnotations(input) },
    },
    spec: {
      hostNetwork: host,
      dnsPolicy: host ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
      // NOTE: Ironic never talks to the Kubernetes API (upstream meant this too but lost it in a merge).
      automountServiceAccountToken: false,
      // Service links would add variables such as IRONIC_PORT next to the ones the image reads.
      enableServiceLinks: false,
      // The CA keys are readable by the ironic group only: the certificate issuers run in it.
      ...((highAvailability || input.generatedTLS !== undefined) && { securityContext: { fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch' } }),
      ...ironicScheduling(input),
      ...ipxeAffinity(input),
      ...(initContainers.length > 0 && { initContainers }),
      containers,
      volumes: mergeByName(buildVolumes(input, [...containers, ...initContainers]), overrides.volumes),
    },
  };
};
