/**
 * High availability: one Ironic per selected node (a DaemonSet, workload.ts), talking JSON-RPC over TLS with
 * certificates from a private CA, authenticated with the API credentials. Each pod issues its own leaf
 * certificate at start (the init container `rpc-certificate`) for its node's addresses.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { CONTENT_COMPONENTS, LABELS, RPC_CA_ANNOTATION } from '../../names.js';
import { ironicSecretLabels } from '../../meta.js';
import { IRONIC_GID } from '../../security.js';
import { buildIssuerContainer, DEFAULT_HOOK_IMAGE, renderCASecret } from '../../shared/certificate-issuer.js';
import { fieldEnv, provisioningEnv, resourcesOf } from '../facts.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { readOnlyMount, rpcAuthMount, rpcAuthVolume } from '../volumes.js';

const RPC_PATHS = { cert: '/certs/rpc', ca: '/certs/rpc-ca', caKey: '/ca' } as const;

const RPC_VOLUMES = { cert: 'rpc-cert', ca: 'rpc-ca', caKey: 'rpc-ca-key' } as const;

const caSecretName = (input: IronicRenderInput): string => input.rpcCA?.secretName ?? '';

/** `<name>-rpc-ca-<hash>`: the JSON-RPC CA. */
export const renderRpcCASecret = (input: IronicRenderInput): ISecret | undefined =>
  input.rpcCA !== undefined
    ? renderCASecret(input.rpcCA, input.namespace, { ...ironicSecretLabels(input.name), [LABELS.component]: CONTENT_COMPONENTS.rpcCA })
    : undefined;

/**
 * The conductor's role, and JSON-RPC TLS through oslo.config environment overrides, independent of the API's
 * TLS: the server certificate ([ssl]) is the replica's own leaf, peers are verified with the private CA only.
 */
export const rpcTLSEnv = (input: IronicRenderInput): IEnvVar[] => [
  { name: 'IRONIC_DEPLOYMENT', value: 'Conductor' },
  { name: 'OS_JSON_RPC__USE_SSL', value: 'true' },
  // Recent Ironic reads [json_rpc]cert_file/key_file; older releases only the [ssl] group. An option a
  // release does not register is never read from the environment, so both are safe.
  { name: 'OS_JSON_RPC__CERT_FILE', value: `${RPC_PATHS.cert}/tls.crt` },
  { name: 'OS_JSON_RPC__KEY_FILE', value: `${RPC_PATHS.cert}/tls.key` },
  { name: 'OS_SSL__CERT_FILE', value: `${RPC_PATHS.cert}/tls.crt` },
  { name: 'OS_SSL__KEY_FILE', value: `${RPC_PATHS.cert}/tls.key` },
  { name: 'OS_JSON_RPC__CAFILE', value: `${RPC_PATHS.ca}/ca.crt` },
  ...(input.model.tls.insecureRPC ? [{ name: 'OS_JSON_RPC__INSECURE', value: 'true' }] : []),
];

/** Mounts of the ironic container in HA: the RPC credentials, its leaf certificate and the CA certificate. */
const rpcMounts = (): IVolumeMount[] => [rpcAuthMount, readOnlyMount(RPC_VOLUMES.cert, RPC_PATHS.cert), readOnlyMount(RPC_VOLUMES.ca, RPC_PATHS.ca)];

/**
 * HA volumes: the RPC credentials (username and password of the API credentials, and our htpasswd) as
 * one projected volume, the CA certificate alone, the CA with its key (init container only), and the
 * emptyDir the leaf is written to.
 */
const rpcVolumes = (input: IronicRenderInput): IVolume[] => [
  rpcAuthVolume(input),
  // The trust bundle only (no key): during a rotation it holds both CAs.
  { name: RPC_VOLUMES.ca, secret: { secretName: caSecretName(input), items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
  // Readable by the init container through the pod's fsGroup (the ironic group), by no one else.
  { name: RPC_VOLUMES.caKey, secret: { secretName: caSecretName(input), defaultMode: 0o440 } },
  { name: RPC_VOLUMES.cert, emptyDir: { medium: 'Memory' } },
];

/** The init container that issues this replica's leaf certificate for the node (and pod) IP. */
export const buildRpcCertificateContainer = (input: IronicRenderInput): IContainer =>
  buildIssuerContainer({
    name: 'rpc-certificate',
    image: input.config.hookImage ?? DEFAULT_HOOK_IMAGE,
    caVolume: RPC_VOLUMES.caKey,
    caPath: RPC_PATHS.caKey,
    certVolume: RPC_VOLUMES.cert,
    certPath: RPC_PATHS.cert,
    // The same provisioning settings as Ironic: the certificate must cover the address the conductor
    // registers, which the image derives from them (an interface's address, not always the node IP).
    addressEnv: [...provisioningEnv(input), fieldEnv('HOST_IP', 'status.hostIP'), fieldEnv('POD_IP', 'status.podIP')],
    ...resourcesOf(input, 'rpc-certificate'),
  });

export const JSON_RPC: IronicFeature = {
  name: 'json-rpc',
  order: 90,
  applies: (model) => model.highAvailability,
  initContainers: [{ name: 'rpc-certificate', build: buildRpcCertificateContainer }],
  volumes: rpcVolumes,
  env: (input) => ({ ironic: rpcTLSEnv(input) }),
  mounts: () => ({ ironic: rpcMounts() }),
  annotations: (input) => (input.rpcCA !== undefined ? { [RPC_CA_ANNOTATION]: input.rpcCA.hash } : {}),
  // The CA key is readable by the ironic group only: the certificate issuer runs in it.
  podSpec: () => ({ securityContext: { fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch' } }),
  children: (input) => [renderRpcCASecret(input)],
  ownsSecret: (names, secret) => secret.startsWith(names.rpcCAPrefix),
};
