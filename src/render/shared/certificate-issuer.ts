/**
 * The certificate issuer: an init container (the hook server's image, src/cli/issue-rpc-cert.ts) that
 * issues a pod's own certificate at start from a CA Secret, for the addresses only the pod knows; and the
 * CA Secret it reads. One env dialect for every pod that uses it: CA_DIR, CERT_DIR and, optionally,
 * CERT_VALIDITY_DAYS, CERT_DNS_NAMES and CERT_IP_ADDRESSES.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { base64 } from '../meta.js';
import { restricted } from '../security.js';

/** The default image of the hook server, which also issues certificates in workload pods. */
export const DEFAULT_HOOK_IMAGE = 'ironic-metacontroller-hooks:0.1.0';

/** Where the compiled issuer lives inside the hook server image. */
export const ISSUER_SCRIPT = '/app/dist/cli/issue-rpc-cert.js';

/** A CA as the hook keeps it: the signing certificate and key, the bundle to trust and, during a rotation, the next CA. */
export type IssuingCA = {
  readonly secretName: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly bundlePem: string;
  readonly next?: { readonly certPem: string; readonly keyPem: string };
};

/**
 * A CA Secret: the CA certificate and key, immutable and named by content, so a renewal is a new Secret
 * and a rolling restart, never an in-place change.
 */
export const renderCASecret = (ca: IssuingCA, namespace: string, labels: Readonly<Record<string, string>>): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: ca.secretName, namespace, labels: { ...labels } },
  type: 'kubernetes.io/tls',
  immutable: true,
  data: {
    'tls.crt': base64(ca.certPem),
    'tls.key': base64(ca.keyPem),
    'ca.crt': base64(ca.bundlePem),
    ...(ca.next && { 'next.crt': base64(ca.next.certPem), 'next.key': base64(ca.next.keyPem) }),
  },
});

/** What the certificate covers besides the pod's own addresses, and how long it lives. */
export type IssuedSubjects = { readonly dnsNames: readonly string[]; readonly ips: readonly string[]; readonly validityDays: number };

/** One issuer init container. */
export type IssuerContainer = {
  readonly name: string;
  readonly image: string;
  /** The volume with the CA's key (mounted read-only at `caPath`) and the one the certificate goes to. */
  readonly caVolume: string;
  readonly caPath: string;
  readonly certVolume: string;
  readonly certPath: string;
  /** Names and addresses to cover; without them, the pod's addresses only, until the CA expires. */
  readonly subjects?: IssuedSubjects;
  /** Where the pod's addresses come from (HOST_IP, POD_IP, the provisioning settings). */
  readonly addressEnv: readonly IEnvVar[];
  readonly resources: IResourceRequirements;
};

export const buildIssuerContainer = (issuer: IssuerContainer): IContainer => {
  const subjects = issuer.subjects;
  return {
    name: issuer.name,
    image: issuer.image,
    command: ['node', ISSUER_SCRIPT],
    env: [
      { name: 'CA_DIR', value: issuer.caPath },
      { name: 'CERT_DIR', value: issuer.certPath },
      ...(subjects !== undefined
        ? [
            { name: 'CERT_VALIDITY_DAYS', value: String(subjects.validityDays) },
            { name: 'CERT_DNS_NAMES', value: subjects.dnsNames.join(',') },
            ...(subjects.ips.length > 0 ? [{ name: 'CERT_IP_ADDRESSES', value: subjects.ips.join(',') }] : []),
          ]
        : []),
      ...issuer.addressEnv,
    ],
    volumeMounts: [
      { name: issuer.caVolume, mountPath: issuer.caPath, readOnly: true },
      { name: issuer.certVolume, mountPath: issuer.certPath },
    ],
    resources: issuer.resources,
    // The ironic user, so that the containers of the pod can read the key it writes.
    securityContext: restricted(),
  };
};
