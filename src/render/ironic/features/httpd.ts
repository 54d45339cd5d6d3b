/**
 * The httpd container: the image server (and, with TLS, the API in front of Ironic's unix socket), started
 * by ironic-image's runhttpd.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { preStopPause } from '../conductor.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { buildCommonEnv, htpasswdEnv } from '../common-env.js';
import { PORT_NAMES, containerPort, dedupeEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { httpdProbe, startupProbe } from '../probes.js';
import { buildIronicMounts, scratchMounts } from '../volumes.js';

/** Common variables, and the htpasswd when it terminates TLS. */
const buildHttpdEnv = (input: IronicRenderInput, added: readonly IEnvVar[]): IEnvVar[] =>
  dedupeEnv([...buildCommonEnv(input), ...(input.model.tls.enabled ? [htpasswdEnv(input.credentials.htpasswdSecretName)] : []), ...added]);

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
  applies: () => true,
  containers: [{ name: 'httpd', build: buildHttpdContainer }],
};
