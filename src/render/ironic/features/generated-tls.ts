/**
 * Generated API certificates (spec.tls.generateCertificate). The hook keeps a private CA per Ironic in the
 * content-named Secret `<name>-tls-ca-<hash>` and publishes the bundle clients trust in the ConfigMap
 * `<name>-ca`. Each pod issues its own serving certificate at start, in the init container
 * `tls-certificate` (the hook server image), for every name and address clients use: the Service DNS
 * names, networking.ipAddress and externalIP, the Ingress host and external URLs, and the addresses only
 * the pod knows (node, pod and provisioning interface, which differ per node in high availability).
 *
 * NOTE (design): the CA key is mounted into that init container only (generated-certificate.ts). The leaf
 * lives LEAF_VALIDITY_DAYS; a new renewal period (every LEAF_RENEW_AFTER_DAYS) changes a pod-template
 * annotation, which rolls the pods once.
 */
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { CONTENT_COMPONENTS, LABELS } from '../../names.js';
import { ironicSecretLabels } from '../../meta.js';
import { IRONIC_GID } from '../../security.js';
import { renderCASecret } from '../../shared/certificate-issuer.js';
import { fieldEnv, provisioningEnv } from '../facts.js';
import type { IronicFeature } from '../feature.js';
import { generatedCertificateContainer, generatedTLSAnnotations, generatedTLSVolumes } from '../generated-certificate.js';
import type { IronicRenderInput } from '../input.js';
import { certificateSubjects } from '../subjects.js';

/** `<name>-tls-ca-<hash>`: the CA (and during a rotation the next one), immutable and named by content. */
export const renderTLSCASecret = (input: IronicRenderInput): ISecret | undefined =>
  input.generatedTLS !== undefined
    ? renderCASecret(input.generatedTLS.ca, input.namespace, { ...ironicSecretLabels(input.name), [LABELS.component]: CONTENT_COMPONENTS.tlsCA })
    : undefined;

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

/** The init container that issues the pod's serving certificate into /certs/ironic. */
export const buildTLSCertificateContainer = (input: IronicRenderInput): IContainer =>
  generatedCertificateContainer(input, certificateSubjects(input), [
    // The addresses Ironic advertises (for virtual media and the agent) come from these settings.
    ...provisioningEnv(input),
    fieldEnv('HOST_IP', 'status.hostIP'),
    fieldEnv('POD_IP', 'status.podIP'),
  ]);

export const GENERATED_TLS: IronicFeature = {
  name: 'generated-tls',
  order: 100,
  applies: (model) => model.tls.generate,
  initContainers: [{ name: 'tls-certificate', build: buildTLSCertificateContainer }],
  volumes: generatedTLSVolumes,
  annotations: generatedTLSAnnotations,
  // The CA key is readable by the ironic group only: the certificate issuer runs in it.
  podSpec: () => ({ securityContext: { fsGroup: IRONIC_GID, fsGroupChangePolicy: 'OnRootMismatch' } }),
  children: (input) => [renderTLSCASecret(input), renderCABundleConfigMap(input)],
  wanted: (_model, names) => [{ group: GROUP_KEYS.configMap, name: names.caBundle }],
  ownsSecret: (names, secret) => secret.startsWith(names.tlsCAPrefix),
};
