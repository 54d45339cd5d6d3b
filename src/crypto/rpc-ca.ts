/**
 * The private certificate authorities of an Ironic (the JSON-RPC CA of an HA Ironic, and the CA of
 * generated API certificates), and the leaf certificates they sign.
 *
 * NOTE (design): each replica's leaf certificate is issued in its pod at start, by an init container
 * that runs this module, and not by the hook. Only the pod knows the address it registers for RPC (the
 * node IP on the host network, else the pod IP); the hook never sees pods. The CA key is mounted into
 * that init container only; the Ironic containers get the CA certificate (to verify peers) and their own
 * leaf. The CA is trusted for RPC only: it is given to Ironic as the JSON-RPC CA file, nowhere else.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { certificateFacts, keyMatchesCertificate, requiredCertificateFacts } from './certificates.js';

export type KeyPairPem = { readonly certPem: string; readonly keyPem: string };

const DAY_MS = 24 * 60 * 60 * 1000;
/** CA lifetime, and how long before expiry it is renewed. */
export const CA_VALIDITY_DAYS = 3650;
export const CA_RENEW_BEFORE_DAYS = 365;
/** Certificates start an hour early to tolerate clock skew between nodes. */
const BACKDATE_MS = 60 * 60 * 1000;

/** A positive random serial number (RFC 5280: unique per CA, at most 20 octets). */
const serialNumber = (): string => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
};

const rsaKeyPair = (): Promise<{ publicKey: string; privateKey: string }> =>
  new Promise((resolve, reject) => {
    // Native and off the event loop (the hook must not block other syncs).
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })),
    );
  });

/** Generates a new CA for `commonName`, valid from `now` for CA_VALIDITY_DAYS. */
export const generateRpcCA = async (commonName: string, now: Date): Promise<KeyPairPem> => {
  const keys = await rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS);
  const subject = [{ name: 'commonName', value: commonName.slice(0, 64) }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKey };
};

/** Whether a certificate is a CA and the key is its own. */
export const caMatches = (ca: KeyPairPem): boolean => certificateFacts(ca.certPem)?.ca === true && keyMatchesCertificate(ca);

/**
 * Whether an existing CA can be kept at `now`: it parses, is a CA, its key matches, it is already valid,
 * and it stays valid for longer than the renewal window.
 */
export const caIsUsable = (ca: KeyPairPem, now: Date): boolean => {
  const cert = certificateFacts(ca.certPem);
  if (cert === undefined || !keyMatchesCertificate(ca)) return false;
  const renewAt = cert.validTo - CA_RENEW_BEFORE_DAYS * DAY_MS;
  return cert.ca && cert.validFrom <= now.getTime() && now.getTime() < renewAt;
};

/** When a CA enters its renewal window (a next CA is staged then). */
export const caRenewalStart = (certPem: string): Date => new Date(requiredCertificateFacts(certPem).validTo - CA_RENEW_BEFORE_DAYS * DAY_MS);

const ipAltName = (ip: string): { type: number; ip: string } => ({ type: 7, ip });
const dnsAltName = (value: string): { type: number; value: string } => ({ type: 2, value });

/**
 * Issues a leaf certificate for the given IP addresses and DNS names, signed by the CA, valid for
 * `validityDays` (at most until the CA expires; by default exactly that long). Used by the init containers
 * of the Ironic pods (synchronous: it runs once per pod start).
 */
export const issueCertificate = (params: {
  readonly ca: KeyPairPem;
  readonly ips: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly now: Date;
  readonly validityDays?: number;
  readonly fallbackName?: string;
}): KeyPairPem => {
  const caCert = forge.pki.certificateFromPem(params.ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(params.ca.keyPem);
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(params.now.getTime() - BACKDATE_MS);
  const caEnd = caCert.validity.notAfter;
  const wanted = params.validityDays !== undefined ? new Date(params.now.getTime() + params.validityDays * DAY_MS) : caEnd;
  cert.validity.notAfter = wanted.getTime() < caEnd.getTime() ? wanted : caEnd;
  const ips = [...new Set(params.ips.filter((ip) => ip !== ''))];
  const dnsNames = [...new Set((params.dnsNames ?? []).filter((n) => n !== ''))];
  cert.setSubject([{ name: 'commonName', value: (dnsNames[0] ?? ips[0] ?? params.fallbackName ?? 'ironic-json-rpc').slice(0, 64) }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    { name: 'subjectAltName', altNames: [...dnsNames.map(dnsAltName), ...ips.map(ipAltName)] },
    // Strict verifiers (OpenSSL -x509_strict, Python 3.13 defaults) require the issuer's key identifier.
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
};

/** A JSON-RPC leaf: the given IP addresses, valid until the CA expires. */
export const issueRpcCertificate = (params: { readonly ca: KeyPairPem; readonly ips: readonly string[]; readonly now: Date }): KeyPairPem =>
  issueCertificate({ ca: params.ca, ips: params.ips, now: params.now });
