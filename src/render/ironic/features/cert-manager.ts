/**
 * spec.tls.issuerRef: a cert-manager Certificate (cert-manager.io/v1) `<name>` for every name and address
 * in the spec, issued into the Secret `<name>-serving-tls`, which the pods then mount like a user's
 * certificate Secret. cert-manager renews it (at two thirds of its lifetime) and updates the Secret in
 * place; its new content hash rolls the pods once. Rendered only when the hook server runs with
 * CERT_MANAGER=true (deploy/components/cert-manager declares the child type).
 *
 * NOTE: cert-manager cannot know the node addresses of a high-availability Ironic; its certificate covers
 * the Service names and the addresses of the spec only (tls.generateCertificate covers each node).
 */
import { canonicalIP } from '../../../api/shared/net.js';
import { SECRET_REFERENCE } from '../../../api/shared/references.js';
import { LABELS, type IronicNames } from '../../names.js';
import { ironicSecretLabels } from '../../meta.js';
import { LEAF_RENEW_AFTER_DAYS, LEAF_VALIDITY_DAYS } from '../../../crypto/renewal.js';
import type { FeatureWait, IronicFeature, ObservedChild } from '../feature.js';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { READY_CONDITION } from '../../../api/shared/common.js';
import { findCondition } from '../../status.js';
import { pathOf, textOf } from '../../observed.js';
import { certificateSubjects, networkingServiceDNSNames, type CertificateSubjects } from '../subjects.js';
import type { IronicRenderInput } from '../input.js';

/** The cert-manager Certificate, named like the parent. */
export const certificateName = (names: IronicNames): string => names.featureObject('');

/** A cert-manager Certificate, as far as we write it (cert-manager.io/v1, checked against its CRD in the tests). */
export type CertManagerCertificate = {
  readonly apiVersion: 'cert-manager.io/v1';
  readonly kind: 'Certificate';
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Record<string, string> };
  readonly spec: Record<string, unknown>;
};

const HOURS_PER_DAY = 24;

/**
 * What the Certificate covers: the names and addresses of the Ironic pods, and the networking service's
 * Service names, since that pod serves over https with the same Secret and Ironic calls it by that name.
 */
export const issuedSubjects = (input: IronicRenderInput): CertificateSubjects => {
  const { dnsNames, ips } = certificateSubjects(input);
  return { dnsNames: [...new Set([...dnsNames, ...networkingServiceDNSNames(input)])], ips };
};

/**
 * Whether the Secret cert-manager filled was issued for other names or addresses than the Certificate now
 * asks for (by the annotations cert-manager writes on it; a Secret without them is taken as current). The
 * pods keep the old certificate until the new one is there, so that a change rolls them once.
 */
export const issuedForOtherNames = (input: IronicRenderInput): boolean => {
  const issued = input.references.tls?.issuedFor;
  if (issued === undefined) return false;
  const { dnsNames, ips } = issuedSubjects(input);
  const differs = (annotation: string | undefined, wanted: readonly string[], normal: (v: string) => string): boolean => {
    if (annotation === undefined) return false;
    const have = new Set(
      annotation
        .split(',')
        .filter((v) => v.trim() !== '')
        .map(normal),
    );
    const want = new Set(wanted.map(normal));
    return have.size !== want.size || [...want].some((v) => !have.has(v));
  };
  // Both sides in the same form: cert-manager writes Go's (`fd00::2`), the spec may say `FD00:0::2`.
  return differs(issued.altNames, dnsNames, (v) => v.trim().toLowerCase()) || differs(issued.ipSans, ips, (v) => canonicalIP(v) ?? v.trim());
};

/** The Certificate of spec.tls.issuerRef, when cert-manager is declared. */
export const renderCertificate = (input: IronicRenderInput): CertManagerCertificate | undefined => {
  const issuer = input.model.tls.issuerRef;
  if (issuer === undefined || input.config.certManager !== true) return undefined;
  const { dnsNames, ips } = issuedSubjects(input);
  const labels = { ...ironicSecretLabels(input.name), [LABELS.component]: 'serving-certificate' };
  return {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: certificateName(input.names), namespace: input.namespace, labels },
    spec: {
      secretName: input.names.certificateSecret,
      // The Secret carries our labels, so it is found as this Ironic's (it is not our child: cert-manager owns it).
      secretTemplate: { labels },
      issuerRef: { name: issuer.name, kind: issuer.kind, group: issuer.group },
      ...(dnsNames.length > 0 && { commonName: dnsNames[0], dnsNames }),
      ...(ips.length > 0 && { ipAddresses: ips }),
      duration: `${LEAF_VALIDITY_DAYS * HOURS_PER_DAY}h`,
      renewBefore: `${(LEAF_VALIDITY_DAYS - LEAF_RENEW_AFTER_DAYS) * HOURS_PER_DAY}h`,
      usages: ['server auth', 'digital signature', 'key encipherment'],
      privateKey: { rotationPolicy: 'Always' },
    },
  };
};

/** How soon to look again while cert-manager issues the certificate (the Secret's creation also triggers a sync). */
const ISSUING_RESYNC_SECONDS = 30;

/**
 * Waiting for cert-manager to fill the Secret of spec.tls.issuerRef (missing, or issued for other names): the
 * observed children stay as they are (a workload keeps its current certificate), and the Certificate is created or
 * kept up to date.
 */
const waitForIssuer = (input: IronicRenderInput, observed: ObservedChild): FeatureWait | undefined => {
  if (input.references.tls !== undefined && !issuedForOtherNames(input)) return undefined;
  const { names, namespace } = input;
  const why = textOf(findCondition(pathOf(observed(GROUP_KEYS.certificate, certificateName(names)), 'status'), READY_CONDITION)?.message);
  const certificate = renderCertificate(input);
  return {
    message: `waiting for cert-manager to issue the certificate into Secret ${namespace}/${names.certificateSecret} (Certificate ${certificateName(names)}${why !== undefined ? `: ${why}` : ''})`,
    kinds: ['Certificate'],
    children: certificate !== undefined ? [certificate] : [],
    resyncAfterSeconds: ISSUING_RESYNC_SECONDS,
  };
};

export const CERT_MANAGER: IronicFeature = {
  name: 'cert-manager',
  order: 110,
  applies: (model) => model.tls.issuerRef !== undefined,
  children: (input) => [renderCertificate(input)],
  waitFor: waitForIssuer,
  // The Secret cert-manager fills: not our child, read like a user's Secret.
  references: (_model, names) => [{ ...SECRET_REFERENCE, name: names.certificateSecret, field: 'spec.tls.issuerRef' }],
  takesSecret: (names, secret) => secret === names.certificateSecret,
};
