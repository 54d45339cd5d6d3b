/**
 * The pod side of generated certificates (spec.tls.generateCertificate), for every pod that serves with
 * one (the Ironic pod and the networking service's): the CA key for the issuer init container only
 * (through the pod's fsGroup), the memory emptyDir the certificate goes to, and the annotations that roll
 * the pod for a new CA or renewal period.
 *
 * NOTE (design): the certificate and its key live in the emptyDir that the serving containers mount
 * read-only at /certs/ironic (and /certs/vmedia), together with the CA bundle, so the CA file is never
 * there without its server certificate (ironic-image quirk Q17).
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { LEAF_VALIDITY_DAYS } from '../../crypto/renewal.js';
import { TLS_CA_ANNOTATION, versionAnnotation } from '../names.js';
import { buildIssuerContainer, DEFAULT_HOOK_IMAGE } from '../shared/certificate-issuer.js';
import { resourcesOf } from './facts.js';
import type { IronicRenderInput } from './input.js';
import type { CertificateSubjects } from './subjects.js';
import { MOUNTS, VOLUMES } from './volumes.js';

const CA_KEY_VOLUME = 'tls-ca-key';
const CA_KEY_PATH = '/tls-ca';

/** The pod-template annotation of the CA's content hash: a new CA rolls the pods. */

/** The pod-template annotation of the renewal period (its start): a new period rolls the pods. */
export const TLS_PERIOD_ANNOTATION = versionAnnotation('tls-renewal');

/** An init container `tls-certificate` that issues a certificate for `subjects` (plus the addresses in `addressEnv`) into /certs/ironic. */
export const generatedCertificateContainer = (input: IronicRenderInput, subjects: CertificateSubjects, addressEnv: readonly IEnvVar[]): IContainer =>
  buildIssuerContainer({
    name: 'tls-certificate',
    image: input.config.hookImage ?? DEFAULT_HOOK_IMAGE,
    caVolume: CA_KEY_VOLUME,
    caPath: CA_KEY_PATH,
    certVolume: VOLUMES.tls,
    certPath: MOUNTS.tls,
    subjects: { ...subjects, validityDays: LEAF_VALIDITY_DAYS },
    addressEnv,
    ...resourcesOf(input, 'tls-certificate'),
  });

/** Pod-template annotations of a pod with a generated certificate: a new CA or renewal period rolls it. */
export const generatedTLSAnnotations = (input: IronicRenderInput): Record<string, string> =>
  input.generatedTLS !== undefined ? { [TLS_CA_ANNOTATION]: input.generatedTLS.ca.hash, [TLS_PERIOD_ANNOTATION]: input.generatedTLS.period } : {};

/** The CA with its key (for the init container only, through the pod's fsGroup) and the memory emptyDir the certificate goes to. */
export const generatedTLSVolumes = (input: IronicRenderInput): IVolume[] => {
  const generated = input.generatedTLS;
  if (generated === undefined) return [];
  return [
    { name: CA_KEY_VOLUME, secret: { secretName: generated.ca.secretName, defaultMode: 0o440 } },
    { name: VOLUMES.tls, emptyDir: { medium: 'Memory' } },
  ];
};
