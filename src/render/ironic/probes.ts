/**
 * Probes of the Ironic containers. NOTE: we do not use /bin/ironic-readiness: it fails outside the
 * reverse-proxy mode (ironic-image quirk Q3). Like upstream, we curl the endpoints ourselves.
 */
import type { IProbe } from 'kubernetes-models/v1/Probe';
import ipaddr from 'ipaddr.js';
import type { IronicRenderInput } from './input.js';
import { ownIPAddress } from './facts.js';

const CURL = ['curl', '--head', '--insecure', '--location', '--silent', '--show-error', '--output', '/dev/null'];

/** Timing of every exec probe (upstream: 1s delay, 5s timeout, 12 failures). */
const timing = { initialDelaySeconds: 1, periodSeconds: 10, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 12 } as const;

/** A curl exec probe on a URL; `mustSucceed` adds --fail (HTTP errors then count as failures). */
export const curlProbe = (url: string, mustSucceed: boolean): IProbe => ({
  exec: { command: [...CURL, ...(mustSucceed ? ['--fail'] : []), url] },
  ...timing,
});

/**
 * A startup probe: the image waits up to 20 minutes (IRONIC_IP_WAIT_TIMEOUT) for the provisioning IP, so
 * liveness only starts counting once the service answered once.
 */
export const startupProbe = (probe: IProbe): IProbe => ({ ...probe, initialDelaySeconds: 1, periodSeconds: 10, failureThreshold: 120 });

/**
 * The host probes talk to: loopback, unless Ironic binds only the provisioning address (bindInterface):
 * then that address, literally, or from the PROVISIONING_IP variable of the container when it comes
 * from the downward API (validation refuses bindInterface when the address is not known either way).
 */
export const probeHost = (input: IronicRenderInput): string | undefined => {
  const n = input.model.networking;
  if (!n.bindInterface) return '127.0.0.1';
  const ip = ownIPAddress(input.model);
  if (ip === undefined || ip === '' || !ipaddr.isValid(ip)) return undefined;
  return ipaddr.parse(ip).kind() === 'ipv6' ? `[${ip}]` : ip;
};

/** A curl probe on `scheme://host:port/path`, through a shell when the host comes from PROVISIONING_IP. */
const endpointProbe = (input: IronicRenderInput, scheme: string, port: number, path: string, mustSucceed: boolean): IProbe => {
  const host = probeHost(input);
  if (host !== undefined) return curlProbe(`${scheme}://${host}:${port}${path}`, mustSucceed);
  const curl = [...CURL, ...(mustSucceed ? ['--fail'] : [])].join(' ');
  const script = `h="$PROVISIONING_IP"; case "$h" in *:*) h="[$h]";; esac; exec ${curl} "${scheme}://$h:${port}${path}"`;
  return { exec: { command: ['sh', '-c', script] }, ...timing };
};

/** The Ironic API probe: https when httpd terminates TLS in front of it. */
export const ironicProbe = (input: IronicRenderInput): IProbe =>
  endpointProbe(input, input.model.tls.enabled ? 'https' : 'http', input.model.networking.apiPort, '/v1', true);

/**
 * The httpd probe on the IPA kernel. It must succeed only when the pod serves the kernel itself; otherwise
 * any HTTP answer proves httpd is up.
 */
export const httpdProbe = (input: IronicRenderInput): IProbe => {
  const downloads = input.model.ramdisk.servesKernel;
  const n = input.model.networking;
  // With iPXE TLS, plain HTTP denies everything (httpd.conf.j2): the kernel is served on the iPXE vhost only.
  return input.model.tls.ipxe
    ? endpointProbe(input, 'https', n.ipxeTLSPort, '/images/ironic-python-agent.kernel', downloads)
    : endpointProbe(input, 'http', n.imageServerPort, '/images/ironic-python-agent.kernel', downloads);
};

/** dnsmasq: DHCPv4 (:67) and/or DHCPv6 (:547) listeners, and TFTP (:69). */
/**
 * With high availability: the shell command that prints the virtual IP's line when it is on the provisioning
 * interface of this node, and nothing otherwise (dnsmasq's start script and its probes ask it).
 */
export const VIRTUAL_IP_HERE = 'ip -o addr show dev "$PROVISIONING_INTERFACE" to "$DHCP_VIRTUAL_IP"';

export const dnsmasqProbe = (input: IronicRenderInput): IProbe => {
  const families = input.model.networking.dhcp?.families ?? new Set();
  const ports = [...(families.has('ipv4') || families.size === 0 ? [':67'] : []), ...(families.has('ipv6') ? [':547'] : []), ':69'];
  const listening = ports.map((p) => `ss -lun | grep ${p}`).join(' && ');
  // With high availability, a node without the virtual IP serves nothing and is healthy.
  const script = input.model.highAvailability ? `if [ -z "$(${VIRTUAL_IP_HERE})" ]; then exit 0; fi; ${listening}` : listening;
  return { exec: { command: ['sh', '-c', script] }, ...timing };
};

/** The exporter's readiness: GET /metrics, on the bind address unless it is a wildcard. */
export const exporterProbe = (input: IronicRenderInput, bind: string): IProbe | undefined => {
  const port = input.model.networking.prometheusExporterPort;
  const parsed = ipaddr.isValid(bind) ? ipaddr.parse(bind) : undefined;
  const range = parsed?.range();
  const httpGet = { path: '/metrics', port, scheme: 'HTTP' as const };
  const probeTiming = { initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 3 };
  if (range === 'unspecified' || parsed === undefined) return { httpGet, ...probeTiming };
  if (range === 'loopback') {
    // The kubelet reaches the pod's loopback only when the pod shares the host network.
    return !input.model.networking.hostNetwork ? undefined : { httpGet: { ...httpGet, host: '127.0.0.1' }, ...probeTiming };
  }
  return { httpGet: { ...httpGet, host: bind }, ...probeTiming };
};
