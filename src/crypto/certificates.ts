/**
 * What the hooks read of PEM certificates, parsed once: a sync asks about the same CA certificates many
 * times (each step of the rotation, the renewal period, the order of observed CAs), and parsing a
 * certificate, let alone a private key, costs far more than the rest of a sync. Bounded memos keyed by the
 * certificate's text (public) or by a digest of the certificate and key (never the key itself); the
 * answers never depend on what was asked before. Texts larger than any certificate are parsed every time.
 */
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { boundedMemo, type Memo } from '../api/shared/memo.js';

/** The dates (milliseconds, as Date.parse reads the certificate's) and CA flag of a certificate. */
export type CertificateFacts = { readonly ca: boolean; readonly validFrom: number; readonly validTo: number };

/** Larger texts are not kept: a certificate is a couple of KiB. */
const MAX_KEPT_LENGTH = 16 * 1024;
/** A few CAs per Ironic, each in a few Secrets during a rotation. */
const KEPT = 256;

const factsOf = (cert: X509Certificate): CertificateFacts => ({ ca: cert.ca, validFrom: Date.parse(cert.validFrom), validTo: Date.parse(cert.validTo) });

const parse = (certPem: string): CertificateFacts | undefined => {
  try {
    return factsOf(new X509Certificate(certPem));
  } catch {
    return undefined;
  }
};

export const parsedCertificates: Memo<CertificateFacts | undefined> = boundedMemo(KEPT);

/** The facts of a certificate, or undefined when it does not parse. */
export const certificateFacts = (certPem: string): CertificateFacts | undefined =>
  certPem.length <= MAX_KEPT_LENGTH ? parsedCertificates.get(certPem, () => parse(certPem)) : parse(certPem);

/** The facts of a certificate that must parse: otherwise throws what parsing it throws. */
export const requiredCertificateFacts = (certPem: string): CertificateFacts => certificateFacts(certPem) ?? factsOf(new X509Certificate(certPem));

/** A certificate and its private key, in PEM. */
type Pair = { readonly certPem: string; readonly keyPem: string };

const matches = (pair: Pair): boolean => {
  try {
    return new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem));
  } catch {
    return false;
  }
};

export const keyMatches: Memo<boolean> = boundedMemo(KEPT);

/** Whether the key is the certificate's own (false when either does not parse). */
export const keyMatchesCertificate = (pair: Pair): boolean => {
  if (pair.certPem.length + pair.keyPem.length > 2 * MAX_KEPT_LENGTH) return matches(pair);
  const digest = createHash('sha256').update(`${pair.certPem.length}\0`).update(pair.certPem).update(pair.keyPem).digest('hex');
  return keyMatches.get(digest, () => matches(pair));
};
