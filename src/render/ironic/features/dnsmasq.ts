/**
 * dnsmasq (spec.networking.dhcp): DHCP, TFTP and the iPXE chain for network boot, started by ironic-image's
 * rundnsmasq from its environment.
 *
 * With high availability (and a virtual IP, which validation requires then), every node runs the container but
 * only the node that holds the virtual IP serves: a start script runs rundnsmasq while the address is
 * on the provisioning interface and stops dnsmasq within a second of it leaving. dnsmasq is then authoritative,
 * so that the new server answers the renewals of leases the lost one handed out, and it names the virtual IP
 * in the iPXE chain URL (IRONIC_IP), so hosts always load boot.ipxe from the node that answered.
 *
 * dnsmasq mounts the pod's /shared, where rundnsmasq serves TFTP from (/shared/tftpboot, which Ironic's `pxe`
 * boot interface also writes) and looks for custom iPXE firmware (/shared/custom_ipxe_firmware).
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { DHCPModel } from '../../../api/ironic/model.js';
import { IRONIC_GID, IRONIC_UID, withCapabilities } from '../../security.js';
import { buildCommonEnv } from '../common-env.js';
import { dedupeEnv, env, fieldEnv, joinedEnv, optionalEnv, resourcesOf } from '../facts.js';
import { MOUNTS, sharedMount } from '../volumes.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { VIRTUAL_IP_HERE, dnsmasqProbe, startupProbe } from '../probes.js';

/** The command that starts dnsmasq as the image expects. */
export const RUNDNSMASQ = '/bin/rundnsmasq';

/**
 * The fallback of boot.ipxe with high availability, served from /shared/html. Each conductor writes the iPXE file
 * of every host it manages under its own httpd, but hosts load boot.ipxe from the node that holds the virtual IP:
 * when a host's file is not there, boot.ipxe chains this script, which tries the file on every live conductor,
 * then inspection. The conductors are listed by the node's own Ironic API (`GET /v1/conductors`): their host
 * names are the addresses Ironic builds its URLs from (the image's IRONIC_CONDUCTOR_HOST is IRONIC_URL_HOST).
 */
export const PEERS_SCRIPT = 'ha-peers.ipxe';

/**
 * The live conductors' host names, one per line, from the local API (a loopback call to this pod's own Ironic,
 * so its certificate is not verified; the API credentials come from the environment). Python is the image's
 * own (python3.12 renders its configuration files).
 */
export const LIST_CONDUCTORS = [
  'import base64, json, os, ssl, urllib.request',
  'auth = base64.b64encode((os.environ["DHCP_PEERS_USERNAME"] + ":" + os.environ["DHCP_PEERS_PASSWORD"]).encode()).decode()',
  'request = urllib.request.Request(os.environ["DHCP_PEERS_API"] + "/v1/conductors", headers={"Authorization": "Basic " + auth, "X-OpenStack-Ironic-API-Version": "1.49"})',
  'with urllib.request.urlopen(request, timeout=5, context=ssl._create_unverified_context()) as answer:',
  '    for conductor in json.load(answer)["conductors"]:',
  '        if conductor.get("alive"):',
  '            print(conductor["hostname"])',
].join('\n');

/**
 * The start script with high availability: it runs its arguments (rundnsmasq, which execs dnsmasq in its own
 * process) while DHCP_VIRTUAL_IP is on PROVISIONING_INTERFACE, stops it when the address leaves, and exits
 * with dnsmasq's status when dnsmasq stops on its own (the kubelet restarts the container). Each change is
 * one log line that names the node: `kubectl logs -c dnsmasq` tells which node serves. While it serves, it
 * writes the fallback script every ten seconds in the background (so that a slow API never delays the check
 * of the address), and keeps the last one when the API does not answer.
 */
export const DHCP_FAILOVER_SCRIPT = [
  'set -u',
  'node="${NODE_NAME:-this node}"',
  `holds_vip() { [ -n "$(${VIRTUAL_IP_HERE} 2>/dev/null)" ]; }`,
  'write_peers() {',
  '  tmp="$DHCP_PEERS_FILE.$BASHPID.tmp"',
  '  mkdir -p "$(dirname "$DHCP_PEERS_FILE")"',
  '  peers="$(python3.12 -c "$DHCP_PEERS_QUERY" 2>/dev/null)" || peers=""',
  '  if [ -z "$peers" ] && [ -e "$DHCP_PEERS_FILE" ]; then return 0; fi',
  '  {',
  "    echo '#!ipxe'",
  '    for peer in $peers; do',
  '      case "$peer" in \\[*) host="$peer" ;; *:*) host="[$peer]" ;; *) host="$peer" ;; esac',
  '      echo "chain --autofree --timeout 10000 $DHCP_PEERS_URL_SCHEME://$host:$DHCP_PEERS_PORT/pxelinux.cfg/\\${mac:hexhyp} || echo no boot configuration on $peer"',
  '    done',
  "    echo 'chain --autofree inspector.ipxe'",
  '  } >"$tmp" && mv -f "$tmp" "$DHCP_PEERS_FILE"',
  '}',
  'pid=""',
  'ticks=0',
  'stop_dhcp() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid"; pid=""; fi; }',
  "trap 'stop_dhcp; exit 0' TERM INT",
  'echo "dhcp-failover: $node serves DHCP only while it holds $DHCP_VIRTUAL_IP on $PROVISIONING_INTERFACE"',
  'while :; do',
  '  if holds_vip; then',
  '    if [ -z "$pid" ]; then',
  '      echo "dhcp-failover: $DHCP_VIRTUAL_IP is on $node: serving DHCP"',
  '      "$@" &',
  '      pid=$!',
  '      ticks=0',
  '    elif ! kill -0 "$pid" 2>/dev/null; then',
  '      wait "$pid"',
  '      status=$?',
  '      echo "dhcp-failover: dnsmasq stopped on its own with status $status"',
  '      exit $(( status == 0 ? 1 : status ))',
  '    fi',
  '    if [ $(( ticks % 10 )) -eq 0 ]; then write_peers & fi',
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
 * in the image, so rundnsmasq does not wait for it), the start script watches it, and the fallback script's
 * settings: the local API (on loopback: validation refuses bindInterface here) and how the peers serve files.
 */
const failoverEnv = (input: IronicRenderInput): IEnvVar[] => {
  const { networking: n, tls } = input.model;
  const vip = n.ipAddress;
  if (!input.model.highAvailability || vip === undefined) return [];
  const secret = input.credentials.secretName;
  return [
    env('IRONIC_IP', vip),
    env('DHCP_VIRTUAL_IP', vip),
    fieldEnv('NODE_NAME', 'spec.nodeName'),
    env('DHCP_PEERS_API', `${tls.enabled ? 'https' : 'http'}://127.0.0.1:${String(n.apiPort)}`),
    { name: 'DHCP_PEERS_USERNAME', valueFrom: { secretKeyRef: { name: secret, key: 'username' } } },
    { name: 'DHCP_PEERS_PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'password' } } },
    env('DHCP_PEERS_QUERY', LIST_CONDUCTORS),
    // iPXE over TLS loads everything over HTTPS from the httpd's iPXE port.
    env('DHCP_PEERS_URL_SCHEME', tls.ipxe ? 'https' : 'http'),
    env('DHCP_PEERS_PORT', String(tls.ipxe ? n.ipxeTLSPort : n.imageServerPort)),
    env('DHCP_PEERS_FILE', `${MOUNTS.shared}/html/${PEERS_SCRIPT}`),
  ];
};

/** The container's command: rundnsmasq, behind the failover script with high availability. */
const dnsmasqCommand = (input: IronicRenderInput): string[] =>
  input.model.highAvailability ? ['/bin/bash', '-c', DHCP_FAILOVER_SCRIPT, 'dhcp-failover', RUNDNSMASQ] : [RUNDNSMASQ];

/** The standard DNS port: hosts ask the announced server there. */
export const DNS_PORT = 53;

/**
 * With serveDNS: the provisioning IP (IRONIC_IP, the virtual IP with high availability) announced as the DNS
 * server, and dnsmasq's DNS server on. NOTE: the image's DNS_PORT defaults to 0, which turns dnsmasq's DNS off
 * while DNS_IP=provisioning still announces it (upstream's serveDNS announces a server that does not answer).
 * dnsmasq then forwards what it does not know to the resolvers of the container's /etc/resolv.conf.
 */
const dnsEnv = (dhcp: DHCPModel): IEnvVar[] =>
  dhcp.serveDNS ? [env('DNS_IP', 'provisioning'), env('DNS_PORT', String(DNS_PORT))] : optionalEnv('DNS_IP', dhcp.dnsAddress);

/** Common variables and the DHCP settings. */
export const buildDnsmasqEnv = (input: IronicRenderInput, dhcp: DHCPModel, added: readonly IEnvVar[] = []): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...optionalEnv('DHCP_RANGE', dhcpRange(dhcp, input.model.highAvailability)),
    ...dnsEnv(dhcp),
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
    // /shared (this feature's own addition) first, then the certificate of iPXE TLS.
    volumeMounts: [...context.mounts],
    ...resourcesOf(input, 'dnsmasq'),
    startupProbe: startupProbe(probe),
    livenessProbe: probe,
    readinessProbe: probe,
    securityContext: withCapabilities(IRONIC_UID, IRONIC_GID, ['NET_ADMIN', 'NET_BIND_SERVICE', 'NET_RAW']),
  };
};

export const DNSMASQ: IronicFeature = {
  name: 'dnsmasq',
  order: 80,
  applies: (model) => model.networking.dhcp !== undefined,
  containers: [
    { name: 'dnsmasq', build: (input, context) => input.model.networking.dhcp && buildDnsmasqContainer(input, input.model.networking.dhcp, context) },
  ],
  // /shared: TFTP's root and the custom firmware, and with high availability the peers' fallback script
  // (written into /shared/html and named in ironic.conf). iPXE TLS adds the same mount: the pod keeps one.
  mounts: () => ({ dnsmasq: [sharedMount] }),
  env: (input) => (input.model.highAvailability ? { ironic: [env('OS_PXE__IPXE_FALLBACK_SCRIPT', PEERS_SCRIPT)] } : {}),
};
