/**
 * The hand-off to clients: where the API and the image server are, which credentials and CA to use
 * (published in status.access), and a Secret `<name>-clouds` with a clouds.yaml for the `baremetal` CLI and
 * openstacksdk. Mount the Secret at /etc/openstack: openstacksdk reads /etc/openstack/clouds.yaml, and the
 * file points at /etc/openstack/ca.crt when TLS is on.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { stringify } from 'yaml';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { boundedMemo, type Memo } from '../../../api/shared/memo.js';
import type { ClientAccess } from '../../../api/ironic/schema.js';
import { base64, ironicSecretLabels } from '../../meta.js';
import { LABELS, type IronicNames } from '../../names.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { bracketIPv6 } from '../facts.js';

/** The Secret with clouds.yaml for clients (the hand-off). */
export const cloudsName = (names: IronicNames): string => names.featureObject('-clouds');

/** Where the clouds Secret is meant to be mounted, and so where clouds.yaml finds the CA. */
export const CLOUDS_MOUNT = '/etc/openstack';

/** The component label value of the clouds Secret. */
export const CLOUDS_COMPONENT = 'clouds';

/** The API for clients in the cluster: the Service, on its default port for the scheme. */
const apiURL = (input: IronicRenderInput): string => {
  const scheme = input.model.tls.enabled ? 'https' : 'http';
  const domain = input.config.clusterDomain;
  return `${scheme}://${input.names.service}.${input.namespace}.svc${domain !== '' ? `.${domain}` : ''}`;
};

/** The API outside the cluster network: the Ingress, the external callback URL, or the provisioning address. */
const externalAPIURL = (input: IronicRenderInput): string | undefined => {
  const { networking: n, tls, highAvailability } = input.model;
  if (n.ingress?.host !== undefined) return `https://${n.ingress.host}`;
  if (n.externalCallbackURL !== undefined && n.externalCallbackURL !== '') return n.externalCallbackURL;
  if (highAvailability || n.ipAddress === undefined || n.ipAddress === '') return undefined;
  return `${tls.enabled ? 'https' : 'http'}://${bracketIPv6(n.ipAddress)}:${n.apiPort}`;
};

/** The image server BMCs and hosts use. */
const imageServerURL = (input: IronicRenderInput): string | undefined => {
  const { networking: n, tls, highAvailability } = input.model;
  if (n.imageServerExternalURL !== undefined && n.imageServerExternalURL !== '') return n.imageServerExternalURL;
  if (n.ingress?.host !== undefined) return `https://${n.ingress.host}`;
  if (highAvailability || n.ipAddress === undefined || n.ipAddress === '') return undefined;
  return tls.virtualMedia ? `https://${bracketIPv6(n.ipAddress)}:${n.imageServerTLSPort}` : `http://${bracketIPv6(n.ipAddress)}:${n.imageServerPort}`;
};

/** status.access: how clients reach this Ironic. */
export const clientAccess = (input: IronicRenderInput): ClientAccess => {
  const tls = input.references.tls;
  const external = externalAPIURL(input);
  const images = imageServerURL(input);
  return {
    apiURL: apiURL(input),
    ...(external !== undefined && { externalAPIURL: external }),
    ...(images !== undefined && { imageServerURL: images }),
    credentialsName: input.credentials.secretName,
    ...(tls && { caCertificate: { kind: 'Secret' as const, name: tls.name, key: tls.hasCA ? 'ca.crt' : 'tls.crt' } }),
    ...(input.generatedTLS && { caCertificate: { kind: 'ConfigMap' as const, name: input.names.caBundle, key: 'ca.crt' } }),
    cloudsSecretName: cloudsName(input.names),
  };
};

/** The CA clients trust (base64): the generated bundle, or that of the user's Secret. */
const caData = (input: IronicRenderInput): string | undefined =>
  input.generatedTLS !== undefined ? base64(input.generatedTLS.ca.bundlePem) : input.references.tls?.caData;

/** Whether clients are given a CA: caData without writing it. */
const hasCA = (input: IronicRenderInput): boolean => input.generatedTLS !== undefined || input.references.tls?.caData !== undefined;

const optionalCA = (data: string | undefined): Record<string, string> => (data !== undefined ? { 'ca.crt': data } : {});

/** The clouds.yaml text of one cloud: its name, HTTP basic credentials, the endpoint, and whether a CA is mounted. */
const cloudsYamlOf = (name: string, username: string, password: string, endpoint: string, withCA: boolean): string =>
  stringify(
    {
      clouds: {
        [name]: {
          auth_type: 'http_basic',
          auth: { username, password },
          baremetal_endpoint_override: endpoint,
          ...(withCA && { cacert: `${CLOUDS_MOUNT}/ca.crt` }),
        },
      },
    },
    { lineWidth: 0 },
  );

/**
 * clouds.yaml texts already written, keyed by everything they are written from (a steady-state sync writes
 * the same one every time, and the YAML writer is a large part of a sync).
 */
export const writtenCloudsYaml: Memo<string> = boundedMemo(256);

/** The clouds.yaml text: one cloud named after the Ironic, HTTP basic authentication, the in-cluster endpoint. */
export const cloudsYaml = (input: IronicRenderInput): string => {
  const { username, password } = input.credentials;
  const endpoint = apiURL(input);
  const withCA = hasCA(input);
  const key = JSON.stringify([input.name, username, password, endpoint, withCA]);
  return writtenCloudsYaml.get(key, () => cloudsYamlOf(input.name, username, password, endpoint, withCA));
};

/**
 * `<name>-clouds`. NOTE: Secrets are applied with the OnDelete strategy, so a changed one is replaced rather
 * than updated: the plan leaves it out for one sync when the observed content differs (see plan.ts).
 */
export const renderCloudsSecret = (input: IronicRenderInput): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: cloudsName(input.names), namespace: input.namespace, labels: { ...ironicSecretLabels(input.name), [LABELS.component]: CLOUDS_COMPONENT } },
  type: 'Opaque',
  data: { 'clouds.yaml': base64(cloudsYaml(input)), ...optionalCA(caData(input)) },
});

/** The component label value of the published CA Secret. */
export const PUBLISHED_CA_COMPONENT = 'published-ca';

/**
 * The Secret spec.tls.certificateName names with generateCertificate or issuerRef: the CA bundle clients
 * trust under `tls.crt` (what baremetal-operator's use-irso mode reads) and `ca.crt`, without a key. It
 * follows renewals (the CA does not change) and CA rotations (the generated bundle holds the old and the
 * new CA until the old one expires). Replaced like the clouds Secret when it changes.
 */
export const renderPublishedCASecret = (input: IronicRenderInput): ISecret | undefined => {
  const name = input.model.tls.trustSecretName;
  const data = caData(input);
  if (name === undefined || data === undefined) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: input.namespace, labels: { ...ironicSecretLabels(input.name), [LABELS.component]: PUBLISHED_CA_COMPONENT } },
    type: 'Opaque',
    data: { 'tls.crt': data, 'ca.crt': data },
  };
};

export const CLIENT_HANDOFF: IronicFeature = {
  name: 'client-handoff',
  order: 20,
  applies: () => true,
  children: (input) => [renderCloudsSecret(input), renderPublishedCASecret(input)],
  wanted: (model, names) => [
    { group: GROUP_KEYS.secret, name: cloudsName(names) },
    ...(model.tls.trustSecretName !== undefined ? [{ group: GROUP_KEYS.secret, name: model.tls.trustSecretName }] : []),
  ],
  // Secrets are applied OnDelete: one whose content changes is left out for one sync (deleted), then created anew.
  ownsSecret: (names, secret) => secret === cloudsName(names),
  replacedOnChange: (model, names) => [cloudsName(names), ...(model.tls.trustSecretName !== undefined ? [model.tls.trustSecretName] : [])],
  access: clientAccess,
};
