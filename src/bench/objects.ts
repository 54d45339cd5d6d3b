/**
 * Kubernetes objects as Metacontroller sends them: applied children carry server metadata,
 * `managedFields` and the `last-applied-configuration` annotation (a second copy of the object), and
 * PEM material that looks like the real thing.
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { LAST_APPLIED_ANNOTATION } from '../render/child.js';
import { isRecord } from '../api/shared/problems.js';

export type Obj = Record<string, unknown>;

const LAST_APPLIED = LAST_APPLIED_ANNOTATION;
const CREATED = '2026-01-01T00:00:00Z';

/** The `fieldsV1` the API server records for an object: every field path, lists keyed by name. */
export const fieldsV1 = (value: unknown): Obj => {
  if (Array.isArray(value)) {
    return Object.fromEntries(
      value.map((item, index) => [
        isRecord(item) && typeof item['name'] === 'string' ? `k:{"name":"${item['name']}"}` : `i:${index}`,
        { '.': {}, ...fieldsV1(item) },
      ]),
    );
  }
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [`f:${key}`, fieldsV1(field)]));
};

const managedFields = (object: Obj, status: unknown): Obj[] => {
  const { status: _status, ...spec } = object;
  return [
    { manager: 'metacontroller', operation: 'Update', apiVersion: object['apiVersion'], time: CREATED, fieldsType: 'FieldsV1', fieldsV1: fieldsV1(spec) },
    ...(status === undefined
      ? []
      : [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            apiVersion: object['apiVersion'],
            time: CREATED,
            fieldsType: 'FieldsV1',
            fieldsV1: fieldsV1({ status }),
            subresource: 'status',
          },
        ]),
  ];
};

/** Server-side metadata of an object that exists. */
const serverMetadata = (metadata: Obj, index: number): Obj => ({
  ...metadata,
  uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
  resourceVersion: String(1000 + index),
  generation: 1,
  creationTimestamp: CREATED,
});

/** What Metacontroller observes once it has applied `desired` (and the workload controller has reported `status`). */
export const applied = (desired: Obj, index: number, status?: Obj): Obj => {
  const metadata = (desired['metadata'] ?? {}) as Obj;
  const annotations = { ...((metadata['annotations'] ?? {}) as Obj), [LAST_APPLIED]: JSON.stringify(desired) };
  const observed: Obj = { ...desired, metadata: { ...serverMetadata(metadata, index), annotations } };
  if (desired['kind'] === 'Service')
    observed['spec'] = {
      ...(desired['spec'] as Obj),
      clusterIP: '10.96.12.34',
      clusterIPs: ['10.96.12.34'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
    };
  if (status !== undefined) observed['status'] = status;
  (observed['metadata'] as Obj)['managedFields'] = managedFields(observed, status);
  return observed;
};

/** A Secret or ConfigMap made by a user (kubectl apply), as a related object. */
export const userObject = (kind: 'Secret' | 'ConfigMap', name: string, namespace: string, data: Record<string, string>, index: number): Obj => {
  const encoded = kind === 'Secret' ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) : data;
  const desired: Obj = { apiVersion: 'v1', kind, metadata: { name, namespace }, ...(kind === 'Secret' && { type: 'kubernetes.io/tls' }), data: encoded };
  const metadata = serverMetadata(desired['metadata'] as Obj, index);
  return {
    ...desired,
    metadata: {
      ...metadata,
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(desired) },
      managedFields: [
        { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: CREATED, fieldsType: 'FieldsV1', fieldsV1: fieldsV1(desired) },
      ],
    },
  };
};

/** The status of a Deployment that rolled out. */
export const availableDeployment = (): Obj => ({
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [
    {
      type: 'Available',
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
      lastUpdateTime: CREATED,
      lastTransitionTime: CREATED,
    },
    {
      type: 'Progressing',
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: 'ReplicaSet "ironic-service-5d8f7c9b6d" has successfully progressed.',
      lastUpdateTime: CREATED,
      lastTransitionTime: CREATED,
    },
  ],
});

/** The status of a StatefulSet whose pods run the current revision and are ready. */
export const readyStatefulSet = (): Obj => ({
  observedGeneration: 1,
  replicas: 1,
  readyReplicas: 1,
  currentReplicas: 1,
  updatedReplicas: 1,
  availableReplicas: 1,
  currentRevision: 'bench-5d8f7c9b6d',
  updateRevision: 'bench-5d8f7c9b6d',
});

/** RSA keys from node (forge's pure-JS key generation is slow); certificates from forge. */
export const rsaKey = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })
    .privateKey;

/** Who signs a certificate: the issuer's name and private key. */
type Issuer = { readonly commonName: string; readonly key: string };

const subjectOf = (commonName: string): forge.pki.CertificateField[] => [
  { name: 'commonName', value: commonName },
  { name: 'organizationName', value: 'Metal3 Bench' },
];

/** A certificate for `commonName` with the public half of `key`, self-signed unless an issuer (a CA) signs it. */
export const certificate = (commonName: string, key: string, serial: number, issuer: Issuer = { commonName, key }): string => {
  const privateKey = forge.pki.privateKeyFromPem(key);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  // DER wants the shortest positive integer: a leading 01 byte keeps it positive without zero padding, which OpenSSL refuses.
  cert.serialNumber = `01${serial.toString(16).padStart(4, '0')}`;
  cert.validity.notBefore = new Date(Date.UTC(2026, 0, 1));
  cert.validity.notAfter = new Date(Date.UTC(2027, 0, 1));
  cert.setSubject(subjectOf(commonName));
  cert.setIssuer(subjectOf(issuer.commonName));
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: commonName },
        { type: 7, ip: '192.0.2.2' },
      ],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(issuer.key), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
};
