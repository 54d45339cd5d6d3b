/**
 * Generated API certificates (spec.tls.generateCertificate). The hook keeps a private CA per Ironic in the
 * content-named Secret `<name>-tls-ca-<hash>` and publishes the bundle clients trust in the ConfigMap
 * `<name>-ca`. Each pod issues its own serving certificate at start, in the init container
 * `tls-certificate` (the hook server image), for every name and address clients use: the Service DNS
 * names, networking.ipAddress and externalIP, the Ingress host and external URLs, and the addresses only
 * the pod knows (node, pod and provisioning interface, which differ per node in high availability).
 *
 * NOTE (design): the CA key is mounted into that init container only; the certificate and its key live in
 * a memory emptyDir that the ironic and httpd containers mount read-only at /certs/ironic and
 * /certs/vmedia, together with the CA bundle (so the CA file is never there without its server
 * certificate: ironic-image quirk Q17). The leaf lives LEAF_VALIDITY_DAYS; a new renewal period (every
 * LEAF_RENEW_AFTER_DAYS) changes a pod-template annotation, which rolls the pods once.
 */
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { canonicalIP, parseIP } from '../../api/net.js';
import { LEAF_VALIDITY_DAYS } from '../../crypto/renewal.js';
import { CONTENT_COMPONENTS, LABELS, versionAnnotation } from '../names.js';
import { ironicSecretLabels } from '../meta.js';
import { restricted } from '../security.js';
import { env, fieldEnv, provisioningEnv, resourcesOf } from './facts.js';
import { DEFAULT_HOOK_IMAGE, ISSUER_SCRIPT, renderCASecret } from './ha.js';
import type { IronicRenderInput } from './input.js';
import { MOUNTS, VOLUMES, readOnlyMount } from './volumes.js';

const CA_KEY_VOLUME = 'tls-ca-key';
const CA_KEY_PATH = '/tls-ca';

/** The pod-template annotation of the renewal period (its start): a new period rolls the pods. */
export const TLS_PERIOD_ANNOTATION = versionAnnotation('tls-renewal');

/** The host of a URL (IPv6 without brackets), or nothing for one that does not parse. */
const hostOf = (url: string | undefined): string | undefined => {
  if (url === undefined || url === '') return undefined;
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
};

/** The DNS names and IP addresses every certificate of this Ironic covers (the pod adds its own addresses). */
export type CertificateSubjects = { readonly dnsNames: string[]; readonly ips: string[] };

/** The names a Service of this Ironic answers to in the cluster: short, with the namespace, `.svc`, and with the cluster domain when one is configured. */
export const serviceDNSNames = (input: IronicRenderInput, service: string): string[] => {
  const svc = `${service}.${input.namespace}.svc`;
  const domain = input.config.clusterDomain;
  return [service, `${service}.${input.namespace}`, svc, ...(domain !== '' ? [`${svc}.${domain}`] : [])];
};

/** The names of the networking service's Service, which Ironic calls over JSON-RPC (none without the service). */
export const networkingServiceDNSNames = (input: IronicRenderInput): string[] =>
  input.model.networkingService !== undefined ? serviceDNSNames(input, input.names.networkingService) : [];

export const certificateSubjects = (input: IronicRenderInput): CertificateSubjects => {
  const { networking: n } = input.model;
  const hosts = [
    ...serviceDNSNames(input, input.names.service),
    n.ingress?.host,
    hostOf(n.externalCallbackURL),
    hostOf(n.imageServerExternalURL),
    n.ipAddress,
    n.externalIP,
  ].filter((h): h is string => h !== undefined && h !== '');
  // Addresses as cert-manager and Go write them back (`FD00::2` is `fd00::2`), so that they compare equal;
  // one with a zone is never a SAN (validation refuses it with a certificate).
  const isAddress = (h: string): boolean => parseIP(h) !== undefined;
  const dnsNames = hosts.filter((h) => !isAddress(h)).map((h) => h.toLowerCase());
  const ips = hosts.map((h) => (isAddress(h) ? canonicalIP(h) : undefined)).filter((ip): ip is string => ip !== undefined);
  return { dnsNames: [...new Set(dnsNames)], ips: [...new Set(ips)] };
};

/** `<name>-tls-ca-<hash>`: the CA (and during a rotation the next one), immutable and named by content. */
export const renderTLSCASecret = (input: IronicRenderInput): ISecret | undefined =>
  input.generatedTLS !== undefined ? renderCASecret(input, input.generatedTLS.ca, CONTENT_COMPONENTS.tlsCA) : undefined;

/** `<name>-ca`: the bundle clients trust (both CAs during a rotation), for baremetal-operator and other clients. */
export const renderCABundleConfigMap = (input: IronicRenderInput): IConfigMap | undefined => {
  const generated = input.generatedTLS;
  if (generated === undefined) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: input.names.caBundle, namespace: input.namespace, labels: { ...ironicSecretLabels(input.name), [LABELS.component]: 'ca-bundle' } },
    data: { 'ca.crt': generated.ca.bundlePem },
  };
};

/** An init container that issues a certificate for `subjects` (plus the addresses in `addressEnv`) into /certs/ironic. */
const certificateContainer = (input: IronicRenderInput, subjects: CertificateSubjects, addressEnv: readonly IEnvVar[]): IContainer => ({
  name: 'tls-certificate',
  image: input.config.hookImage ?? DEFAULT_HOOK_IMAGE,
  command: ['node', ISSUER_SCRIPT],
  env: [
    env('CA_DIR', CA_KEY_PATH),
    env('CERT_DIR', MOUNTS.tls),
    env('CERT_VALIDITY_DAYS', String(LEAF_VALIDITY_DAYS)),
    env('CERT_DNS_NAMES', subjects.dnsNames.join(',')),
    ...(subjects.ips.length > 0 ? [env('CERT_IP_ADDRESSES', subjects.ips.join(','))] : []),
    ...addressEnv,
  ],
  volumeMounts: [readOnlyMount(CA_KEY_VOLUME, CA_KEY_PATH), { name: VOLUMES.tls, mountPath: MOUNTS.tls }],
  ...resourcesOf(input, 'tls-certificate'),
  securityContext: restricted(),
});

/** The init container that issues the pod's serving certificate into /certs/ironic. */
export const buildTLSCertificateContainer = (input: IronicRenderInput): IContainer =>
  certificateContainer(input, certificateSubjects(input), [
    // The addresses Ironic advertises (for virtual media and the agent) come from these settings.
    ...provisioningEnv(input),
    fieldEnv('HOST_IP', 'status.hostIP'),
    fieldEnv('POD_IP', 'status.podIP'),
  ]);

/**
 * The same for the networking service's pod: ironic-image serves its JSON-RPC over https whenever Ironic's
 * does (IRONIC_TLS_SETUP), and Ironic calls it at its Service name, so the certificate covers that name.
 */
export const buildNetworkingCertificateContainer = (input: IronicRenderInput): IContainer =>
  certificateContainer(input, { dnsNames: networkingServiceDNSNames(input), ips: [] }, [fieldEnv('POD_IP', 'status.podIP')]);

/** Pod-template annotations of a pod with a generated certificate: a new CA or renewal period rolls it. */
export const generatedTLSAnnotations = (input: IronicRenderInput): Record<string, string> =>
  input.generatedTLS !== undefined ? { [versionAnnotation('tls-ca')]: input.generatedTLS.ca.hash, [TLS_PERIOD_ANNOTATION]: input.generatedTLS.period } : {};

/** The CA with its key (for the init container only, through the pod's fsGroup) and the memory emptyDir the certificate goes to. */
export const generatedTLSVolumes = (input: IronicRenderInput): IVolume[] => {
  const generated = input.generatedTLS;
  if (generated === undefined) return [];
  return [
    { name: CA_KEY_VOLUME, secret: { secretName: generated.ca.secretName, defaultMode: 0o440 } },
    { name: VOLUMES.tls, emptyDir: { medium: 'Memory' } },
  ];
};
