/**
 * The httpd container: the image server (and, with TLS, the API in front of Ironic's unix socket), started
 * by ironic-image's runhttpd.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { preStopPause } from '../conductor.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { buildCommonEnv, htpasswdEnv } from '../common-env.js';
import { PORT_NAMES, containerPort, dedupeEnv, env, joinedEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { httpdProbe, startupProbe } from '../probes.js';
import { buildIronicMounts, scratchMounts } from '../volumes.js';
import { apacheSSLProtocol, resolveTLSProfile, type ResolvedTLSProfile } from '../../shared/tls-profiles.js';

/**
 * One virtual host's share of spec.tls.profile, under the names ironic-image's templates read for it
 * (httpd-ironic-api.conf.j2, apache2-vmedia.conf.j2, apache2-ipxe.conf.j2). The iPXE vhost reads only its
 * SSLProtocol. TLS 1.3 suites are never set: every profile keeps OpenSSL's (Mozilla's) defaults.
 */
type VhostVariables = { readonly protocol: string; readonly ciphers?: string; readonly curves?: string; readonly serverOrder?: string };

const API_VARIABLES: VhostVariables = {
  protocol: 'IRONIC_SSL_PROTOCOL',
  ciphers: 'IRONIC_TLS_12_CIPHERS',
  curves: 'IRONIC_TLS_CURVES',
  serverOrder: 'IRONIC_TLS_ENFORCE_SERVER_CIPHER_ORDER',
};
const VMEDIA_VARIABLES: VhostVariables = {
  protocol: 'IRONIC_VMEDIA_SSL_PROTOCOL',
  ciphers: 'IRONIC_VMEDIA_TLS_12_CIPHERS',
  curves: 'IRONIC_VMEDIA_CURVES',
  serverOrder: 'IRONIC_VMEDIA_TLS_ENFORCE_SERVER_CIPHER_ORDER',
};
const IPXE_VARIABLES: VhostVariables = { protocol: 'IPXE_SSL_PROTOCOL' };

const vhostEnv = (names: VhostVariables, profile: ResolvedTLSProfile): IEnvVar[] => [
  env(names.protocol, apacheSSLProtocol(profile.minTLSVersion)),
  ...(names.ciphers !== undefined ? joinedEnv(names.ciphers, profile.ciphers, ':') : []),
  ...(names.curves !== undefined ? joinedEnv(names.curves, profile.curves, ':') : []),
  ...(names.serverOrder !== undefined && profile.serverCipherOrder ? [env(names.serverOrder, 'true')] : []),
];

/** The variables of spec.tls.profile for the vhosts this Ironic serves over TLS; none without a profile (the image's defaults). */
export const tlsProfileEnv = (input: IronicRenderInput): IEnvVar[] => {
  const { tls } = input.model;
  if (tls.profile === undefined || !tls.enabled) return [];
  const profile = resolveTLSProfile(tls.profile);
  return [
    ...vhostEnv(API_VARIABLES, profile),
    ...(tls.virtualMedia ? vhostEnv(VMEDIA_VARIABLES, profile) : []),
    ...(tls.ipxe ? vhostEnv(IPXE_VARIABLES, profile) : []),
  ];
};

/** Common variables, and the htpasswd when it terminates TLS. */
const buildHttpdEnv = (input: IronicRenderInput, added: readonly IEnvVar[]): IEnvVar[] =>
  dedupeEnv([
    ...buildCommonEnv(input),
    ...(input.model.tls.enabled ? [htpasswdEnv(input.credentials.htpasswdSecretName)] : []),
    ...tlsProfileEnv(input),
    ...added,
  ]);

const buildHttpdContainer = (input: IronicRenderInput, context: ContainerContext): IContainer => {
  const { networking: n, overrides, tls } = input.model;
  const probe = httpdProbe(input);
  return {
    name: 'httpd',
    image: context.images.ironic,
    command: ['/bin/runhttpd'],
    env: buildHttpdEnv(input, context.env),
    ports: [
      containerPort(input, PORT_NAMES.imageServer, n.imageServerPort),
      ...(tls.enabled ? [containerPort(input, PORT_NAMES.api, n.apiPort)] : []),
      ...(tls.virtualMedia ? [containerPort(input, PORT_NAMES.imageServerTLS, n.imageServerTLSPort)] : []),
      // NOTE: nodes reach it at networking.ipAddress on the host network; the Service (for clients in the
      // cluster) does not expose it.
      ...(tls.ipxe ? [containerPort(input, PORT_NAMES.ipxeTLS, n.ipxeTLSPort)] : []),
    ],
    volumeMounts: [...buildIronicMounts(input), ...context.mounts, ...scratchMounts('httpd')],
    ...resourcesOf(input, 'httpd'),
    // httpd waits for the provisioning address like ironic does (up to 20 minutes).
    startupProbe: startupProbe(overrides.httpdLivenessProbe ?? probe),
    livenessProbe: overrides.httpdLivenessProbe ?? probe,
    readinessProbe: overrides.httpdReadinessProbe ?? probe,
    // With TLS it serves the API: the same pause as ironic's before it stops.
    lifecycle: preStopPause(),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

export const HTTPD: IronicFeature = {
  name: 'httpd',
  order: 60,
  applies: () => true,
  containers: [{ name: 'httpd', build: buildHttpdContainer }],
};
