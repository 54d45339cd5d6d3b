/**
 * What the hooks read of PEM certificates, parsed once: a sync asks about the same CA certificates many
 * times (each step of the rotation, the renewal period, the order of observed CAs), and parsing a
 * certificate, let alone a private key, costs far more than the rest of a sync. Bounded memos keyed by the
 * certificate's text (public), by the fingerprints of a certificate and its CA, or by a digest of the
 * certificate and key (never the key itself); the answers never depend on what was asked before. A bundle
 * is parsed block by block, so each certificate is parsed once however many bundles hold it; texts larger
 * than any certificate are parsed every time.
 */
import { X509Certificate, createHash, createPrivateKey, hash } from 'node:crypto';
import { boundedMemo, type Memo } from '../api/shared/memo.js';

/** The dates (milliseconds, as Date.parse reads the certificate's) and CA flag of a certificate. */
export type CertificateFacts = { readonly ca: boolean; readonly validFrom: number; readonly validTo: number };

/** Larger texts are not kept: a certificate is a couple of KiB. */
const MAX_KEPT_LENGTH = 16 * 1024;
/** A few CAs per Ironic, each in a few Secrets during a rotation. */
const KEPT = 256;

const factsOf = (cert: X509Certificate): CertificateFacts => ({ ca: cert.ca, validFrom: Date.parse(cert.validFrom), validTo: Date.parse(cert.validTo) });

const parseCertificate = (certPem: string): X509Certificate | undefined => {
  try {
    return new X509Certificate(certPem);
  } catch {
    return undefined;
  }
};

/** Certificates already parsed, by their (public) text: one parse per certificate, whatever asks about it. */
export const parsedCertificates: Memo<X509Certificate | undefined> = boundedMemo(KEPT);

/** The certificate of a PEM text, or undefined when it does not parse. */
const certificateOf = (certPem: string): X509Certificate | undefined =>
  certPem.length <= MAX_KEPT_LENGTH ? parsedCertificates.get(certPem, () => parseCertificate(certPem)) : parseCertificate(certPem);

/** The facts of a certificate, or undefined when it does not parse. */
export const certificateFacts = (certPem: string): CertificateFacts | undefined => {
  const cert = certificateOf(certPem);
  return cert === undefined ? undefined : factsOf(cert);
};

/** The facts of a certificate that must parse: otherwise throws what parsing it throws. */
export const requiredCertificateFacts = (certPem: string): CertificateFacts => certificateFacts(certPem) ?? factsOf(new X509Certificate(certPem));

/** A certificate and its private key, in PEM. */
type Pair = { readonly certPem: string; readonly keyPem: string };

const matches = (pair: Pair): boolean => {
  const cert = certificateOf(pair.certPem);
  try {
    return cert?.checkPrivateKey(createPrivateKey(pair.keyPem)) === true;
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

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM text, in order; undefined when it holds none or one of them does not parse.
 * Each block is parsed once (a CA bundle of many roots is larger than any text kept whole).
 */
export const certificateBundle = (pem: string): readonly X509Certificate[] | undefined => {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  const certs: X509Certificate[] = [];
  for (const block of blocks) {
    const cert = certificateOf(block);
    if (cert === undefined) return undefined;
    certs.push(cert);
  }
  return certs.length === 0 ? undefined : certs;
};

const keyParses = (keyPem: string): boolean => {
  try {
    return createPrivateKey(keyPem).type === 'private';
  } catch {
    return false;
  }
};

/** Keys already parsed: by a digest of the key, never the key itself. */
export const parsedKeys: Memo<boolean> = boundedMemo(KEPT);

/** Whether a text is a private key in PEM (PKCS#1, PKCS#8 or SEC1) that parses. */
export const privateKeyParses = (keyPem: string): boolean =>
  keyPem.length > MAX_KEPT_LENGTH ? keyParses(keyPem) : parsedKeys.get(hash('sha256', keyPem, 'hex'), () => keyParses(keyPem));

/** Signature checks already made, by the fingerprints of the certificate and of the CA (both public). */
export const signatureChecks: Memo<boolean> = boundedMemo(KEPT);

/** Whether `ca` issued `cert` and its key signed it. */
const signedBy = (cert: X509Certificate, ca: X509Certificate): boolean =>
  signatureChecks.get(`${cert.fingerprint256} ${ca.fingerprint256}`, () => cert.checkIssued(ca) && cert.verify(ca.publicKey));

/** Whether `cert` is one of `cas`, or issued and signed by one of them. */
const signedByOneOf = (cert: X509Certificate, cas: readonly X509Certificate[]): boolean =>
  cas.some((ca) => ca.fingerprint256 === cert.fingerprint256 || signedBy(cert, ca));

/** A certificate issued moments ago by an issuer whose clock runs ahead is not refused. */
const NOT_YET_VALID_TOLERANCE_MS = 60 * 60 * 1000;

const isoDate = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** The problems of a certificate's dates at `now`: expired, or not valid yet (beyond the tolerance). */
const validityProblems = (validity: { readonly from: number; readonly to: number }, now: number): string[] => {
  if (validity.to <= now) return [`the certificate in tls.crt expired on ${isoDate(validity.to)}: renew it`];
  if (validity.from > now + NOT_YET_VALID_TOLERANCE_MS)
    return [`the certificate in tls.crt is not valid before ${isoDate(validity.from)}: check the clock of its issuer, or wait`];
  return [];
};

/** What is wrong with ca.crt for the chain in tls.crt: each a phrase that says what to do; never any content. */
const caProblems = (chain: readonly X509Certificate[], caPem: string | undefined): string[] => {
  if (caPem === undefined || caPem.trim() === '') return [];
  const cas = certificateBundle(caPem);
  if (cas === undefined) return ['ca.crt holds no PEM certificate that parses: put the CA that issued the certificate in ca.crt, or remove the key'];
  if (!chain.some((cert) => signedByOneOf(cert, cas)))
    return ['ca.crt did not sign the certificate in tls.crt: put the CA that issued it in ca.crt, or the certificate with its intermediates in tls.crt'];
  return [];
};

/**
 * What the content of a kubernetes.io/tls Secret says whatever the time: the problems of its keys, the dates of
 * the serving certificate (when tls.crt parses), then the problems of ca.crt. Never any content.
 */
export type TlsContentFacts = {
  readonly problems: readonly string[];
  /** The DNS names of the leaf's subjectAltName (what Go's host-name check reads; it ignores the common name). */
  readonly dnsNames: readonly string[];
  readonly validity?: { readonly from: number; readonly to: number };
  readonly caProblems: readonly string[];
};

/** The DNS names of a certificate's subjectAltName (Node writes it `DNS:a, DNS:b, IP Address:192.0.2.1`). */
const sanDnsNames = (cert: X509Certificate): string[] =>
  (cert.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice('DNS:'.length));

/**
 * Whether a certificate with these DNS names passes a client's host-name check for `host`, as Go's crypto/tls
 * checks it: letter case aside, the same name, or a `*` that is the whole leftmost label and stands for exactly one
 * label (`*.a.b` covers `x.a.b`, not `a.b` nor `x.y.a.b`).
 */
export const hostCovered = (dnsNames: readonly string[], host: string): boolean => {
  const wanted = host.toLowerCase().replace(/\.$/, '');
  return dnsNames.some((name) => {
    const pattern = name.toLowerCase().replace(/\.$/, '');
    if (!pattern.startsWith('*.')) return pattern === wanted;
    const dot = wanted.indexOf('.');
    return dot > 0 && wanted.slice(dot) === pattern.slice(1);
  });
};

/** The facts of a kubernetes.io/tls Secret's content (see tlsContentProblems), which do not depend on the time. */
export const tlsContentFacts = (content: { readonly certPem: string; readonly keyPem: string; readonly caPem?: string | undefined }): TlsContentFacts => {
  const chain = certificateBundle(content.certPem);
  const keyOk = privateKeyParses(content.keyPem);
  const leaf = chain?.[0];
  return {
    problems: [
      ...(chain === undefined ? ['tls.crt holds no PEM certificate that parses: put the certificate (-----BEGIN CERTIFICATE-----) in tls.crt'] : []),
      ...(keyOk ? [] : ['tls.key holds no PEM private key that parses: put the private key (-----BEGIN PRIVATE KEY-----) in tls.key']),
      ...(chain !== undefined && keyOk && !keyMatchesCertificate({ certPem: content.certPem, keyPem: content.keyPem })
        ? ['tls.key is not the private key of the certificate in tls.crt: put the key it was issued for']
        : []),
    ],
    dnsNames: leaf === undefined ? [] : sanDnsNames(leaf),
    ...(leaf !== undefined && { validity: { from: Date.parse(leaf.validFrom), to: Date.parse(leaf.validTo) } }),
    caProblems: chain === undefined ? [] : caProblems(chain, content.caPem),
  };
};

/** The problems of a TLS Secret's content at `now` (milliseconds), from its facts: keys, dates, then ca.crt. */
export const tlsProblemsAt = (facts: TlsContentFacts, now: number): string[] => [
  ...facts.problems,
  ...(facts.validity !== undefined ? validityProblems(facts.validity, now) : []),
  ...facts.caProblems,
];

/**
 * The problems of the content of a kubernetes.io/tls Secret at `now` (milliseconds): tls.crt holds PEM
 * certificates (the serving one first, then its intermediates) that are valid now, tls.key is a PEM private
 * key and the certificate's own, and ca.crt (when given) holds the CA that issued the chain. Phrases name the
 * key and what to do; they never quote the content.
 */
export const tlsContentProblems = (
  content: { readonly certPem: string; readonly keyPem: string; readonly caPem?: string | undefined },
  now: number,
): string[] => tlsProblemsAt(tlsContentFacts(content), now);
