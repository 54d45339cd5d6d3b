/**
 * The ironic-networking service (switch automation through networking-generic-switch), as upstream
 * renders it (pkg/ironic/networking_deployment.go): a one-replica Deployment `<name>-networking` off the
 * host network, its Service `<name>-networking-service`, and the switch Secrets. Ironic reaches it over
 * JSON-RPC with the API credentials.
 */
import { podPullSecrets } from '../../shared/pull-secrets.js';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import type { ProviderNetworkModel } from '../../../api/ironic/model.js';
import { LABELS, labelValue, versionAnnotation } from '../../names.js';
import { base64, ironicSecretLabels } from '../../meta.js';
import { IRONIC_GID, restricted } from '../../security.js';
import type { IronicFeature } from '../feature.js';
import { generatedCertificateContainer, generatedTLSAnnotations, generatedTLSVolumes } from '../generated-certificate.js';
import type { IronicRenderInput, SwitchSecrets } from '../input.js';
import { SWITCH_PLACEHOLDERS } from '../references.js';
import { childLabels, fieldEnv, ironicImages, ironicScheduling, ownIPAddress, resourcesOf } from '../facts.js';
import { networkingServiceDNSNames } from '../subjects.js';
import { MOUNTS, VOLUMES, readOnlyMount, referenceVolume, rpcAuthMount, rpcAuthVolume, scratchMounts, scratchVolume } from '../volumes.js';

export const NETWORKING_RPC_PORT = 6190;

const CONFIG_DIR = '/etc/ironic/networking/configs';
const CREDENTIALS_DIR = '/etc/ironic/networking/credentials';
const CONTAINER = 'ironic-networking';

const selector = (input: IronicRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(input.names.networking) });

/** `mode/native_vlan=N[/allowed_vlans=a,b][/mtu=M]`, as ironic-image reads IRONIC_NETWORKING_<TYPE>_NETWORK. */
export const providerNetworkValue = (network: ProviderNetworkModel): string =>
  [
    network.mode,
    `native_vlan=${network.nativeVLAN}`,
    ...(network.mode !== 'access' && network.allowedVLANs.length > 0 ? [`allowed_vlans=${network.allowedVLANs.join(',')}`] : []),
    ...(network.mtu !== undefined ? [`mtu=${network.mtu}`] : []),
  ].join('/');

/** Variables of the ironic container that point Ironic at the networking service. */
const ironicNetworkingEnv = (input: IronicRenderInput): IEnvVar[] => {
  const service = input.model.networkingService;
  if (service === undefined) return [];
  // As upstream: `<service>.<namespace>.svc`, plus the cluster domain only when one is configured.
  const domain = input.config.clusterDomain;
  const host = `${input.names.networkingService}.${input.namespace}.svc${domain !== '' ? `.${domain}` : ''}`;
  return [
    { name: 'IRONIC_NETWORKING_ENABLED', value: 'true' },
    { name: 'IRONIC_FORCE_DHCP', value: 'true' },
    { name: 'IRONIC_NETWORKING_JSON_RPC_HOST', value: host },
    { name: 'IRONIC_NETWORKING_JSON_RPC_PORT', value: String(NETWORKING_RPC_PORT) },
    ...service.providerNetworks.map((n) => ({ name: `IRONIC_NETWORKING_${n.type.toUpperCase()}_NETWORK`, value: providerNetworkValue(n) })),
    { name: 'IRONIC_DEFAULT_NETWORK_INTERFACE', value: 'ironic-networking' },
  ];
};

const networkingEnv = (input: IronicRenderInput): IEnvVar[] => {
  const ip = ownIPAddress(input.model);
  return [
    { name: 'IRONIC_NETWORKING_ENABLED', value: 'true' },
    fieldEnv('IRONIC_NETWORKING_JSON_RPC_HOST', 'status.podIP'),
    { name: 'IRONIC_NETWORKING_JSON_RPC_PORT', value: String(NETWORKING_RPC_PORT) },
    { name: 'IRONIC_NETWORKING_SWITCH_CONFIGS', value: `${CONFIG_DIR}/switch-configs.conf` },
    { name: 'IRONIC_NETWORKING_ENABLED_SWITCH_DRIVERS', value: 'generic-switch' },
    { name: 'IRONIC_HTPASSWD', valueFrom: { secretKeyRef: { name: input.credentials.htpasswdSecretName, key: 'htpasswd' } } },
    // The image waits for a provisioning address: the pod's own, unless one is given.
    ip !== undefined && ip !== '' ? { name: 'IRONIC_IP', value: ip } : fieldEnv('PROVISIONING_IP', 'status.podIP'),
    ...(input.references.tls !== undefined && input.model.tls.insecureRPC ? [{ name: 'IRONIC_INSECURE', value: 'true' }] : []),
    // The init container writes the bundle next to the certificate it issues (as in the Ironic pods).
    ...(input.generatedTLS !== undefined ? [{ name: 'IRONIC_CACERT_FILE', value: `${MOUNTS.tls}/ca.crt` }] : []),
  ];
};

/** Whether the pod serves over https: ironic-image turns TLS on when /certs/ironic/tls.crt exists. */
const servesTLS = (input: IronicRenderInput): boolean => input.references.tls !== undefined || input.generatedTLS !== undefined;

const networkingVolumes = (input: IronicRenderInput, switches: SwitchSecrets): IVolume[] => [
  rpcAuthVolume(input),
  { name: 'switch-config', secret: { secretName: switches.config.name } },
  { name: 'switch-credentials', secret: { secretName: switches.credentials.name } },
  ...(input.references.tls !== undefined ? [referenceVolume(VOLUMES.tls, input.references.tls)] : []),
  ...generatedTLSVolumes(input),
  ...(input.references.trustedCA !== undefined ? [referenceVolume(VOLUMES.trustedCA, input.references.trustedCA)] : []),
  scratchVolume(CONTAINER),
];

export const renderNetworkingDeployment = (input: IronicRenderInput): IDeployment | undefined => {
  const switches = input.references.switches;
  if (input.model.networkingService === undefined || switches === undefined) return undefined;
  const issuer =
    input.generatedTLS !== undefined
      ? generatedCertificateContainer(input, { dnsNames: networkingServiceDNSNames(input), ips: [] }, [fieldEnv('POD_IP', 'status.podIP')])
      : undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: input.names.networking, namespace: input.namespace, labels: childLabels(input) },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector(input) },
      template: {
        metadata: {
          labels: { ...selector(input), ...childLabels(input) },
          annotations: {
            [versionAnnotation('api-secret')]: input.credentials.hash,
            [versionAnnotation('switch-config')]: switches.config.hash,
            [versionAnnotation('switch-credentials')]: switches.credentials.hash,
            ...(input.references.tls !== undefined && { [versionAnnotation('tls-secret')]: input.references.tls.hash }),
            ...generatedTLSAnnotations(input),
          },
        },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // The same nodes as Ironic: a node selector for tainted nodes needs the tolerations too.
          ...ironicScheduling(input),
          // Ironic serves over https with a generated certificate, and so does this pod (ironic-image decides
          // both from IRONIC_TLS_SETUP): it gets its own certificate for its Service names from the same CA,
          // whose key the init container reads through the ironic group.
          ...(issuer !== undefined && {
            securityContext: { fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch' },
            initContainers: [issuer],
          }),
          ...podPullSecrets(input.model.scheduling.imagePullSecrets, input.config, issuer !== undefined ? [issuer] : []),
          containers: [
            {
              name: CONTAINER,
              image: ironicImages(input).ironic,
              command: ['/bin/runironic-networking'],
              env: networkingEnv(input),
              ports: [{ name: 'networking-rpc', containerPort: NETWORKING_RPC_PORT, protocol: 'TCP' }],
              volumeMounts: [
                rpcAuthMount,
                readOnlyMount('switch-config', CONFIG_DIR),
                readOnlyMount('switch-credentials', CREDENTIALS_DIR),
                ...(servesTLS(input) ? [readOnlyMount(VOLUMES.tls, MOUNTS.tls)] : []),
                ...(input.references.trustedCA !== undefined ? [readOnlyMount(VOLUMES.trustedCA, MOUNTS.trustedCA)] : []),
                ...scratchMounts(CONTAINER),
              ],
              ...resourcesOf(input, CONTAINER),
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
  input.model.networkingService !== undefined
    ? {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: input.names.networkingService, namespace: input.namespace, labels: childLabels(input) },
        spec: {
          type: 'ClusterIP',
          selector: selector(input),
          ports: [{ name: 'networking-rpc', port: NETWORKING_RPC_PORT, targetPort: 'networking-rpc', protocol: 'TCP' }],
        },
      }
    : undefined;

/**
 * Placeholder switch Secrets under the default names, for the user to fill in. NOTE: Secrets are applied
 * with the OnDelete strategy, so the user's edits are never overwritten.
 */
export const renderSwitchSecrets = (input: IronicRenderInput): ISecret[] => {
  const switches = input.references.switches;
  if (input.model.networkingService === undefined || switches === undefined) return [];
  const secret = (name: string, data: Record<string, string>): ISecret => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: input.namespace, labels: { ...ironicSecretLabels(input.name), [LABELS.managed]: 'true' } },
    type: 'Opaque',
    ...(Object.keys(data).length > 0 && { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])) }),
  });
  return [
    ...(switches.config.generated ? [secret(switches.config.name, SWITCH_PLACEHOLDERS.config)] : []),
    ...(switches.credentials.generated ? [secret(switches.credentials.name, SWITCH_PLACEHOLDERS.credentials)] : []),
  ];
};

export const NETWORKING_SERVICE: IronicFeature = {
  name: 'networking-service',
  order: 170,
  applies: (model) => model.networkingService !== undefined,
  // Ironic calls the service over JSON-RPC with the API credentials (in HA the JSON-RPC feature mounts them already).
  volumes: (input) => (input.model.highAvailability ? [] : [rpcAuthVolume(input)]),
  mounts: (input) => ({ ironic: input.model.highAvailability ? [] : [rpcAuthMount] }),
  env: (input) => ({ ironic: ironicNetworkingEnv(input) }),
  children: (input) => [...renderSwitchSecrets(input), renderNetworkingDeployment(input), renderNetworkingService(input)],
  wanted: (model, names) => {
    const service = model.networkingService;
    return [
      ...(service?.switchConfigSecretName === undefined ? [{ group: GROUP_KEYS.secret, name: names.switchConfig }] : []),
      ...(service?.switchCredentialsSecretName === undefined ? [{ group: GROUP_KEYS.secret, name: names.switchCredentials }] : []),
      { group: GROUP_KEYS.deployment, name: names.networking },
      { group: GROUP_KEYS.service, name: names.networkingService },
    ];
  },
  ownsSecret: (names, secret) => secret === names.switchConfig || secret === names.switchCredentials,
};
