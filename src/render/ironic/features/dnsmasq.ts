/**
 * dnsmasq (spec.networking.dhcp, one replica only): DHCP, TFTP and the iPXE chain for network boot, started by
 * ironic-image's rundnsmasq from its environment.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { DHCPModel } from '../../../api/model.js';
import { IRONIC_GID, IRONIC_UID, withCapabilities } from '../../security.js';
import { buildCommonEnv } from '../common-env.js';
import { dedupeEnv, joinedEnv, optionalEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { dnsmasqProbe, startupProbe } from '../probes.js';

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

/** Common variables and the DHCP settings. */
export const buildDnsmasqEnv = (input: IronicRenderInput, dhcp: DHCPModel, added: readonly IEnvVar[] = []): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...optionalEnv('DHCP_RANGE', dhcpRange(dhcp)),
    ...optionalEnv('DNS_IP', dhcp.serveDNS ? 'provisioning' : dhcp.dnsAddress),
    ...optionalEnv('GATEWAY_IP', dhcp.gatewayAddress),
    ...optionalEnv('DHCP_OPTIONS', dhcpOptions(dhcp)),
    ...joinedEnv('DHCP_HOSTS', dhcp.hosts, ';'),
    ...joinedEnv('DHCP_IGNORE', dhcp.ignore, ','),
    ...added,
  ]);

const buildDnsmasqContainer = (input: IronicRenderInput, dhcp: DHCPModel, context: ContainerContext): IContainer => {
  const probe = dnsmasqProbe(input);
  return {
    name: 'dnsmasq',
    image: context.images.ironic,
    command: ['/bin/rundnsmasq'],
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
  // NOTE: refused with highAvailability by validation; never rendered there.
  applies: (model) => model.networking.dhcp !== undefined && !model.highAvailability,
  containers: [
    { name: 'dnsmasq', build: (input, context) => input.model.networking.dhcp && buildDnsmasqContainer(input, input.model.networking.dhcp, context) },
  ],
};
