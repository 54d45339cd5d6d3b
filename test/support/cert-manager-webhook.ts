/**
 * cert-manager's validating webhook (`webhook.cert-manager.io`, v1.21.1) for the Certificates the hooks
 * render: the rules of ValidateCertificateSpec (internal/apis/certmanager/validation/certificate.go) on the
 * fields we write, checked on create and update (internal/webhook/admission/resourcevalidation/
 * resourcevalidation.go maps both to the same spec validation). The webhook answers with
 * controller-runtime's admission.Denied (pkg/webhook/admission/custom_validator_webhook.go), so the API
 * server refuses the write with `admission webhook "webhook.cert-manager.io" denied the request: ...`.
 *
 * Not modelled, since we never write them: literalSubject, emailAddresses, otherNames, nameConstraints,
 * keystores, additionalOutputFormats, renewal windows and signatureAlgorithm.
 */
import { parseIP } from '../../src/api/shared/net.js';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(text) : []);

/** apimachinery's IsDNS1123Subdomain, as NameIsDNSSubdomain applies it. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label value, and the name part of a qualified name (metav1 validation's ValidateLabels). */
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const NANOSECONDS: Readonly<Record<string, number>> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/**
 * Seconds of a Go duration string (time.ParseDuration, which metav1.Duration's JSON decoding uses), or
 * undefined when it does not parse (the webhook then cannot decode the object).
 */
export const goDurationSeconds = (value: string): number | undefined => {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(value);
  if (value === '0') return 0;
  if (match === null) return undefined;
  let seconds = 0;
  for (const part of value.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g))
    seconds += Number(part[1]) * (NANOSECONDS[part[2] ?? ''] ?? 0);
  return match[1] === '-' ? -seconds : seconds;
};

/** cert-manager.io/v1 constants (pkg/apis/certmanager/v1/const.go): MinimumCertificateDuration, DefaultCertificateDuration, MinimumRenewBefore. */
const MINIMUM_DURATION_SECONDS = 3600;
const DEFAULT_DURATION_SECONDS = 90 * 24 * 3600;
const MINIMUM_RENEW_BEFORE_SECONDS = 5 * 60;

/** The key usages cert-manager knows (pkg/api/util/usages.go: keyUsages and extKeyUsages). */
const USAGES = new Set([
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
]);

/** validateIssuerRef (certificate.go, lines 254-294): a name, and a built-in kind for the built-in group. */
const issuerRefProblems = (issuerRef: unknown): string[] => {
  const name = text(isRecord(issuerRef) ? issuerRef['name'] : undefined);
  const kind = text(isRecord(issuerRef) ? issuerRef['kind'] : undefined);
  const group = text(isRecord(issuerRef) ? issuerRef['group'] : undefined);
  return [
    ...(name === '' ? ['spec.issuerRef.name: Required value'] : []),
    // An empty group means cert-manager's own issuers, so only their kinds are accepted there.
    ...((group === '' || group === 'cert-manager.io') && kind !== '' && kind !== 'Issuer' && kind !== 'ClusterIssuer'
      ? [
          `spec.issuerRef.kind: Invalid value: "${kind}": only Issuer or ClusterIssuer in the group cert-manager.io${group === '' ? ' (an external issuer needs its group)' : ''}`,
        ]
      : []),
  ];
};

/** The subject rules (certificate.go, lines 125-141 and 296-308): something to certify, a short commonName, parseable IP addresses. */
const subjectProblems = (spec: Json): string[] => {
  const commonName = text(spec['commonName']);
  const sans = ['dnsNames', 'uris', 'emailAddresses', 'ipAddresses', 'otherNames'].some((key) => Array.isArray(spec[key]) && spec[key].length > 0);
  return [
    ...(commonName === '' && !sans
      ? ['spec: Invalid value: "": set at least one of commonName, dnsNames, uris, emailAddresses, ipAddresses or otherNames']
      : []),
    // Go counts bytes (len of a string).
    ...(Buffer.byteLength(commonName) > 64 ? [`spec.commonName: Too long: may not be more than 64 bytes (${Buffer.byteLength(commonName)})`] : []),
    // net.ParseIP: no zone, and no leading zeros in IPv4 (Go 1.17 and later).
    ...strings(spec['ipAddresses']).flatMap((ip, i) =>
      parseIP(ip, { allowZone: false }) === undefined || (/(^|\.)0\d/.test(ip) && !ip.includes(':'))
        ? [`spec.ipAddresses[${i}]: Invalid value: "${ip}": invalid IP address`]
        : [],
    ),
  ];
};

/** The private key rules (certificate.go, lines 167-182). */
const privateKeyProblems = (privateKey: unknown): string[] => {
  if (!isRecord(privateKey)) return [];
  const algorithm = text(privateKey['algorithm']);
  const size = typeof privateKey['size'] === 'number' ? privateKey['size'] : 0;
  if (algorithm === '' || algorithm === 'RSA')
    return size > 0 && (size < 2048 || size > 8192) ? [`spec.privateKey.size: Invalid value: ${size}: an RSA key has 2048 to 8192 bits`] : [];
  if (algorithm === 'ECDSA')
    return size > 0 && ![256, 384, 521].includes(size) ? [`spec.privateKey.size: Unsupported value: ${size}: supported values: "256", "384", "521"`] : [];
  return algorithm === 'Ed25519' ? [] : [`spec.privateKey.algorithm: Invalid value: "${algorithm}": empty, RSA, ECDSA or Ed25519`];
};

/** ValidateDuration (certificate.go, lines 358-404): a long enough lifetime, renewed neither too late nor before it starts. */
const durationProblems = (spec: Json): string[] => {
  if (spec['duration'] === undefined && spec['renewBefore'] === undefined) return [];
  const parsed = (key: string): number | undefined | 'invalid' => {
    const value = spec[key];
    if (value === undefined) return undefined;
    return goDurationSeconds(text(value)) ?? 'invalid';
  };
  const duration = parsed('duration');
  const renewBefore = parsed('renewBefore');
  if (duration === 'invalid' || renewBefore === 'invalid')
    return ['spec: the object cannot be decoded: duration and renewBefore must be Go durations such as 2160h'];
  const lifetime = duration ?? DEFAULT_DURATION_SECONDS;
  const percentage = spec['renewBeforePercentage'];
  return [
    ...(lifetime < MINIMUM_DURATION_SECONDS ? [`spec.duration: Invalid value: ${lifetime}s: must be at least 1h`] : []),
    ...(renewBefore !== undefined && percentage !== undefined
      ? ['spec.renewBefore: Invalid value: renewBefore and renewBeforePercentage cannot both be set']
      : []),
    ...(renewBefore !== undefined && renewBefore < MINIMUM_RENEW_BEFORE_SECONDS
      ? [`spec.renewBefore: Invalid value: ${renewBefore}s: must be at least 5m`]
      : []),
    ...(renewBefore !== undefined && renewBefore >= lifetime
      ? [`spec.renewBefore: Invalid value: ${renewBefore}s: must be shorter than the duration (${lifetime}s)`]
      : []),
  ];
};

/** validateSecretTemplateLabels and validateSecretTemplateAnnotations (certificate.go, lines 340-356). */
const secretTemplateProblems = (template: unknown): string[] => {
  if (!isRecord(template)) return [];
  const labels = isRecord(template['labels']) ? template['labels'] : {};
  const annotations = isRecord(template['annotations']) ? template['annotations'] : {};
  const keyOk = (key: string): boolean => {
    const parts = key.split('/');
    const [prefix, name] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : [undefined, key];
    return parts.length <= 2 && (prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix))) && name.length <= 63 && LABEL_NAME.test(name);
  };
  return [
    ...Object.entries(labels).flatMap(([key, value]) => [
      ...(keyOk(key) ? [] : [`spec.secretTemplate.labels: Invalid value: "${key}": not a qualified name`]),
      ...(text(value) === '' || (text(value).length <= 63 && LABEL_NAME.test(text(value)))
        ? []
        : [`spec.secretTemplate.labels: Invalid value: "${text(value)}": not a label value`]),
    ]),
    ...Object.keys(annotations).flatMap((key) => [
      ...(key.startsWith('cert-manager.io/') && key !== 'cert-manager.io/allow-direct-injection'
        ? [`spec.secretTemplate.annotations: Invalid value: "${key}": cert-manager.io/ annotations are cert-manager's`]
        : []),
      ...(keyOk(key) ? [] : [`spec.secretTemplate.annotations: Invalid value: "${key}": not a qualified name`]),
    ]),
  ];
};

/** What ValidateCertificateSpec finds wrong with a Certificate's spec (on the fields we write). */
export const certificateSpecProblems = (certificate: unknown): string[] => {
  const spec = isRecord(certificate) && isRecord(certificate['spec']) ? certificate['spec'] : {};
  const secretName = text(spec['secretName']);
  const revisionHistoryLimit = spec['revisionHistoryLimit'];
  return [
    // Lines 66-72: a secretName that is a DNS subdomain.
    ...(secretName === ''
      ? ['spec.secretName: Required value']
      : secretName.length > 253 || !DNS_SUBDOMAIN.test(secretName)
        ? [`spec.secretName: Invalid value: "${secretName}": not a DNS subdomain`]
        : []),
    ...issuerRefProblems(spec['issuerRef']),
    ...subjectProblems(spec),
    ...privateKeyProblems(spec['privateKey']),
    ...durationProblems(spec),
    // Lines 199-201 and 328-338.
    ...strings(spec['usages']).flatMap((usage, i) => (USAGES.has(usage) ? [] : [`spec.usages[${i}]: Invalid value: "${usage}": unknown keyusage`])),
    // Lines 202-204.
    ...(typeof revisionHistoryLimit === 'number' && revisionHistoryLimit < 1
      ? [`spec.revisionHistoryLimit: Invalid value: ${revisionHistoryLimit}: must be at least 1`]
      : []),
    ...secretTemplateProblems(spec['secretTemplate']),
  ];
};

/** The webhook's answer to a write of a cert-manager object: a denial line, or nothing when it is admitted. */
export const certManagerWebhookRefusals = (object: Readonly<Record<string, unknown>>): string[] => {
  if (object['apiVersion'] !== 'cert-manager.io/v1' || object['kind'] !== 'Certificate') return [];
  const problems = certificateSpecProblems(object);
  // field.ErrorList.ToAggregate: one error as it is, several in brackets.
  return problems.length === 0
    ? []
    : [`admission webhook "webhook.cert-manager.io" denied the request: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`];
};
