/**
 * Schema errors in plain words: the field, the value given, what is expected and an example, never a regular
 * expression. The same words reach the Ready condition (the hooks' validators) and the render CLI (its
 * emulated API server, checking the generated CRDs). Every pattern and format of the schemas has a case here:
 * a new one without words fails the first test.
 */
import t from 'tap';
import { validateIronic, validateIronicDatabase, validateIronicImageCache } from '../../src/api/validate.js';
import { AGE_PATTERN, BACKUP_NAME_PATTERN, FORMAT_RULES, OPENSSL_NAME_PATTERN, PATTERN_RULES } from '../../src/api/shared/schema-messages.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { crdSchemaOf, parentProblems } from '../../src/cli/admission.js';
import { isRecord } from '../../src/api/shared/problems.js';

/** Every value of `keyword` anywhere in a schema. */
const keywordValues = (schema: unknown, keyword: string, out = new Set<string>()): Set<string> => {
  if (Array.isArray(schema)) schema.forEach((s) => keywordValues(s, keyword, out));
  else if (isRecord(schema)) {
    const value = schema[keyword];
    if (typeof value === 'string') out.add(value);
    Object.entries(schema).forEach(([key, child]) => (key === 'default' || key === 'example' ? undefined : keywordValues(child, keyword, out)));
  }
  return out;
};

const schemas = PARENT_KINDS.flatMap((kind) => [kind.spec, crdSchemaOf(kind)]);
const used = (keyword: string): string[] => [...new Set(schemas.flatMap((s) => [...keywordValues(s, keyword)]))].sort();

const ip = { interface: 'eth1', ipAddress: '192.0.2.2' };
type Kind = 'Ironic' | 'IronicDatabase' | 'IronicImageCache';
const VALIDATORS: Readonly<Record<Kind, (spec: unknown) => readonly { path: string; message: string }[]>> = {
  Ironic: validateIronic,
  IronicDatabase: validateIronicDatabase,
  IronicImageCache: validateIronicImageCache,
};

type Case = {
  readonly name: string;
  readonly kind: Kind;
  readonly spec: Record<string, unknown>;
  /** The pattern or format this case covers, if any. */
  readonly covers?: string;
  /** `path: message`, as both the hook and the CLI say it. */
  readonly problem: string;
};

const QUANTITY =
  'a Kubernetes quantity (a number with an optional suffix: k, M, G, T for powers of 1000 or Ki, Mi, Gi, Ti for powers of 1024, m for thousandths)';
const SIZE = 'a size (a number with an optional suffix: k, M, G, T for powers of 1000 or Ki, Mi, Gi, Ti for powers of 1024)';
const ARCH = { name: 'aarch64' };

const CASES: readonly Case[] = [
  {
    name: 'version written as a number',
    kind: 'Ironic',
    spec: { version: 38.0, networking: ip },
    problem: 'spec.version: must be text, but it is the number 38: write it as text, in quotes, for example "38.0"',
  },
  {
    name: 'version without a minor',
    kind: 'Ironic',
    covers: 'version',
    spec: { version: '38', networking: ip },
    problem: 'spec.version: "38" is not an Ironic version (latest, or MAJOR.MINOR): write "38.0"',
  },
  {
    name: 'version with a v',
    kind: 'Ironic',
    spec: { version: 'v38.0', networking: ip },
    problem: 'spec.version: "v38.0" is not an Ironic version (latest, or MAJOR.MINOR): write it like "38.0"',
  },
  {
    name: 'database size in GB',
    kind: 'IronicDatabase',
    covers: 'size',
    spec: { storage: { size: '10GB' } },
    problem: `spec.storage.size: "10GB" is not ${SIZE}: write "10Gi" (powers of 1024) or "10G" (powers of 1000), without a trailing B`,
  },
  {
    name: 'cache size with a space',
    kind: 'IronicImageCache',
    spec: { storage: { size: '5 Gi' } },
    problem: `spec.storage.size: "5 Gi" is not ${SIZE}: write "5Gi", without spaces or a trailing B`,
  },
  {
    name: 'size that is no number',
    kind: 'IronicDatabase',
    spec: { storage: { size: 'big' } },
    problem: `spec.storage.size: "big" is not ${SIZE}: write it like 10Gi`,
  },
  {
    name: 'memory in GB',
    kind: 'IronicDatabase',
    covers: 'quantity',
    spec: { resources: { limits: { memory: '1GB' } } },
    problem: `spec.resources.limits.memory: "1GB" is not ${QUANTITY}: write "1Gi" (powers of 1024) or "1G" (powers of 1000), without a trailing B`,
  },
  {
    name: 'cpu in words',
    kind: 'Ironic',
    spec: { networking: ip, resources: { ironic: { requests: { cpu: 'one core' } } } },
    problem: `spec.resources.ironic.requests.cpu: "one core" is not ${QUANTITY}: write it like 500m or 1Gi`,
  },
  {
    name: 'priority class with capitals',
    kind: 'Ironic',
    covers: 'dns',
    spec: { networking: ip, priorityClassName: 'High' },
    problem:
      'spec.priorityClassName: "High" is not a DNS subdomain name (lowercase letters, digits, \'-\' and \'.\', starting and ending with a letter or digit): write "high"',
  },
  {
    name: 'priority class with an underscore',
    kind: 'IronicDatabase',
    spec: { priorityClassName: 'node_critical' },
    problem:
      "spec.priorityClassName: \"node_critical\" is not a DNS subdomain name (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit): write it like system-node-critical",
  },
  {
    name: 'VLAN range with a comma',
    kind: 'Ironic',
    covers: 'vlan',
    spec: { networking: ip, networkingService: { providerNetworks: [{ type: 'idle', nativeVLAN: 1, allowedVLANs: ['10,20'] }] } },
    problem:
      'spec.networkingService.providerNetworks[0].allowedVLANs[0]: "10,20" is not a VLAN ID or a range of them (a number, or two joined by -): write it like "100-200"',
  },
  {
    name: 'a backup age in weeks',
    kind: 'IronicDatabase',
    covers: 'age',
    spec: { backup: { schedule: '0 2 * * *', retention: { maxAge: '2w' } } },
    problem: 'spec.backup.retention.maxAge: "2w" is not an age in hours or days (a whole number followed by h or d): write it like 30d',
  },
  {
    name: 'a backup named by its date only',
    kind: 'IronicDatabase',
    covers: 'backup',
    spec: { restoreFrom: { backup: '2026-01-01' } },
    problem:
      'spec.restoreFrom.backup: "2026-01-01" is not latest, or the file name of a backup (ironic-<UTC time>.sql.gz, or backup.<UTC time>.sql.gz of mariadb-operator): write it like ironic-20260101T020000Z.sql.gz',
  },
  {
    name: 'a cipher list in one string',
    kind: 'Ironic',
    covers: 'openssl',
    spec: { networking: ip, tls: { certificateName: 'tls', profile: { type: 'Custom', ciphers: ['AES128-SHA:AES256-SHA'] } } },
    problem:
      "spec.tls.profile.ciphers[0]: \"AES128-SHA:AES256-SHA\" is not an OpenSSL cipher or curve name (letters, digits, '_' and '-'): write it like ECDHE-RSA-AES128-GCM-SHA256",
  },
  {
    name: 'IPA file name with a directory',
    kind: 'IronicImageCache',
    covers: 'file',
    spec: { architectures: [{ name: 'x86_64' }, { ...ARCH, filename: '/tmp/ipa.tar.gz' }] },
    problem:
      "spec.architectures[1].filename: \"/tmp/ipa.tar.gz\" is not a file name (letters, digits, '.', '_' and '-', starting with a letter or digit, no directory): write it like ipa-centos9-master.tar.gz",
  },
  {
    name: 'URL without a scheme',
    kind: 'IronicImageCache',
    covers: 'uri',
    spec: { agentDownloadURL: 'images.example.com/ipa' },
    problem:
      'spec.agentDownloadURL: "images.example.com/ipa" is not an absolute URL (with a scheme such as https:// or file://): write it like https://192.0.2.10:6385',
  },
  {
    name: 'URL with a leading space (the API server refuses it; the words say why)',
    kind: 'IronicImageCache',
    spec: { agentDownloadURL: ' https://images.example.com/ipa' },
    problem: 'spec.agentDownloadURL: " https://images.example.com/ipa" has spaces around it: remove them',
  },
  {
    name: 'URL with a bad escape',
    kind: 'Ironic',
    spec: { networking: { ...ip, externalCallbackURL: 'http://192.0.2.2:6385/100%', imageServerExternalURL: 'http://192.0.2.2:6180' } },
    problem: 'spec.networking.externalCallbackURL: "http://192.0.2.2:6385/100%" has a % that does not start an escape: write it as %25',
  },
  {
    name: 'a date without a time',
    kind: 'IronicImageCache',
    covers: 'date-time',
    spec: { agentMinimumModificationTime: '2024-05-01' },
    problem:
      'spec.agentMinimumModificationTime: "2024-05-01" is not an RFC 3339 timestamp (date, T, time and a time zone): write it like "2024-05-01T12:00:00Z"',
  },
  {
    name: 'a port in quotes',
    kind: 'Ironic',
    spec: { networking: { ...ip, apiPort: '6385' } },
    problem: 'spec.networking.apiPort: must be a whole number, but it is "6385" (text): write a number without quotes or decimals, for example 6385',
  },
  {
    name: 'a boolean in quotes',
    kind: 'Ironic',
    spec: { networking: ip, highAvailability: 'yes' },
    problem: 'spec.highAvailability: must be true or false, but it is "yes" (text): write true or false without quotes',
  },
  {
    name: 'a value outside an enum',
    kind: 'IronicDatabase',
    spec: { engine: 'Galera' },
    problem: 'spec.engine: must be one of "Builtin", "MariaDBOperator", but it is "Galera": use one of these values',
  },
];

const COVERED: Readonly<Record<string, string>> = {
  version: '^(latest|[0-9]+\\.[0-9]+)$',
  size: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$',
  quantity: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  dns: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$',
  vlan: '^[0-9]+(-[0-9]+)?$',
  file: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  age: AGE_PATTERN,
  backup: BACKUP_NAME_PATTERN,
  openssl: OPENSSL_NAME_PATTERN,
  uri: 'uri',
  'date-time': 'date-time',
};

t.test('every pattern and format of the schemas has words, and a case below', async (t) => {
  const patterns = used('pattern');
  const formats = used('format');
  t.ok(patterns.length >= 6, 'the walk finds the patterns');
  t.same(
    patterns.filter((p) => PATTERN_RULES[p] === undefined),
    [],
    'patterns without words',
  );
  t.same(
    formats.filter((f) => FORMAT_RULES[f] === undefined),
    [],
    'formats without words',
  );
  const covered = new Set(CASES.flatMap((c) => (c.covers === undefined ? [] : [COVERED[c.covers]])));
  t.same(
    [...patterns, ...formats].filter((p) => !covered.has(p)),
    [],
    'patterns and formats without a case',
  );
});

for (const c of CASES) {
  t.test(`${c.name}: the hook says it in plain words`, async (t) => {
    const problems = VALIDATORS[c.kind](c.spec).map((p) => `${p.path}: ${p.message}`);
    t.same(problems, [c.problem]);
  });
  t.test(`${c.name}: the render CLI says the same`, async (t) => {
    const object = { apiVersion: 'ironic.metal3.io/v1alpha1', kind: c.kind, metadata: { name: 'x', namespace: 'metal3' }, spec: c.spec };
    t.same(parentProblems(object), [c.problem]);
  });
}

t.test('no message shows a regular expression', async (t) => {
  for (const c of CASES) t.notMatch(c.problem, /\^|\$|\[0-9\]/, c.name);
});
