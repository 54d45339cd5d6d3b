/**
 * The ironic container: the API (behind httpd with TLS) and the conductor, configured by ironic-image's
 * runironic from its environment.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IContainerPort } from 'kubernetes-models/v1/ContainerPort';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { buildCommonEnv, extraConfigEnv, htpasswdEnv, proxyEnv, trustedCAFile } from '../common-env.js';
import { conductorEnv, databasePoolEnv, hashRingEnv, loggingEnv, preStopPause, terminationGracePeriod } from '../conductor.js';
import { PORT_NAMES, containerPort, dedupeEnv, env, optionalEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { ironicProbe, startupProbe } from '../probes.js';
import { MOUNTS, buildIronicMounts, scratchMounts } from '../volumes.js';

const databaseEnv = (input: IronicRenderInput): IEnvVar[] => {
  const db = input.references.database;
  if (db === undefined) return [env('IRONIC_USE_MARIADB', 'false')];
  return [
    env('IRONIC_USE_MARIADB', 'true'),
    env('MARIADB_HOST', db.host),
    env('MARIADB_DATABASE', db.name),
    // Schema upgrades run in Jobs before the new version starts.
    env('IRONIC_SKIP_DBSYNC', 'true'),
    ...databasePoolEnv(input.model),
  ];
};

/** JSON-RPC is exposed to the other conductors in HA only (the JSON-RPC feature adds its TLS settings). */
const rpcEnv = (input: IronicRenderInput): IEnvVar[] => [
  env('IRONIC_EXPOSE_JSON_RPC', input.model.highAvailability ? 'true' : 'false'),
  env('IRONIC_JSON_RPC_PORT', String(input.model.networking.rpcPort)),
];

const caFileEnv = (input: IronicRenderInput): IEnvVar[] => {
  // The init container writes the bundle next to the certificate it issues.
  if (input.generatedTLS !== undefined) return [env('IRONIC_CACERT_FILE', `${MOUNTS.tls}/ca.crt`)];
  const tls = input.references.tls;
  if (tls === undefined) return [];
  if (tls.hasCA) return [env('IRONIC_CACERT_FILE', `${MOUNTS.tls}/ca.crt`)];
  return optionalEnv('IRONIC_CACERT_FILE', trustedCAFile(input));
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

/**
 * The ironic container's variables: common ones, database, RPC, auth, CA, external addresses, then what
 * other features add, then the proxy and the user's extraConfig (which may override any of them).
 */
export const buildIronicEnv = (input: IronicRenderInput, added: readonly IEnvVar[]): IEnvVar[] =>
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
    ...conductorEnv(input.model),
    ...hashRingEnv(input.model),
    ...loggingEnv(input.model),
    ...added,
    ...proxyEnv(input),
    ...extraConfigEnv(input),
  ]);

/** The API port without TLS (with TLS httpd serves it, in front of a unix socket), and the JSON-RPC port in HA. */
const ironicPorts = (input: IronicRenderInput): IContainerPort[] => [
  ...(!input.model.tls.enabled ? [containerPort(input, PORT_NAMES.api, input.model.networking.apiPort)] : []),
  ...(input.model.highAvailability ? [containerPort(input, PORT_NAMES.rpc, input.model.networking.rpcPort)] : []),
];

const buildIronicContainer = (input: IronicRenderInput, context: ContainerContext): IContainer => {
  const probe = ironicProbe(input);
  const ports = ironicPorts(input);
  return {
    name: 'ironic',
    image: context.images.ironic,
    command: ['/bin/runironic'],
    env: buildIronicEnv(input, context.env),
    ...(ports.length > 0 && { ports }),
    volumeMounts: [...buildIronicMounts(input), ...context.mounts, ...scratchMounts('ironic')],
    ...resourcesOf(input, 'ironic'),
    startupProbe: startupProbe(probe),
    livenessProbe: probe,
    readinessProbe: probe,
    lifecycle: preStopPause(),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

export const IRONIC: IronicFeature = {
  name: 'ironic',
  order: 50,
  applies: () => true,
  containers: [{ name: 'ironic', build: buildIronicContainer }],
  // Time for the pause and the conductor's whole stop (conductor.ts), instead of Kubernetes' 30 s.
  podSpec: (input) => ({ terminationGracePeriodSeconds: terminationGracePeriod(input.model) }),
};
