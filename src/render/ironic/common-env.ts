/**
 * Environment variables several containers of the Ironic pod share. What each variable means is fixed by the
 * ironic-image scripts (ironic-common.sh, tls-common.sh, auth-common.sh, configure-ironic.sh, rundnsmasq).
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { DHCPPool } from '../../api/ironic/model.js';
import { addressesInRange, parseCIDR } from '../../api/shared/net.js';
import { baseNoProxy, proxyVariables, type ProxyFallback } from '../shared/proxy.js';
import { env, joinedEnv, optionalEnv, provisioningEnv } from './facts.js';
import { byArch } from './image-cache.js';
import type { IronicRenderInput } from './input.js';
import { MOUNTS } from './volumes.js';

/**
 * The IPA of an image cache: its first architecture is the default (hosts without cpu_arch), and every
 * architecture goes into the _BY_ARCH lists, which inspector.ipxe also boots from (without them it would
 * ask this Ironic's own httpd for IPA files it no longer has).
 */
const cachedImageEnv = (images: NonNullable<IronicRenderInput['references']['imageCache']>): IEnvVar[] => [
  ...optionalEnv('DEPLOY_KERNEL_URL', images[0]?.kernel),
  ...optionalEnv('DEPLOY_RAMDISK_URL', images[0]?.initramfs),
  ...(images.length > 0 ? [env('DEPLOY_KERNEL_BY_ARCH', byArch(images, 'kernel')), env('DEPLOY_RAMDISK_BY_ARCH', byArch(images, 'initramfs'))] : []),
];

const agentImageEnv = (input: IronicRenderInput): IEnvVar[] => {
  if (input.references.imageCache !== undefined) return cachedImageEnv(input.references.imageCache);
  const { defaultImages, imagesByArch } = input.model.ramdisk;
  return [
    ...optionalEnv('DEPLOY_KERNEL_URL', defaultImages?.kernel),
    ...optionalEnv('DEPLOY_RAMDISK_URL', defaultImages?.initramfs),
    ...joinedEnv(
      'DEPLOY_KERNEL_BY_ARCH',
      imagesByArch.map((i) => `${i.architecture}:${i.kernel.trim()}`),
      ',',
    ),
    ...joinedEnv(
      'DEPLOY_RAMDISK_BY_ARCH',
      imagesByArch.map((i) => `${i.architecture}:${i.initramfs.trim()}`),
      ',',
    ),
  ];
};

/** The trusted CA file, when a trusted CA is mounted. */
export const trustedCAFile = (input: IronicRenderInput): string | undefined =>
  input.references.trustedCA !== undefined ? `${MOUNTS.trustedCA}/${input.references.trustedCA.key}` : undefined;

/**
 * Variables shared by ironic, httpd and dnsmasq (upstream buildCommonEnvVars), plus two fixes:
 * IRONIC_ENABLE_VLAN_INTERFACES and WEBSERVER_CACERT_FILE reach httpd as well, which renders
 * inspector.ipxe (ironic-image quirks Q2 and Q13).
 */
export const buildCommonEnv = (input: IronicRenderInput): IEnvVar[] => {
  const { networking: n, ramdisk, inspection, tls } = input.model;
  return [
    env('IRONIC_LISTEN_PORT', String(n.apiPort)),
    env('IRONIC_ACCESS_PORT', String(n.apiPort)),
    env('HTTP_PORT', String(n.imageServerPort)),
    env('LISTEN_ALL_INTERFACES', n.bindInterface ? 'false' : 'true'),
    ...provisioningEnv(input),
    // NOTE: reverse-proxy mode only together with a certificate (ironic-image quirk Q6).
    ...(tls.enabled ? [env('IRONIC_PRIVATE_PORT', 'unix'), env('IRONIC_REVERSE_PROXY_SETUP', 'true')] : []),
    // NOTE: the ironic container has no default for it (ironic-image quirk Q1), so it goes everywhere.
    ...(tls.virtualMedia ? [env('VMEDIA_TLS_PORT', String(n.imageServerTLSPort))] : []),
    // httpd's iPXE vhost, ironic's ipxe_config.template and IRONIC_IPA_BASE_URL use it.
    ...(tls.ipxe ? [env('IPXE_TLS_PORT', String(n.ipxeTLSPort))] : []),
    ...optionalEnv('IRONIC_KERNEL_PARAMS', ramdisk.extraKernelParams),
    ...optionalEnv('IRONIC_RAMDISK_SSH_KEY', ramdisk.sshKey),
    ...joinedEnv('IRONIC_IPA_COLLECTORS', inspection.collectors, ','),
    // Default `all` as configure-ironic.sh does; httpd has no default of its own (quirk Q2).
    env('IRONIC_ENABLE_VLAN_INTERFACES', inspection.vlanInterfaces.length > 0 ? inspection.vlanInterfaces.join(',') : 'all'),
    ...agentImageEnv(input),
    ...optionalEnv('WEBSERVER_CACERT_FILE', trustedCAFile(input)),
    ...fastTrackEnv(input),
  ];
};

/**
 * Fast track, stated rather than left to the image's default, where high availability with DHCP needs it: a host
 * whose conductor died in the middle of cleaning or deploying finds no iPXE file of the new conductor (Ironic
 * writes them again only for active nodes), so the boot chain ends in inspector.ipxe, and only fast track puts
 * `ipa-api-url` on its kernel command line (httpd renders it), so that the agent reports to Ironic, which goes on.
 */
const fastTrackEnv = (input: IronicRenderInput): IEnvVar[] =>
  input.model.highAvailability && input.model.networking.dhcp !== undefined ? [env('IRONIC_FAST_TRACK', 'true')] : [];

/** `IRONIC_HTPASSWD` from the htpasswd Secret we keep. */
export const htpasswdEnv = (secretName: string): IEnvVar => ({
  name: 'IRONIC_HTPASSWD',
  valueFrom: { secretKeyRef: { name: secretName, key: 'htpasswd' } },
});

/**
 * `OS_<GROUP>__<NAME>` for extraConfig. NOTE: dashes become underscores, as oslo.config looks options
 * up by their `dest` name (upstream keeps the dashes, which oslo.config never reads).
 */
export const extraConfigEnv = (input: IronicRenderInput): IEnvVar[] => {
  const key = (s: string): string => s.toUpperCase().replace(/[-.]/g, '_');
  return input.model.extraConfig.map((c) => env(`OS_${key(c.group)}__${key(c.name)}`, c.value));
};

/** A pool's network as a CIDR (`192.0.2.0/24`). */
const poolNetwork = (pool: DHCPPool): string | undefined => {
  const parsed = parseCIDR(`${pool.begin}/${pool.prefixLength}`);
  return parsed === undefined ? undefined : `${parsed.network}/${pool.prefixLength}`;
};

/**
 * The most addresses of an IPv6 DHCP range listed one by one in NO_PROXY (a few kilobytes of environment).
 * NOTE: Python's requests, which Ironic calls the agents with, matches IPv4 networks in no_proxy but no IPv6
 * ones (psf/requests#6313); an IPv6 host is bypassed only when its address is listed (it compares the end of
 * the host name), so the addresses dnsmasq hands out are listed as well as the network (which curl honours).
 */
export const MAX_LISTED_IPV6_ADDRESSES = 256;

/** The entries of one DHCP pool: its network, and for IPv6 every address of the range when there are few enough. */
const poolNoProxy = (pool: DHCPPool): string[] => {
  const network = poolNetwork(pool);
  const listed = pool.family === 'ipv6' ? (addressesInRange(pool.begin, pool.end, MAX_LISTED_IPV6_ADDRESSES) ?? []) : [];
  return [...(network !== undefined ? [network] : []), ...listed];
};

/** The IPv6 DHCP ranges too large to list in NO_PROXY, as `begin-end`: agent calls there may go through the proxy. */
export const unlistedIPv6Ranges = (model: IronicRenderInput['model']): string[] => {
  const dhcp = model.networking.dhcp;
  if (model.proxy === undefined || dhcp === undefined) return [];
  const pools = [...(dhcp.main !== undefined ? [dhcp.main] : []), ...dhcp.extraRanges];
  return pools
    .filter((p) => p.family === 'ipv6' && addressesInRange(p.begin, p.end, MAX_LISTED_IPV6_ADDRESSES) === undefined)
    .map((p) => `${p.begin}-${p.end}`);
};

/**
 * What must never go through the proxy: loopback (the probes curl it), Services (`.svc`: the networking
 * service, a managed database), the provisioning address and the DHCP networks (Ironic calls the ramdisk
 * agents there). NOTE: database connections are not HTTP and never use the proxy; the node addresses of
 * high-availability replicas (JSON-RPC) are not known here: users list their node network in noProxy.
 */
export const automaticNoProxy = (input: IronicRenderInput): string[] => {
  const { networking: n } = input.model;
  const pools = [...(n.dhcp?.main !== undefined ? [n.dhcp.main] : []), ...(n.dhcp?.extraRanges ?? [])];
  return [...baseNoProxy(input.config.clusterDomain), ...(n.ipAddress !== undefined && n.ipAddress !== '' ? [n.ipAddress] : []), ...pools.flatMap(poolNoProxy)];
};

/** The proxy variables of a container of this Ironic (spec.proxy wins field by field over `fallback`). */
export const proxyEnv = (input: IronicRenderInput, fallback: ProxyFallback = {}): IEnvVar[] =>
  proxyVariables(input.model.proxy, automaticNoProxy(input), fallback);
