/**
 * Environment variables of the Ironic pod, by container. What each variable means is fixed by the
 * ironic-image scripts (ironic-common.sh, tls-common.sh, auth-common.sh, configure-ironic.sh, rundnsmasq).
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { DHCPModel, DHCPPool } from '../../api/model.js';
import { parseCIDR } from '../../api/net.js';
import { listEntries } from '../../api/fields.js';
import type { IronicRenderInput } from './input.js';
import { bracketIPv6, dedupeEnv, env, joinedEnv, optionalEnv, provisioningEnv } from './facts.js';
import { MOUNTS } from './volumes.js';
import { byArch } from './image-cache.js';
import { rpcTLSEnv } from './ha.js';
import { ironicNetworkingEnv } from './networking-service.js';

/**
 * The IPA of an image cache: its first architecture is the default (hosts without cpu_arch), and every
 * architecture goes into the _BY_ARCH lists, which inspector.ipxe also boots from (without them it would
 * ask this Ironic's own httpd for the downloader's files, which no longer exist).
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
    ...joinedEnv('DEPLOY_KERNEL_BY_ARCH', imagesByArch.map((i) => `${i.architecture}:${i.kernel.trim()}`), ','),
    ...joinedEnv('DEPLOY_RAMDISK_BY_ARCH', imagesByArch.map((i) => `${i.architecture}:${i.initramfs.trim()}`), ','),
  ];
};

/** The trusted CA file, when a trusted CA is mounted. */
const trustedCAFile = (input: IronicRenderInput): string | undefined =>
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
  ];
};

const databaseEnv = (input: IronicRenderInput): IEnvVar[] => {
  const db = input.references.database;
  if (db === undefined) return [env('IRONIC_USE_MARIADB', 'false')];
  return [
    env('IRONIC_USE_MARIADB', 'true'),
    env('MARIADB_HOST', db.host),
    env('MARIADB_DATABASE', db.name),
    // Schema upgrades run in Jobs before the new version starts.
    env('IRONIC_SKIP_DBSYNC', 'true'),
  ];
};

/** The conductor role and JSON-RPC TLS of an HA replica. */
const haEnv = (input: IronicRenderInput): IEnvVar[] => (input.model.highAvailability ? [env('IRONIC_DEPLOYMENT', 'Conductor'), ...rpcTLSEnv(input)] : []);

const rpcEnv = (input: IronicRenderInput): IEnvVar[] => {
  const ha = input.model.highAvailability;
  return [
    env('IRONIC_EXPOSE_JSON_RPC', ha ? 'true' : 'false'),
    env('IRONIC_JSON_RPC_PORT', String(input.model.networking.rpcPort)),
  ];
};

/** `IRONIC_HTPASSWD` from the htpasswd Secret we keep. */
export const htpasswdEnv = (secretName: string): IEnvVar => ({
  name: 'IRONIC_HTPASSWD',
  valueFrom: { secretKeyRef: { name: secretName, key: 'htpasswd' } },
});

const caFileEnv = (input: IronicRenderInput): IEnvVar[] => {
  // The init container writes the bundle next to the certificate it issues.
  if (input.generatedTLS !== undefined) return [env('IRONIC_CACERT_FILE', `${MOUNTS.tls}/ca.crt`)];
  const tls = input.references.tls;
  if (tls === undefined) return [];
  if (tls.hasCA) return [env('IRONIC_CACERT_FILE', `${MOUNTS.tls}/ca.crt`)];
  return optionalEnv('IRONIC_CACERT_FILE', trustedCAFile(input));
};

/**
 * `OS_<GROUP>__<NAME>` for extraConfig. NOTE: dashes become underscores, as oslo.config looks options
 * up by their `dest` name (upstream keeps the dashes, which oslo.config never reads).
 */
export const extraConfigEnv = (input: IronicRenderInput): IEnvVar[] => {
  const key = (s: string): string => s.toUpperCase().replace(/[-.]/g, '_');
  return input.model.extraConfig.map((c) => env(`OS_${key(c.group)}__${key(c.name)}`, c.value));
};

const externalURLEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.model.networking;
  const host = n.ingress?.host;
  if (host !== undefined) {
    return [
      env('IRONIC_EXTERNAL_CALLBACK_URL', n.externalCallbackURL ?? `https://${host}`),
      env('IRONIC_EXTERNAL_HTTP_URL', n.imageServerExternalURL ?? `https://${host}`),
    ];
  }
  if (n.externalCallbackURL !== undefined && n.imageServerExternalURL !== undefined) {
    return [env('IRONIC_EXTERNAL_CALLBACK_URL', n.externalCallbackURL), env('IRONIC_EXTERNAL_HTTP_URL', n.imageServerExternalURL)];
  }
  return [];
};

const exporterIronicEnv = (input: IronicRenderInput): IEnvVar[] => {
  const exporter = input.model.exporter;
  if (exporter === undefined) return [];
  return [env('SEND_SENSOR_DATA', 'true'), env('OS_SENSOR_DATA__INTERVAL', String(exporter.sensorCollectionInterval))];
};

/** A pool's network as a CIDR (`192.0.2.0/24`). */
const poolNetwork = (pool: DHCPPool): string | undefined => {
  const parsed = parseCIDR(`${pool.begin}/${pool.prefixLength}`);
  return parsed === undefined ? undefined : `${parsed.network}/${pool.prefixLength}`;
};

/**
 * What must never go through the proxy: loopback (the probes curl it), Services (`.svc`: the networking
 * service, a managed database), the provisioning address and the DHCP networks (Ironic calls the ramdisk
 * agents there). NOTE: database connections are not HTTP and never use the proxy; the node addresses of
 * high-availability replicas (JSON-RPC) are not known here: users list their node network in noProxy.
 */
export const automaticNoProxy = (input: IronicRenderInput): string[] => {
  const { networking: n } = input.model;
  const domain = input.config.clusterDomain;
  const pools = [...(n.dhcp?.main !== undefined ? [n.dhcp.main] : []), ...(n.dhcp?.extraRanges ?? [])];
  return [
    'localhost',
    '127.0.0.1',
    '::1',
    '.svc',
    ...(domain !== '' ? [`.svc.${domain}`] : []),
    ...(n.ipAddress !== undefined && n.ipAddress !== '' ? [n.ipAddress] : []),
    ...pools.map(poolNetwork).filter((c): c is string => c !== undefined),
  ];
};

/** Proxy settings the hook server has for one container (the downloader's IPA_*_PROXY), by variable. */
type ProxyFallback = { readonly HTTP_PROXY?: string | undefined; readonly HTTPS_PROXY?: string | undefined; readonly NO_PROXY?: string | undefined };

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const;

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY, each in upper and lower case (curl reads only `http_proxy` for http
 * URLs; Python's requests prefers the lower case). spec.proxy wins field by field over `fallback`. With a
 * proxy, NO_PROXY also lists automaticNoProxy.
 */
export const proxyEnv = (input: IronicRenderInput, fallback: ProxyFallback = {}): IEnvVar[] => {
  const proxy = input.model.proxy;
  const http = proxy?.httpProxy ?? fallback.HTTP_PROXY;
  const https = proxy?.httpsProxy ?? fallback.HTTPS_PROXY;
  const given = proxy !== undefined && proxy.noProxy.length > 0 ? proxy.noProxy : listEntries(fallback.NO_PROXY);
  const noProxy = http !== undefined || https !== undefined ? [...new Set([...given, ...automaticNoProxy(input)])] : given;
  const values: Readonly<Record<(typeof PROXY_VARIABLES)[number], string | undefined>> = { HTTP_PROXY: http, HTTPS_PROXY: https, NO_PROXY: noProxy.join(',') };
  return PROXY_VARIABLES.flatMap((name) => [...optionalEnv(name, values[name]), ...optionalEnv(name.toLowerCase(), values[name])]);
};

/** The ironic container: common variables, then database, RPC, auth, CA, extraConfig, URLs, sensors. */
export const buildIronicEnv = (input: IronicRenderInput): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...databaseEnv(input),
    ...rpcEnv(input),
    // Ironic authenticates itself without TLS; with TLS, httpd does it in front of the unix socket. In HA the
    // JSON-RPC server of each replica also needs it.
    ...(!input.model.tls.enabled || input.model.highAvailability ? [htpasswdEnv(input.credentials.htpasswdSecretName)] : []),
    ...caFileEnv(input),
    ...optionalEnv('IRONIC_EXTERNAL_IP', input.model.networking.externalIP),
    ...externalURLEnv(input),
    ...haEnv(input),
    ...exporterIronicEnv(input),
    ...ironicNetworkingEnv(input),
    ...proxyEnv(input),
    ...extraConfigEnv(input),
  ]);

/** The httpd container: common variables, and the htpasswd when it terminates TLS. */
export const buildHttpdEnv = (input: IronicRenderInput): IEnvVar[] =>
  dedupeEnv([...buildCommonEnv(input), ...(input.model.tls.enabled ? [htpasswdEnv(input.credentials.htpasswdSecretName)] : [])]);

/** dnsmasq `DHCP_RANGE`: `begin,end,mask` for the main pool, `set:range_N,begin,end,mask` for each extra one. */
export const dhcpRange = (dhcp: DHCPModel): string =>
  [
    ...(dhcp.main !== undefined ? [`${dhcp.main.begin},${dhcp.main.end},${dhcp.main.mask}`] : []),
    ...dhcp.extraRanges.map((r, i) => `set:range_${i + 1},${r.begin},${r.end},${r.mask}`),
  ].join(';');

/** dnsmasq `DHCP_OPTIONS`: a router per extra pool, or none (so the main router is not announced there). */
export const dhcpOptions = (dhcp: DHCPModel): string =>
  dhcp.extraRanges
    .map((r, i) => {
      if (r.gatewayAddress !== undefined) return `tag:range_${i + 1},option:router,${r.gatewayAddress}`;
      if (dhcp.gatewayAddress !== undefined && r.family === 'ipv4') return `tag:range_${i + 1},option:router`;
      return undefined;
    })
    .filter((o): o is string => o !== undefined)
    .join(';');

/** The dnsmasq container: common variables and the DHCP settings. */
export const buildDnsmasqEnv = (input: IronicRenderInput, dhcp: DHCPModel): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...optionalEnv('DHCP_RANGE', dhcpRange(dhcp)),
    ...optionalEnv('DNS_IP', dhcp.serveDNS ? 'provisioning' : dhcp.dnsAddress),
    ...optionalEnv('GATEWAY_IP', dhcp.gatewayAddress),
    ...optionalEnv('DHCP_OPTIONS', dhcpOptions(dhcp)),
    ...joinedEnv('DHCP_HOSTS', dhcp.hosts, ';'),
    ...joinedEnv('DHCP_IGNORE', dhcp.ignore, ','),
  ]);

/** keepalived: the VIP list (new mode), or the provisioning IP and interface (legacy ipAddressManager). */
export const buildKeepalivedEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.model.networking;
  if (n.keepalived?.mode !== 'vips') {
    return [...optionalEnv('PROVISIONING_IP', n.ipAddress), ...optionalEnv('PROVISIONING_INTERFACE', n.interface)];
  }
  // NOTE: the main VIP takes the prefix of the DHCP network, or dnsmasq sees a /32 and hands out no lease.
  const prefix = n.dhcp?.mainNetwork?.prefixLength;
  const main = `${n.ipAddress ?? ''},${n.interface ?? ''}${prefix !== undefined ? `,${prefix}` : ''}`;
  const extra = n.keepalived.additionalVIPs.map(
    (v) => `${v.ipAddress},${v.interface}${v.prefix !== undefined ? `,${v.prefix}` : ''}`,
  );
  return [env('KEEPALIVED_VIRTUAL_IPS', [main, ...extra].join(' '))];
};


/** The Prometheus exporter (gunicorn). */
export const buildExporterEnv = (input: IronicRenderInput, bindAddress: string): IEnvVar[] => [
  // gunicorn is started with `-b $FLASK_RUN_HOST:$FLASK_RUN_PORT`: an IPv6 address needs brackets.
  env('FLASK_RUN_HOST', bracketIPv6(bindAddress)),
  env('FLASK_RUN_PORT', String(input.model.networking.prometheusExporterPort)),
];

/** The IPA downloader: the branch, the operator-wide settings (sorted), then the proxy (spec.proxy first). */
export const buildDownloaderEnv = (input: IronicRenderInput): IEnvVar[] => {
  const configured = input.config.downloaderEnv;
  const proxyNames: readonly string[] = PROXY_VARIABLES;
  return dedupeEnv([
    ...optionalEnv('IPA_BRANCH', input.model.ramdisk.branch),
    ...Object.keys(configured)
      .filter((k) => !proxyNames.includes(k))
      .sort()
      .flatMap((k) => optionalEnv(k, configured[k])),
    ...proxyEnv(input, { HTTP_PROXY: configured['HTTP_PROXY'], HTTPS_PROXY: configured['HTTPS_PROXY'], NO_PROXY: configured['NO_PROXY'] }),
  ]);
};
