/**
 * Environment variables of the Ironic pod, by container. What each variable means is fixed by the
 * ironic-image scripts (ironic-common.sh, tls-common.sh, auth-common.sh, configure-ironic.sh, rundnsmasq).
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { parseCIDR, prefixToNetmask } from '../../api/net.js';
import type { DHCP } from '../../api/ironic.js';
import type { IronicRenderInput } from './input.js';
import { MOUNTS } from './volumes.js';
import { rpcTLSEnv } from './ha.js';
import { ironicNetworkingEnv } from './networking-service.js';

/** A plain `name=value` variable. */
export const env = (name: string, value: string): IEnvVar => ({ name, value });

/** Only when the value is non-empty: the image treats an empty variable differently from an absent one. */
const optional = (name: string, value: string | undefined): IEnvVar[] =>
  value !== undefined && value.trim() !== '' ? [env(name, value.trim())] : [];

const joined = (name: string, values: readonly string[] | undefined, separator: string): IEnvVar[] =>
  values !== undefined && values.length > 0 ? [env(name, values.join(separator))] : [];

/**
 * Removes duplicate names: the last value wins, at the position of the first occurrence (so a user's
 * extraConfig may override a variable we set without breaking the order).
 */
export const dedupeEnv = (vars: readonly IEnvVar[]): IEnvVar[] => {
  const last = new Map<string, IEnvVar>();
  for (const v of vars) last.set(v.name, v);
  const seen = new Set<string>();
  const out: IEnvVar[] = [];
  for (const v of vars) {
    if (seen.has(v.name)) continue;
    seen.add(v.name);
    out.push(last.get(v.name) ?? v);
  }
  return out;
};

export const hasTLS = (input: IronicRenderInput): boolean => input.references.tls !== undefined;
export const hasVirtualMediaTLS = (input: IronicRenderInput): boolean => hasTLS(input) && input.spec.tls?.disableVirtualMediaTLS !== true;
export const isHighAvailability = (input: IronicRenderInput): boolean => input.spec.highAvailability === true;
export const hostNetwork = (input: IronicRenderInput): boolean => !input.spec.networking.disableHostNetwork;

export const provisioningEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.spec.networking;
  const explicit = [
    ...optional('PROVISIONING_IP', n.ipAddress),
    ...optional('PROVISIONING_INTERFACE', n.interface),
    ...joined('PROVISIONING_MACS', n.macAddresses, ','),
  ];
  if (explicit.length > 0) return explicit;
  // Without any hint, wait for the IP of the node (or of the pod off the host network).
  const fieldPath = hostNetwork(input) ? 'status.hostIP' : 'status.podIP';
  return [{ name: 'PROVISIONING_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } }];
};

const agentImageEnv = (input: IronicRenderInput): IEnvVar[] => {
  const images = input.spec.overrides?.agentImages ?? [];
  const byDefault = images.find((i) => (i.architecture ?? '') === '');
  const byArch = images.filter((i) => (i.architecture ?? '') !== '');
  return [
    ...optional('DEPLOY_KERNEL_URL', byDefault?.kernel),
    ...optional('DEPLOY_RAMDISK_URL', byDefault?.initramfs),
    ...joined('DEPLOY_KERNEL_BY_ARCH', byArch.map((i) => `${i.architecture ?? ''}:${i.kernel.trim()}`), ','),
    ...joined('DEPLOY_RAMDISK_BY_ARCH', byArch.map((i) => `${i.architecture ?? ''}:${i.initramfs.trim()}`), ','),
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
  const n = input.spec.networking;
  const ramdisk = input.spec.deployRamdisk;
  const inspection = input.spec.inspection;
  return [
    env('IRONIC_LISTEN_PORT', String(n.apiPort)),
    env('IRONIC_ACCESS_PORT', String(n.apiPort)),
    env('HTTP_PORT', String(n.imageServerPort)),
    env('LISTEN_ALL_INTERFACES', n.bindInterface === true ? 'false' : 'true'),
    ...provisioningEnv(input),
    // NOTE: reverse-proxy mode only together with a certificate (ironic-image quirk Q6).
    ...(hasTLS(input) ? [env('IRONIC_PRIVATE_PORT', 'unix'), env('IRONIC_REVERSE_PROXY_SETUP', 'true')] : []),
    // NOTE: the ironic container has no default for it (ironic-image quirk Q1), so it goes everywhere.
    ...(hasVirtualMediaTLS(input) ? [env('VMEDIA_TLS_PORT', String(n.imageServerTLSPort))] : []),
    ...optional('IRONIC_KERNEL_PARAMS', ramdisk?.extraKernelParams),
    ...optional('IRONIC_RAMDISK_SSH_KEY', ramdisk?.sshKey),
    ...joined('IRONIC_IPA_COLLECTORS', inspection?.collectors, ','),
    // Default `all` as configure-ironic.sh does; httpd has no default of its own (quirk Q2).
    env('IRONIC_ENABLE_VLAN_INTERFACES', (inspection?.vlanInterfaces ?? []).length > 0 ? (inspection?.vlanInterfaces ?? []).join(',') : 'all'),
    ...agentImageEnv(input),
    ...optional('WEBSERVER_CACERT_FILE', trustedCAFile(input)),
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

const rpcEnv = (input: IronicRenderInput): IEnvVar[] => {
  const ha = isHighAvailability(input);
  return [
    env('IRONIC_EXPOSE_JSON_RPC', ha ? 'true' : 'false'),
    env('IRONIC_JSON_RPC_PORT', String(input.spec.networking.rpcPort)),
    ...(ha ? [env('IRONIC_DEPLOYMENT', 'Conductor'), ...rpcTLSEnv(input)] : []),
  ];
};

/** `IRONIC_HTPASSWD` from the htpasswd Secret we keep. */
export const htpasswdEnv = (secretName: string): IEnvVar => ({
  name: 'IRONIC_HTPASSWD',
  valueFrom: { secretKeyRef: { name: secretName, key: 'htpasswd' } },
});

const caFileEnv = (input: IronicRenderInput): IEnvVar[] => {
  const tls = input.references.tls;
  if (tls === undefined) return [];
  if (tls.hasCA) return [env('IRONIC_CACERT_FILE', `${MOUNTS.tls}/ca.crt`)];
  return optional('IRONIC_CACERT_FILE', trustedCAFile(input));
};

/**
 * `OS_<GROUP>__<NAME>` for extraConfig. NOTE: dashes become underscores, as oslo.config looks options
 * up by their `dest` name (upstream keeps the dashes, which oslo.config never reads).
 */
export const extraConfigEnv = (input: IronicRenderInput): IEnvVar[] =>
  (input.spec.extraConfig ?? [])
    .filter((c) => (c.name ?? '') !== '' && (c.value ?? '') !== '')
    .map((c) => {
      const group = (c.group ?? '') === '' ? 'DEFAULT' : (c.group ?? '');
      const key = (s: string): string => s.toUpperCase().replace(/[-.]/g, '_');
      return env(`OS_${key(group)}__${key(c.name ?? '')}`, c.value ?? '');
    });

const externalURLEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.spec.networking;
  const host = n.ingress?.host;
  if (n.ingress !== undefined && host !== undefined && host !== '') {
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
  const exporter = input.spec.prometheusExporter;
  if (exporter?.enabled !== true) return [];
  return [env('SEND_SENSOR_DATA', 'true'), env('OS_SENSOR_DATA__INTERVAL', String(exporter.sensorCollectionInterval ?? 60))];
};

/** The ironic container: common variables, then database, RPC, auth, CA, extraConfig, URLs, sensors. */
export const buildIronicEnv = (input: IronicRenderInput, htpasswdSecret: string): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...databaseEnv(input),
    ...rpcEnv(input),
    // Ironic authenticates itself without TLS; with TLS, httpd does it in front of the unix socket. In HA the
    // JSON-RPC server of each replica also needs it.
    ...(!hasTLS(input) || isHighAvailability(input) ? [htpasswdEnv(htpasswdSecret)] : []),
    ...caFileEnv(input),
    ...optional('IRONIC_EXTERNAL_IP', input.spec.networking.externalIP),
    ...externalURLEnv(input),
    ...exporterIronicEnv(input),
    ...ironicNetworkingEnv(input),
    ...extraConfigEnv(input),
  ]);

/** The httpd container: common variables, and the htpasswd when it terminates TLS. */
export const buildHttpdEnv = (input: IronicRenderInput, htpasswdSecret: string): IEnvVar[] =>
  dedupeEnv([...buildCommonEnv(input), ...(hasTLS(input) ? [htpasswdEnv(htpasswdSecret)] : [])]);

/** The dnsmasq mask of a CIDR (the parser validation uses): dotted for IPv4, a prefix length for IPv6. */
const netmaskOf = (cidr: string): string | undefined => {
  const parsed = parseCIDR(cidr);
  if (parsed === undefined) return undefined;
  return parsed.family === 'ipv4' ? prefixToNetmask(parsed.prefixLength, 'ipv4') : String(parsed.prefixLength);
};

/** dnsmasq `DHCP_RANGE`: `begin,end,mask` for the main pool, `set:range_N,begin,end,mask` for each extra one. */
export const dhcpRange = (dhcp: DHCP): string => {
  const entries: string[] = [];
  const mainMask = dhcp.networkCIDR !== undefined ? netmaskOf(dhcp.networkCIDR) : undefined;
  if (mainMask !== undefined && dhcp.rangeBegin !== undefined && dhcp.rangeEnd !== undefined) {
    entries.push(`${dhcp.rangeBegin},${dhcp.rangeEnd},${mainMask}`);
  }
  (dhcp.extraRanges ?? []).forEach((r, i) => {
    const mask = netmaskOf(r.networkCIDR);
    if (mask !== undefined) entries.push(`set:range_${i + 1},${r.rangeBegin},${r.rangeEnd},${mask}`);
  });
  return entries.join(';');
};

const isIPv4CIDR = (cidr: string | undefined): boolean => cidr !== undefined && netmaskOf(cidr)?.includes('.') === true;

/** dnsmasq `DHCP_OPTIONS`: a router per extra pool, or none (so the main router is not announced there). */
export const dhcpOptions = (dhcp: DHCP): string =>
  (dhcp.extraRanges ?? [])
    .map((r, i) => {
      if (r.gatewayAddress !== undefined && r.gatewayAddress !== '') return `tag:range_${i + 1},option:router,${r.gatewayAddress}`;
      if (dhcp.gatewayAddress !== undefined && dhcp.gatewayAddress !== '' && isIPv4CIDR(r.networkCIDR)) return `tag:range_${i + 1},option:router`;
      return undefined;
    })
    .filter((o): o is string => o !== undefined)
    .join(';');

/** The dnsmasq container: common variables and the DHCP settings. */
export const buildDnsmasqEnv = (input: IronicRenderInput, dhcp: DHCP): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...optional('DHCP_RANGE', dhcpRange(dhcp)),
    ...optional('DNS_IP', dhcp.serveDNS === true ? 'provisioning' : dhcp.dnsAddress),
    ...optional('GATEWAY_IP', dhcp.gatewayAddress),
    ...optional('DHCP_OPTIONS', dhcpOptions(dhcp)),
    ...joined('DHCP_HOSTS', dhcp.hosts, ';'),
    ...joined('DHCP_IGNORE', dhcp.ignore, ','),
  ]);

const prefixOf = (cidr: string | undefined): number | undefined => (cidr === undefined ? undefined : parseCIDR(cidr)?.prefixLength);

/** keepalived: the VIP list (new mode), or the provisioning IP and interface (legacy ipAddressManager). */
export const buildKeepalivedEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.spec.networking;
  if (n.keepalived?.enabled !== true) {
    return [...optional('PROVISIONING_IP', n.ipAddress), ...optional('PROVISIONING_INTERFACE', n.interface)];
  }
  // NOTE: the main VIP takes the prefix of the DHCP network, or dnsmasq sees a /32 and hands out no lease.
  const prefix = prefixOf(n.dhcp?.networkCIDR);
  const main = `${n.ipAddress ?? ''},${n.interface ?? ''}${prefix !== undefined ? `,${prefix}` : ''}`;
  const extra = (n.keepalived.additionalVIPs ?? []).map(
    (v) => `${v.ipAddress},${v.interface}${v.prefix !== undefined ? `,${v.prefix}` : ''}`,
  );
  return [env('KEEPALIVED_VIRTUAL_IPS', [main, ...extra].join(' '))];
};

const bracketIPv6 = (address: string): string => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);

/** The Prometheus exporter (gunicorn). */
export const buildExporterEnv = (input: IronicRenderInput): IEnvVar[] => [
  // gunicorn is started with `-b $FLASK_RUN_HOST:$FLASK_RUN_PORT`: an IPv6 address needs brackets.
  env('FLASK_RUN_HOST', bracketIPv6(input.spec.prometheusExporter?.bindAddress ?? '0.0.0.0')),
  env('FLASK_RUN_PORT', String(input.spec.networking.prometheusExporterPort)),
];

/** The IPA downloader: the branch, then the operator-wide settings (sorted). */
export const buildDownloaderEnv = (input: IronicRenderInput): IEnvVar[] => {
  const configured = input.config.downloaderEnv;
  return dedupeEnv([
    ...optional('IPA_BRANCH', input.spec.images?.deployRamdiskBranch),
    ...Object.keys(configured)
      .sort()
      .flatMap((k) => optional(k, configured[k])),
  ]);
};
