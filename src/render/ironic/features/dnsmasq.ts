/**
 * dnsmasq (spec.networking.dhcp): DHCP, TFTP and the iPXE chain for network boot, started by ironic-image's
 * rundnsmasq from its environment.
 *
 * With high availability (and keepalived, which validation requires then), every node runs the container but
 * only the node that holds keepalived's virtual IP serves: a start script runs rundnsmasq while the address is
 * on the provisioning interface and stops dnsmasq within a second of it leaving. dnsmasq is then authoritative,
 * so that the new server answers the renewals of leases the lost one handed out, and it names the virtual IP
 * as next server and in the iPXE chain URL (IRONIC_IP), so hosts always boot from the node that answered.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IService } from 'kubernetes-models/v1/Service';
import type { DHCPModel } from '../../../api/model.js';
import { IRONIC_GID, IRONIC_UID, withCapabilities } from '../../security.js';
import { buildCommonEnv } from '../common-env.js';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { PORT_NAMES, childLabels, dedupeEnv, env, fieldEnv, joinedEnv, optionalEnv, resourcesOf, selectorLabels } from '../facts.js';
import { MOUNTS, sharedMount } from '../volumes.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { dnsmasqProbe, startupProbe } from '../probes.js';

/** The command that starts dnsmasq as the image expects. */
export const RUNDNSMASQ = '/bin/rundnsmasq';

/**
 * The start script with high availability: it runs its arguments (rundnsmasq, which execs dnsmasq in its own
 * process) while DHCP_VIRTUAL_IP is on PROVISIONING_INTERFACE, stops it when the address leaves, and exits
 * with dnsmasq's status when dnsmasq stops on its own (the kubelet restarts the container). Each change is
 * one log line that names the node: `kubectl logs -c dnsmasq` tells which node serves.
 */
export const DHCP_FAILOVER_SCRIPT = [
  'set -u',
  'node="${NODE_NAME:-this node}"',
  'holds_vip() { [ -n "$(ip -o addr show dev "$PROVISIONING_INTERFACE" to "$DHCP_VIRTUAL_IP" 2>/dev/null)" ]; }',
  'pid=""',
  // The fallback of boot.ipxe on this node: the per-host iPXE files of the other nodes, then inspection.
  'write_peers() {',
  '  tmp="$DHCP_PEERS_FILE.tmp"',
  '  mkdir -p "$(dirname "$DHCP_PEERS_FILE")"',
  '  {',
  "    echo '#!ipxe'",
  '    for peer in $(getent "$DHCP_PEERS_DATABASE" "$DHCP_PEERS_NAME" | awk \'{ print $1 }\' | sort -u); do',
  '      case "$peer" in *:*) host="[$peer]" ;; *) host="$peer" ;; esac',
  '      echo "chain --autofree $DHCP_PEERS_URL_SCHEME://$host:$DHCP_PEERS_PORT/pxelinux.cfg/\\${mac:hexhyp} || echo no boot configuration on $peer"',
  '    done',
  "    echo 'chain --autofree inspector.ipxe'",
  '  } >"$tmp" && mv -f "$tmp" "$DHCP_PEERS_FILE"',
  '}',
  'ticks=0',
  'stop_dhcp() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid"; pid=""; fi; }',
  "trap 'stop_dhcp; exit 0' TERM INT",
  'echo "dhcp-failover: $node serves DHCP only while it holds $DHCP_VIRTUAL_IP on $PROVISIONING_INTERFACE"',
  'while :; do',
  '  if holds_vip; then',
  '    if [ -z "$pid" ]; then',
  '      echo "dhcp-failover: $DHCP_VIRTUAL_IP is on $node: serving DHCP"',
  '      write_peers',
  '      "$@" &',
  '      pid=$!',
  '    elif ! kill -0 "$pid" 2>/dev/null; then',
  '      wait "$pid"',
  '      status=$?',
  '      echo "dhcp-failover: dnsmasq stopped on its own with status $status"',
  '      exit $(( status == 0 ? 1 : status ))',
  '    elif [ $(( ticks % 10 )) -eq 0 ]; then',
  '      write_peers',
  '    fi',
  '  elif [ -n "$pid" ]; then',
  '    echo "dhcp-failover: $DHCP_VIRTUAL_IP left $node: DHCP stopped"',
  '    stop_dhcp',
  '  fi',
  '  ticks=$(( ticks + 1 ))',
  '  sleep 1 &',
  '  wait $!',
  'done',
].join('\n');

/**
 * `dhcp-authoritative`, for high availability: a server that took over answers a host renewing a lease it never
 * saw (with the address the host has, when it is free) instead of ignoring it until the lease expires. NOTE:
 * the image's template has no setting for it; it writes each DHCP_RANGE item on a line of its own, so the
 * line goes after the last range (tested with the real dnsmasq).
 */
const AUTHORITATIVE = '\ndhcp-authoritative';

/**
 * dnsmasq `DHCP_RANGE`: `begin,end,mask` for the main pool, `set:range_N,begin,end,mask` for each extra one,
 * and the authoritative line with high availability.
 */
export const dhcpRange = (dhcp: DHCPModel, authoritative = false): string =>
  [
    ...(dhcp.main !== undefined ? [`${dhcp.main.begin},${dhcp.main.end},${dhcp.main.mask}`] : []),
    ...dhcp.extraRanges.map((r, i) => `set:range_${i + 1},${r.begin},${r.end},${r.mask}`),
  ].join(';') + (authoritative ? AUTHORITATIVE : '');

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

/**
 * With high availability: the virtual IP is dnsmasq's address (IRONIC_IP wins over the provisioning settings
 * in the image, so rundnsmasq does not wait for it), and the start script watches it.
 */
/** The DNS name of the headless Service (without a cluster domain, the resolver's search list completes it). */
const peersName = (input: IronicRenderInput): string => {
  const domain = input.config.clusterDomain;
  return `${input.names.conductors}.${input.namespace}.svc${domain !== '' ? `.${domain}` : ''}`;
};

const failoverEnv = (input: IronicRenderInput): IEnvVar[] => {
  const { networking: n, tls } = input.model;
  const vip = n.ipAddress;
  if (!input.model.highAvailability || vip === undefined) return [];
  return [
    env('IRONIC_IP', vip),
    env('DHCP_VIRTUAL_IP', vip),
    fieldEnv('NODE_NAME', 'spec.nodeName'),
    env('DHCP_PEERS_NAME', peersName(input)),
    env('DHCP_PEERS_DATABASE', vip.includes(':') ? 'ahostsv6' : 'ahostsv4'),
    // iPXE over TLS loads everything over HTTPS from the httpd's iPXE port.
    env('DHCP_PEERS_URL_SCHEME', tls.ipxe ? 'https' : 'http'),
    env('DHCP_PEERS_PORT', String(tls.ipxe ? n.ipxeTLSPort : n.imageServerPort)),
    env('DHCP_PEERS_FILE', `${MOUNTS.shared}/html/${PEERS_SCRIPT}`),
  ];
};

/**
 * The fallback script of boot.ipxe with high availability. Every node's Ironic writes the iPXE file of each
 * host it manages under its own httpd, and hosts load boot.ipxe from the node that holds the virtual IP: when
 * the file is not there, boot.ipxe chains this script, which the serving node writes (every ten seconds) from
 * the DNS name of a headless Service over the Ironic pods, the node addresses; inspector.ipxe comes last.
 */
export const PEERS_SCRIPT = 'ha-peers.ipxe';

/** The headless Service whose name resolves to the node of every ready Ironic pod (they use the host network). */
export const renderConductorsService = (input: IronicRenderInput): IService => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: input.names.conductors, namespace: input.namespace, labels: childLabels(input) },
  spec: {
    clusterIP: 'None',
    selector: selectorLabels(input),
    ports: [{ name: PORT_NAMES.imageServer, port: input.model.networking.imageServerPort, targetPort: PORT_NAMES.imageServer, protocol: 'TCP' }],
  },
});

/** The container's command: rundnsmasq, behind the failover script with high availability. */
const dnsmasqCommand = (input: IronicRenderInput): string[] =>
  input.model.highAvailability ? ['/bin/bash', '-c', DHCP_FAILOVER_SCRIPT, 'dhcp-failover', RUNDNSMASQ] : [RUNDNSMASQ];

/** Common variables and the DHCP settings. */
export const buildDnsmasqEnv = (input: IronicRenderInput, dhcp: DHCPModel, added: readonly IEnvVar[] = []): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...optionalEnv('DHCP_RANGE', dhcpRange(dhcp, input.model.highAvailability)),
    ...optionalEnv('DNS_IP', dhcp.serveDNS ? 'provisioning' : dhcp.dnsAddress),
    ...optionalEnv('GATEWAY_IP', dhcp.gatewayAddress),
    ...optionalEnv('DHCP_OPTIONS', dhcpOptions(dhcp)),
    ...joinedEnv('DHCP_HOSTS', dhcp.hosts, ';'),
    ...joinedEnv('DHCP_IGNORE', dhcp.ignore, ','),
    ...failoverEnv(input),
    ...added,
  ]);

const buildDnsmasqContainer = (input: IronicRenderInput, dhcp: DHCPModel, context: ContainerContext): IContainer => {
  const probe = dnsmasqProbe(input);
  return {
    name: 'dnsmasq',
    image: context.images.ironic,
    command: dnsmasqCommand(input),
    env: buildDnsmasqEnv(input, dhcp, context.env),
    // NOTE: without iPXE TLS dnsmasq needs no mount (it serves the image's own firmware from its own /shared).
    ...(context.mounts.length > 0 && { volumeMounts: [...context.mounts] }),
    ...resourcesOf(input, 'dnsmasq'),
    startupProbe: startupProbe(probe),
    livenessProbe: probe,
    readinessProbe: probe,
    securityContext: withCapabilities(IRONIC_UID, IRONIC_GID, ['NET_ADMIN', 'NET_BIND_SERVICE', 'NET_RAW']),
  };
};

export const DNSMASQ: IronicFeature = {
  name: 'dnsmasq',
  applies: (model) => model.networking.dhcp !== undefined,
  containers: [
    { name: 'dnsmasq', build: (input, context) => input.model.networking.dhcp && buildDnsmasqContainer(input, input.model.networking.dhcp, context) },
  ],
  // With high availability: the peers' fallback script, written into /shared/html and named in ironic.conf.
  mounts: (input) => (input.model.highAvailability ? { dnsmasq: [sharedMount] } : {}),
  env: (input) => (input.model.highAvailability ? { ironic: [env('OS_PXE__IPXE_FALLBACK_SCRIPT', PEERS_SCRIPT)] } : {}),
  children: (input) => (input.model.highAvailability ? [renderConductorsService(input)] : []),
  wanted: (model, names) => (model.highAvailability ? [{ group: GROUP_KEYS.service, name: names.conductors }] : []),
};
