/**
 * The ironic-networking service (switch automation through networking-generic-switch), as upstream
 * renders it (pkg/ironic/networking_deployment.go): a one-replica Deployment `<name>-networking` off the
 * host network, its Service `<name>-networking-service`, and the switch Secrets. Ironic reaches it over
 * JSON-RPC with the API credentials.
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { ProviderNetwork } from '../../api/ironic.js';
import { LABELS, LABEL_PREFIX_KEY, ironicNames, labelValue, versionAnnotation } from '../names.js';
import { base64, ironicLabels, ironicSecretLabels } from '../meta.js';
import { restricted } from '../security.js';
import type { IronicRenderInput } from './input.js';
import { ironicScheduling, resolveImages } from './pod.js';
import { MOUNTS, VOLUMES, scratchMounts, scratchVolume } from './volumes.js';

export const NETWORKING_RPC_PORT = 6190;

/** Contents of the placeholder switch Secrets, for the user to fill in. */
export const SWITCH_PLACEHOLDERS = {
  config: { 'switch-configs.conf': '# networking-generic-switch configuration: one [genericswitch:<name>] section per switch\n' },
  credentials: {},
} as const satisfies Record<string, Record<string, string>>;
const CONFIG_DIR = '/etc/ironic/networking/configs';
const CREDENTIALS_DIR = '/etc/ironic/networking/credentials';
const CONTAINER = 'ironic-networking';

export const networkingEnabled = (input: IronicRenderInput): boolean => input.spec.networkingService?.enabled === true;

const selector = (input: IronicRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(ironicNames(input.name).networking) });

/** `mode/native_vlan=N[/allowed_vlans=a,b][/mtu=M]`, as ironic-image reads IRONIC_NETWORKING_<TYPE>_NETWORK. */
export const providerNetworkValue = (network: ProviderNetwork): string => {
  const mode = network.mode ?? 'access';
  return [
    mode,
    `native_vlan=${network.nativeVLAN}`,
    ...(mode !== 'access' && (network.allowedVLANs ?? []).length > 0 ? [`allowed_vlans=${(network.allowedVLANs ?? []).join(',')}`] : []),
    ...(network.mtu !== undefined && network.mtu > 0 ? [`mtu=${network.mtu}`] : []),
  ].join('/');
};

/** Variables of the ironic container that point Ironic at the networking service. */
export const ironicNetworkingEnv = (input: IronicRenderInput): IEnvVar[] => {
  if (!networkingEnabled(input)) return [];
  // As upstream: `<service>.<namespace>.svc`, plus the cluster domain only when one is configured.
  const domain = input.config.clusterDomain;
  const host = `${ironicNames(input.name).networkingService}.${input.namespace}.svc${domain !== '' ? `.${domain}` : ''}`;
  return [
    { name: 'IRONIC_NETWORKING_ENABLED', value: 'true' },
    { name: 'IRONIC_FORCE_DHCP', value: 'true' },
    { name: 'IRONIC_NETWORKING_JSON_RPC_HOST', value: host },
    { name: 'IRONIC_NETWORKING_JSON_RPC_PORT', value: String(NETWORKING_RPC_PORT) },
    ...(input.spec.networkingService?.providerNetworks ?? []).map((n) => ({ name: `IRONIC_NETWORKING_${n.type.toUpperCase()}_NETWORK`, value: providerNetworkValue(n) })),
    { name: 'IRONIC_DEFAULT_NETWORK_INTERFACE', value: 'ironic-networking' },
  ];
};

/** The RPC credentials (username, password, htpasswd) as one projected volume, shared with HA. */
export const rpcAuthVolume = (input: IronicRenderInput): IVolume => ({
  name: 'ironic-auth',
  projected: {
    sources: [
      { secret: { name: input.credentials.secretName, items: [{ key: 'username', path: 'username' }, { key: 'password', path: 'password' }] } },
      { secret: { name: ironicNames(input.name).htpasswd(input.credentials.hash), items: [{ key: 'htpasswd', path: 'htpasswd' }] } },
    ],
  },
});

export const rpcAuthMount: IVolumeMount = { name: 'ironic-auth', mountPath: '/auth/ironic-rpc', readOnly: true };

const networkingEnv = (input: IronicRenderInput): IEnvVar[] => {
  const ip = input.spec.networking.ipAddress;
  return [
    { name: 'IRONIC_NETWORKING_ENABLED', value: 'true' },
    { name: 'IRONIC_NETWORKING_JSON_RPC_HOST', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
    { name: 'IRONIC_NETWORKING_JSON_RPC_PORT', value: String(NETWORKING_RPC_PORT) },
    { name: 'IRONIC_NETWORKING_SWITCH_CONFIGS', value: `${CONFIG_DIR}/switch-configs.conf` },
    { name: 'IRONIC_NETWORKING_ENABLED_SWITCH_DRIVERS', value: 'generic-switch' },
    { name: 'IRONIC_HTPASSWD', valueFrom: { secretKeyRef: { name: ironicNames(input.name).htpasswd(input.credentials.hash), key: 'htpasswd' } } },
    // The image waits for a provisioning address: the pod's own, unless one is given.
    ip !== undefined && ip !== ''
      ? { name: 'IRONIC_IP', value: ip }
      : { name: 'PROVISIONING_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
    ...(input.references.tls !== undefined && input.spec.tls?.insecureRPC === true ? [{ name: 'IRONIC_INSECURE', value: 'true' }] : []),
  ];
};

const networkingVolumes = (input: IronicRenderInput, switches: NonNullable<IronicRenderInput['references']['switches']>): IVolume[] => [
  rpcAuthVolume(input),
  { name: 'switch-config', secret: { secretName: switches.config.name } },
  { name: 'switch-credentials', secret: { secretName: switches.credentials.name } },
  ...(input.references.tls !== undefined ? [{ name: VOLUMES.tls, secret: { secretName: input.references.tls.name } }] : []),
  ...(input.references.trustedCA !== undefined ? [trustedCAVolume(input)] : []),
  scratchVolume(CONTAINER),
];

const trustedCAVolume = (input: IronicRenderInput): IVolume => {
  const ref = input.references.trustedCA;
  return ref?.kind === 'ConfigMap' ? { name: VOLUMES.trustedCA, configMap: { name: ref.name } } : { name: VOLUMES.trustedCA, secret: { secretName: ref?.name ?? '' } };
};

export const renderNetworkingDeployment = (input: IronicRenderInput): IDeployment | undefined => {
  const switches = input.references.switches;
  if (!networkingEnabled(input) || switches === undefined) return undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: ironicNames(input.name).networking, namespace: input.namespace, labels: ironicLabels(input.name, input.spec.version) },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector(input) },
      template: {
        metadata: {
          labels: { ...selector(input), ...ironicLabels(input.name, input.spec.version) },
          annotations: {
            [versionAnnotation('api-secret')]: input.credentials.hash,
            [versionAnnotation('switch-config')]: switches.config.hash,
            [versionAnnotation('switch-credentials')]: switches.credentials.hash,
            ...(input.references.tls !== undefined && { [versionAnnotation('tls-secret')]: input.references.tls.hash }),
          },
        },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // The same nodes as Ironic: a node selector for tainted nodes needs the tolerations too.
          ...ironicScheduling(input),
          containers: [
            {
              name: CONTAINER,
              image: resolveImages(input).ironic,
              command: ['/bin/runironic-networking'],
              env: networkingEnv(input),
              ports: [{ name: 'networking-rpc', containerPort: NETWORKING_RPC_PORT, protocol: 'TCP' }],
              volumeMounts: [
                rpcAuthMount,
                { name: 'switch-config', mountPath: CONFIG_DIR, readOnly: true },
                { name: 'switch-credentials', mountPath: CREDENTIALS_DIR, readOnly: true },
                ...(input.references.tls !== undefined ? [{ name: VOLUMES.tls, mountPath: MOUNTS.tls, readOnly: true }] : []),
                ...(input.references.trustedCA !== undefined ? [{ name: VOLUMES.trustedCA, mountPath: MOUNTS.trustedCA, readOnly: true }] : []),
                ...scratchMounts(CONTAINER),
              ],
              securityContext: restricted(),
            },
          ],
          volumes: networkingVolumes(input, switches),
        },
      },
    },
  };
};

export const renderNetworkingService = (input: IronicRenderInput): IService | undefined =>
  networkingEnabled(input)
    ? {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: ironicNames(input.name).networkingService, namespace: input.namespace, labels: ironicLabels(input.name, input.spec.version) },
        spec: { type: 'ClusterIP', selector: selector(input), ports: [{ name: 'networking-rpc', port: NETWORKING_RPC_PORT, targetPort: 'networking-rpc', protocol: 'TCP' }] },
      }
    : undefined;

/**
 * Placeholder switch Secrets under the default names, for the user to fill in. NOTE: Secrets are applied
 * with the OnDelete strategy, so the user's edits are never overwritten.
 */
export const renderSwitchSecrets = (input: IronicRenderInput): ISecret[] => {
  const switches = input.references.switches;
  if (!networkingEnabled(input) || switches === undefined) return [];
  const secret = (name: string, data: Record<string, string>): ISecret => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: input.namespace, labels: { ...ironicSecretLabels(input.name), [`${LABEL_PREFIX_KEY}/managed`]: 'true' } },
    type: 'Opaque',
    ...(Object.keys(data).length > 0 && { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])) }),
  });
  return [
    ...(switches.config.generated ? [secret(switches.config.name, SWITCH_PLACEHOLDERS.config)] : []),
    ...(switches.credentials.generated ? [secret(switches.credentials.name, SWITCH_PLACEHOLDERS.credentials)] : []),
  ];
};
