/**
 * The containers of the Ironic pod. Each builder returns one complete container.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IContainerPort } from 'kubernetes-models/v1/ContainerPort';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { DHCPModel, ExporterModel } from '../../api/model.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../security.js';
import type { IronicRenderInput } from './input.js';
import { buildDnsmasqEnv, buildDownloaderEnv, buildExporterEnv, buildHttpdEnv, buildIronicEnv, buildKeepalivedEnv } from './env.js';
import { PORT_NAMES, resourcesOf } from './facts.js';
import { rpcMounts } from './ha.js';
import { dnsmasqMounts } from './ipxe-tls.js';
import { keepalivedMounts } from './keepalived.js';
import { dnsmasqProbe, exporterProbe, httpdProbe, ironicProbe, startupProbe } from './probes.js';
import { buildIronicMounts, rpcAuthMount, scratchMounts, sharedMount } from './volumes.js';

/** The user of the keepalived image. */
const KEEPALIVED_UID = 65532;

/**
 * Network containers need file capabilities (dnsmasq's binary carries them), hence privilege escalation.
 * NOTE: their root filesystem stays writable: dnsmasq and keepalived write pid and lease files in places
 * the image does not move to /conf or /data.
 */
const withCapabilities = (uid: number, gid: number, add: string[]): ISecurityContext => ({
  runAsUser: uid,
  runAsGroup: gid,
  runAsNonRoot: true,
  privileged: false,
  allowPrivilegeEscalation: true,
  capabilities: { drop: ['ALL'], add },
  seccompProfile: { type: 'RuntimeDefault' },
});

/** A container port; host networking exposes it on the node, so hostPort equals the container port. */
const port = (input: IronicRenderInput, name: string, containerPort: number): IContainerPort => ({
  name,
  containerPort,
  protocol: 'TCP',
  // NOTE: upstream sets hostPort even off the host network, which needlessly reserves node ports.
  ...(input.model.networking.hostNetwork && { hostPort: containerPort }),
});

export const buildIronicContainer = (input: IronicRenderInput, image: string): IContainer => {
  const probe = ironicProbe(input);
  return {
    name: 'ironic',
    image,
    command: ['/bin/runironic'],
    env: buildIronicEnv(input),
    // Without TLS Ironic serves the API itself; with TLS httpd does, in front of a unix socket.
    ...(ironicPorts(input).length > 0 && { ports: ironicPorts(input) }),
    volumeMounts: [
      ...buildIronicMounts(input),
      ...(input.model.highAvailability ? rpcMounts() : input.model.networkingService !== undefined ? [rpcAuthMount] : []),
      ...scratchMounts('ironic'),
    ],
    ...resourcesOf(input, 'ironic'),
    startupProbe: startupProbe(probe),
    livenessProbe: probe,
    readinessProbe: probe,
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

/** The API port without TLS, and the JSON-RPC port in HA. */
const ironicPorts = (input: IronicRenderInput): IContainerPort[] => [
  ...(!input.model.tls.enabled ? [port(input, PORT_NAMES.api, input.model.networking.apiPort)] : []),
  ...(input.model.highAvailability ? [port(input, PORT_NAMES.rpc, input.model.networking.rpcPort)] : []),
];

export const buildHttpdContainer = (input: IronicRenderInput, image: string): IContainer => {
  const { networking: n, overrides, tls } = input.model;
  const probe: IProbe = httpdProbe(input);
  return {
    name: 'httpd',
    image,
    command: ['/bin/runhttpd'],
    env: buildHttpdEnv(input),
    ports: [
      port(input, PORT_NAMES.imageServer, n.imageServerPort),
      ...(tls.enabled ? [port(input, PORT_NAMES.api, n.apiPort)] : []),
      ...(tls.virtualMedia ? [port(input, PORT_NAMES.imageServerTLS, n.imageServerTLSPort)] : []),
      // NOTE: nodes reach it at networking.ipAddress on the host network; the Service (for clients in the
      // cluster) does not expose it.
      ...(tls.ipxe ? [port(input, PORT_NAMES.ipxeTLS, n.ipxeTLSPort)] : []),
    ],
    volumeMounts: [...buildIronicMounts(input), ...scratchMounts('httpd')],
    ...resourcesOf(input, 'httpd'),
    // httpd waits for the provisioning address like ironic does (up to 20 minutes).
    startupProbe: startupProbe(overrides.httpdLivenessProbe ?? probe),
    livenessProbe: overrides.httpdLivenessProbe ?? probe,
    readinessProbe: overrides.httpdReadinessProbe ?? probe,
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

export const buildRamdiskLogsContainer = (input: IronicRenderInput, image: string): IContainer => ({
  name: 'ramdisk-logs',
  image,
  command: ['/bin/runlogwatch.sh'],
  volumeMounts: [sharedMount, ...scratchMounts('ramdisk-logs')],
  ...resourcesOf(input, 'ramdisk-logs'),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

export const buildDnsmasqContainer = (input: IronicRenderInput, image: string, dhcp: DHCPModel): IContainer => {
  const probe = dnsmasqProbe(input);
  return {
    name: 'dnsmasq',
    image,
    command: ['/bin/rundnsmasq'],
    env: buildDnsmasqEnv(input, dhcp),
    // NOTE: without iPXE TLS dnsmasq needs no mount (it serves the image's own firmware from its own /shared).
    ...(dnsmasqMounts(input).length > 0 && { volumeMounts: dnsmasqMounts(input) }),
    ...resourcesOf(input, 'dnsmasq'),
    startupProbe: startupProbe(probe),
    livenessProbe: probe,
    readinessProbe: probe,
    securityContext: withCapabilities(IRONIC_UID, IRONIC_GID, ['NET_ADMIN', 'NET_BIND_SERVICE', 'NET_RAW']),
  };
};

export const buildKeepalivedContainer = (input: IronicRenderInput, image: string): IContainer => ({
  name: 'keepalived',
  image,
  env: buildKeepalivedEnv(input),
  ...(keepalivedMounts(input).length > 0 && { volumeMounts: keepalivedMounts(input) }),
  ...resourcesOf(input, 'keepalived'),
  securityContext: withCapabilities(KEEPALIVED_UID, KEEPALIVED_UID, ['NET_ADMIN', 'NET_BROADCAST', 'NET_RAW']),
});

export const buildExporterContainer = (input: IronicRenderInput, image: string, exporter: ExporterModel): IContainer => {
  const probe = exporterProbe(input, exporter.bindAddress);
  return {
    name: 'ironic-prometheus-exporter',
    image,
    command: ['/bin/runironic-exporter'],
    env: buildExporterEnv(input, exporter.bindAddress),
    ports: [{ name: PORT_NAMES.metrics, containerPort: input.model.networking.prometheusExporterPort, protocol: 'TCP' }],
    volumeMounts: [sharedMount, ...scratchMounts('ironic-prometheus-exporter')],
    ...resourcesOf(input, 'ironic-prometheus-exporter'),
    ...(probe && { readinessProbe: probe }),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

export const buildDownloaderContainer = (input: IronicRenderInput, image: string): IContainer => {
  const env = buildDownloaderEnv(input);
  return {
    name: 'ramdisk-downloader',
    image,
    ...(env.length > 0 && { env }),
    volumeMounts: [sharedMount, ...scratchMounts('ramdisk-downloader')],
    ...resourcesOf(input, 'ramdisk-downloader'),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};
