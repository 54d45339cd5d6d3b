/**
 * High availability: one Ironic per selected node (a DaemonSet), talking JSON-RPC over TLS with
 * certificates from a private CA, authenticated with the API credentials.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { CONTENT_COMPONENTS, LABELS } from '../names.js';
import { base64, ironicSecretLabels } from '../meta.js';
import type { IronicRenderInput, RpcCAReference } from './input.js';
import { restricted } from '../security.js';
import { childLabels, fieldEnv, provisioningEnv, resourcesOf } from './facts.js';
import { readOnlyMount, rpcAuthMount, rpcAuthVolume } from './volumes.js';

/** The default image of the hook server, which also issues RPC certificates in HA pods. */
export const DEFAULT_HOOK_IMAGE = 'ironic-metacontroller-hooks:0.1.0';
/** Where the compiled issuer lives inside the hook server image. */
export const ISSUER_SCRIPT = '/app/dist/cli/issue-rpc-cert.js';

const RPC_PATHS = { cert: '/certs/rpc', ca: '/certs/rpc-ca', caKey: '/ca' } as const;

const RPC_VOLUMES = { cert: 'rpc-cert', ca: 'rpc-ca', caKey: 'rpc-ca-key' } as const;

const caSecretName = (input: IronicRenderInput): string => input.rpcCA?.secretName ?? '';

/**
 * A CA Secret: the CA certificate and key, immutable and named by content, so a renewal is a new Secret
 * and a rolling restart, never an in-place change.
 */
export const renderCASecret = (input: IronicRenderInput, ca: RpcCAReference, component: string): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: ca.secretName,
    namespace: input.namespace,
    labels: { ...ironicSecretLabels(input.name), [LABELS.component]: component },
  },
  type: 'kubernetes.io/tls',
  immutable: true,
  data: {
    'tls.crt': base64(ca.certPem),
    'tls.key': base64(ca.keyPem),
    'ca.crt': base64(ca.bundlePem),
    ...(ca.next && { 'next.crt': base64(ca.next.certPem), 'next.key': base64(ca.next.keyPem) }),
  },
});

/** `<name>-rpc-ca-<hash>`: the JSON-RPC CA. */
export const renderRpcCASecret = (input: IronicRenderInput): ISecret | undefined =>
  input.rpcCA !== undefined ? renderCASecret(input, input.rpcCA, CONTENT_COMPONENTS.rpcCA) : undefined;

/**
 * JSON-RPC TLS through oslo.config environment overrides, independent of the API's TLS: the server
 * certificate ([ssl]) is the replica's own leaf, peers are verified with the private CA only.
 */
export const rpcTLSEnv = (input: IronicRenderInput): IEnvVar[] => [
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
export const rpcMounts = (): IVolumeMount[] => [rpcAuthMount, readOnlyMount(RPC_VOLUMES.cert, RPC_PATHS.cert), readOnlyMount(RPC_VOLUMES.ca, RPC_PATHS.ca)];

/**
 * HA volumes: the RPC credentials (username and password of the API credentials, and our htpasswd) as
 * one projected volume, the CA certificate alone, the CA with its key (init container only), and the
 * emptyDir the leaf is written to.
 */
export const rpcVolumes = (input: IronicRenderInput): IVolume[] => [
  rpcAuthVolume(input),
  // The trust bundle only (no key): during a rotation it holds both CAs.
  { name: RPC_VOLUMES.ca, secret: { secretName: caSecretName(input), items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
  // Readable by the init container through the pod's fsGroup (the ironic group), by no one else.
  { name: RPC_VOLUMES.caKey, secret: { secretName: caSecretName(input), defaultMode: 0o440 } },
  { name: RPC_VOLUMES.cert, emptyDir: { medium: 'Memory' } },
];

/** The init container that issues this replica's leaf certificate for the node (and pod) IP. */
export const buildRpcCertificateContainer = (input: IronicRenderInput): IContainer => ({
  name: 'rpc-certificate',
  image: input.config.hookImage ?? DEFAULT_HOOK_IMAGE,
  command: ['node', ISSUER_SCRIPT],
  env: [
    { name: 'CA_DIR', value: RPC_PATHS.caKey },
    { name: 'CERT_DIR', value: RPC_PATHS.cert },
    // The same provisioning settings as Ironic: the certificate must cover the address the conductor
    // registers, which the image derives from them (an interface's address, not always the node IP).
    ...provisioningEnv(input),
    fieldEnv('HOST_IP', 'status.hostIP'),
    fieldEnv('POD_IP', 'status.podIP'),
  ],
  volumeMounts: [
    readOnlyMount(RPC_VOLUMES.caKey, RPC_PATHS.caKey),
    { name: RPC_VOLUMES.cert, mountPath: RPC_PATHS.cert },
  ],
  ...resourcesOf(input, 'rpc-certificate'),
  // The ironic user, so that the ironic container can read the key it writes.
  securityContext: restricted(),
});

/** `<name>-service` as a DaemonSet, one node at a time (no surge: the pods use host ports). */
export const renderIronicDaemonSet = (input: IronicRenderInput, template: NonNullable<IDaemonSet['spec']>['template'], selector: Record<string, string>): IDaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: input.names.workload, namespace: input.namespace, labels: childLabels(input) },
  spec: {
    selector: { matchLabels: selector },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    template,
  },
});
