import t from 'tap';
import { stringAt } from '../support/paths.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { Type } from '@sinclair/typebox';
import { CustomResourceDefinition, type ICustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { allCrds, ironicCrd, ironicDatabaseCrd } from '../../src/kinds/crds.js';
import { crdFile } from '../../src/crd/yaml.js';
import { lintStructuralSchema, toStructuralSchema } from '../../src/crd/structural.js';
import { checkAgainstCrd, schemaOf } from '../helpers/crd-check.js';
import { URI_CASES } from '../fixtures/uri-cases.js';

t.test('committed CRDs are what the generator writes (run `npm run crds` after changing src/api)', async (t) => {
  for (const { file, crd } of allCrds()) {
    t.equal(readFileSync(`deploy/crds/${file}`, 'utf8'), crdFile(crd), file);
  }
});

t.test('generated schemas are structural', async (t) => {
  for (const { file, crd } of allCrds()) {
    t.same(lintStructuralSchema(schemaOf(crd)), [], file);
    t.doesNotThrow(
      () => new CustomResourceDefinition(parse(readFileSync(`deploy/crds/${file}`, 'utf8')) as ICustomResourceDefinition).validate(),
      `${file} is a valid CRD`,
    );
  }
});

t.test('the CRDs have a status subresource, printer columns and the metal3 category', async (t) => {
  for (const { crd } of allCrds()) {
    const spec = crd['spec'] as { names: { categories: string[] }; versions: { subresources: unknown; additionalPrinterColumns: { name: string }[] }[] };
    t.same(spec.names.categories, ['metal3']);
    t.same(spec.versions[0]?.subresources, { status: {} });
    const columns = spec.versions[0]?.additionalPrinterColumns.map((c) => c.name) ?? [];
    t.ok(columns.includes('Ready') && columns.includes('Reason') && columns.includes('Age'), columns.join(','));
  }
  const ironicColumns = (ironicCrd()['spec'] as { versions: { additionalPrinterColumns: { name: string; priority?: number }[] }[] }).versions[0]
    ?.additionalPrinterColumns;
  t.equal(ironicColumns?.find((c) => c.name === 'Requested Version')?.priority, 1, 'requested version only with -o wide');
  t.ok(ironicColumns?.some((c) => c.name === 'Installed Version' && c.priority === undefined));
});

t.test('status keeps observedGeneration, which Metacontroller writes (a pruned field would loop)', async (t) => {
  for (const { crd } of allCrds()) {
    const status = (schemaOf(crd)['properties'] as Record<string, { properties: Record<string, unknown> }>)['status'];
    t.ok(status?.properties['observedGeneration'], 'observedGeneration');
    t.ok(status?.properties['conditions'], 'conditions');
  }
});

const lintCases = [
  { scenario: '$ref', schema: { type: 'object', properties: { a: { $ref: '#/x' } } }, expected: /\$ref/ },
  { scenario: 'uniqueItems', schema: { type: 'array', uniqueItems: true, items: { type: 'string' } }, expected: /uniqueItems/ },
  { scenario: 'null type', schema: { type: 'null' }, expected: /single non-null type/ },
  {
    scenario: 'properties with additionalProperties',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
    expected: /mutually exclusive/,
  },
  { scenario: 'missing type', schema: { type: 'object', properties: { a: { description: 'x' } } }, expected: /type is required/ },
  { scenario: 'const', schema: { type: 'string', const: 'a' }, expected: /"const"/ },
  { scenario: 'anyOf without int-or-string', schema: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, expected: /anyOf is only allowed/ },
  { scenario: 'patternProperties', schema: { type: 'object', patternProperties: { '.*': { type: 'string' } } }, expected: /patternProperties/ },
  { scenario: 'boolean additionalProperties', schema: { type: 'object', additionalProperties: false }, expected: /must be a schema/ },
] as const;

t.test('the structural lint refuses what Kubernetes refuses', async (t) => {
  for (const c of lintCases) {
    const problems = lintStructuralSchema(c.schema);
    t.match(problems.join('\n'), c.expected, c.scenario);
  }
  t.same(
    lintStructuralSchema({ type: 'object', properties: { q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }),
    [],
  );
});

t.test('the rewriter converts TypeBox shapes and refuses what it cannot map', async (t) => {
  t.same(toStructuralSchema(Type.Union([Type.Literal('a'), Type.Literal('b')], { description: 'd' })), { description: 'd', type: 'string', enum: ['a', 'b'] });
  t.same(toStructuralSchema(Type.Record(Type.String(), Type.Integer())), { type: 'object', additionalProperties: { type: 'integer' } });
  t.same(toStructuralSchema(Type.Object({ a: Type.String() }, { additionalProperties: false })), {
    type: 'object',
    properties: { a: { type: 'string' } },
    required: ['a'],
  });
  t.throws(() => toStructuralSchema(Type.Union([Type.String(), Type.Integer()])), /only unions of string literals/);
  t.throws(() => toStructuralSchema(Type.Null()), /unsupported type/);
  t.throws(() => toStructuralSchema(Type.Object({ a: Type.Array(Type.String(), { uniqueItems: true }) })), /uniqueItems/);
  t.throws(() => toStructuralSchema(Type.Object({}, { additionalProperties: true })), /preserve-unknown-fields/);
  t.throws(() => toStructuralSchema({ $ref: 'x' }), /\$ref/);
  t.throws(() => toStructuralSchema('x'), /not an object/);
});

const loadExamples = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split(/^---$/m)
    .map((d) => parse(d) as Record<string, unknown> | null)
    .filter((d): d is Record<string, unknown> => d !== null);

t.test('the README examples are accepted by the generated schemas', async (t) => {
  const docs = [...loadExamples('examples/ironic.yaml'), ...loadExamples('examples/ironic-database.yaml')];
  t.ok(docs.length >= 2);
  for (const doc of docs) {
    const crd = doc['kind'] === 'Ironic' ? ironicCrd() : ironicDatabaseCrd();
    t.same(checkAgainstCrd(crd, doc), [], `${String(doc['kind'])} example`);
  }
});

const ironic = (spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'ironic.metal3.io/v1alpha1',
  kind: 'Ironic',
  metadata: { name: 'ironic', namespace: 'baremetal' },
  spec,
});

const refused = [
  { scenario: 'unknown version format', spec: { version: 'v38' }, message: /pattern/ },
  { scenario: 'port out of range', spec: { networking: { apiPort: 70000 } }, message: /must be <= 65535/ },
  {
    scenario: 'database and databaseName',
    spec: { databaseName: 'db', database: { credentialsName: 'c', host: 'h', name: 'n' } },
    message: /cannot both be set/,
  },
  { scenario: 'HA without database', spec: { highAvailability: true }, message: /requires a database/ },
  {
    scenario: 'HA with ipAddress',
    spec: { highAvailability: true, databaseName: 'db', networking: { ipAddress: '192.0.2.2' } },
    message: /ipAddress needs keepalived with highAvailability/,
  },
  {
    scenario: 'HA with DHCP',
    spec: {
      highAvailability: true,
      databaseName: 'db',
      networking: { interface: 'eth1', dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } },
    },
    message: /dhcp with highAvailability needs keepalived/,
  },
  { scenario: 'insecureRPC without HA', spec: { tls: { insecureRPC: true } }, message: /insecureRPC only makes sense/ },
  {
    scenario: 'disableHostNetwork with interface',
    spec: { networking: { disableHostNetwork: true, interface: 'eth1' } },
    message: /disableHostNetwork cannot be used/,
  },
  {
    scenario: 'externalIP with ingress',
    spec: { networking: { externalIP: '192.0.2.2', ingress: { host: 'x' } } },
    message: /externalIP cannot be set together/,
  },
  { scenario: 'one external URL alone', spec: { networking: { externalCallbackURL: 'https://a.example.com' } }, message: /must be set together/ },
  {
    scenario: 'DHCP without provisioning address',
    spec: { networking: { dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } } },
    message: /at least one of ipAddress, interface or macAddresses/,
  },
  {
    scenario: 'DHCP serveDNS with dnsAddress',
    spec: {
      networking: {
        interface: 'eth1',
        dhcp: { serveDNS: true, dnsAddress: '192.0.2.1', networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' },
      },
    },
    message: /dnsAddress cannot be set together with serveDNS/,
  },
  { scenario: 'DHCP partial range', spec: { networking: { interface: 'eth1', dhcp: { networkCIDR: '192.0.2.0/24' } } }, message: /must be set together/ },
  { scenario: 'DHCP without any range', spec: { networking: { interface: 'eth1', dhcp: {} } }, message: /at least one entry of extraRanges/ },
  {
    scenario: 'keepalived without interface',
    spec: { networking: { ipAddress: '192.0.2.2', keepalived: { enabled: true } } },
    message: /keepalived requires both ipAddress and interface/,
  },
  {
    scenario: 'keepalived twice',
    spec: { networking: { ipAddress: '192.0.2.2', interface: 'eth1', ipAddressManager: 'keepalived', keepalived: { enabled: true } } },
    message: /cannot be used together/,
  },
  { scenario: 'bmcCA mismatch', spec: { tls: { bmcCA: { name: 'a', kind: 'Secret' }, bmcCAName: 'b' } }, message: /bmcCA and bmcCAName/ },
  { scenario: 'trustedCA mismatch', spec: { tls: { trustedCA: { name: 'a', kind: 'Secret' }, trustedCAName: 'a' } }, message: /trustedCA and trustedCAName/ },
  {
    scenario: 'duplicate agent architecture',
    spec: {
      overrides: {
        agentImages: [
          { kernel: 'http://a/k', initramfs: 'http://a/i' },
          { kernel: 'http://b/k', initramfs: 'http://b/i', architecture: '' },
        ],
      },
    },
    message: /only once/,
  },
  {
    scenario: 'access mode with VLANs',
    spec: { networkingService: { enabled: true, providerNetworks: [{ type: 'idle', nativeVLAN: 10, allowedVLANs: ['20'] }] } },
    message: /cannot be set in access mode/,
  },
  {
    scenario: 'trunk mode without VLANs',
    spec: { networkingService: { enabled: true, providerNetworks: [{ type: 'idle', mode: 'trunk', nativeVLAN: 10 }] } },
    message: /required in trunk and hybrid/,
  },
] as const;

t.test('wrong Ironic objects are refused with the expected messages', async (t) => {
  for (const c of refused) {
    const problems = checkAgainstCrd(ironicCrd(), ironic(c.spec));
    t.match(problems.join('\n'), c.message, c.scenario);
  }
});

t.test('format uri is checked as the API server checks it (Go url.ParseRequestURI, not RFC 3986)', async (t) => {
  const formatError = '/spec/networking/externalCallbackURL: must match format "uri"';
  for (const { value, accepted } of URI_CASES) {
    const problems = checkAgainstCrd(ironicCrd(), ironic({ networking: { externalCallbackURL: value } }));
    t.equal(problems.includes(formatError), !accepted, `${JSON.stringify(value)} is ${accepted ? 'accepted' : 'refused'}`);
  }
});

t.test('the provider networks of a disabled networking service are not checked, as in validation', async (t) => {
  const networks = [
    { type: 'idle', nativeVLAN: 10, allowedVLANs: ['20'] },
    { type: 'inspection', mode: 'trunk', nativeVLAN: 10 },
  ];
  t.same(checkAgainstCrd(ironicCrd(), ironic({ networkingService: { enabled: false, providerNetworks: networks } })), []);
  t.same(checkAgainstCrd(ironicCrd(), ironic({ networkingService: { providerNetworks: networks } })), [], 'disabled by default');
  t.equal(checkAgainstCrd(ironicCrd(), ironic({ networkingService: { enabled: true, providerNetworks: networks } })).length, 2, 'both refused once enabled');
});

t.test('transition rules: a database cannot be swapped for another', async (t) => {
  const db = (host: string) => ({ credentialsName: 'c', host, name: 'ironic' });
  t.match(checkAgainstCrd(ironicCrd(), ironic({ database: db('b') }), ironic({ database: db('a') })).join(), /cannot be changed/);
  t.same(checkAgainstCrd(ironicCrd(), ironic({ database: db('a') }), ironic({ database: db('a') })), []);
  t.same(checkAgainstCrd(ironicCrd(), ironic({}), ironic({ database: db('a') })), [], 'removing is allowed');
  t.match(checkAgainstCrd(ironicCrd(), ironic({ databaseName: 'y' }), ironic({ databaseName: 'x' })).join(), /databaseName cannot be changed/);
});

t.test('wrong IronicDatabase objects are refused', async (t) => {
  const db = (spec: Record<string, unknown>) => ({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name: 'db' }, spec });
  t.match(
    checkAgainstCrd(ironicDatabaseCrd(), db({ storage: { ephemeral: true, storageClassName: 'fast' } })).join(),
    /storageClassName cannot be used with ephemeral/,
  );
  t.match(checkAgainstCrd(ironicDatabaseCrd(), db({ storage: { size: 'ten' } })).join(), /pattern/);
  t.match(checkAgainstCrd(ironicDatabaseCrd(), db({ storage: { whenDeleted: 'Maybe' } })).join(), /allowed values/);
  t.same(checkAgainstCrd(ironicDatabaseCrd(), db({ resources: { requests: { cpu: '100m', memory: 256 } } })), []);
});

t.test('every Ironic and IronicDatabase shown in README.md is accepted by the generated schemas', async (t) => {
  const blocks = [...readFileSync('README.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  let checked = 0;
  for (const block of blocks) {
    for (const doc of block.split(/^---$/m).map((d) => parse(d) as Record<string, unknown> | null)) {
      if (doc === null || (doc['kind'] !== 'Ironic' && doc['kind'] !== 'IronicDatabase')) continue;
      const crd = doc['kind'] === 'Ironic' ? ironicCrd() : ironicDatabaseCrd();
      t.same(checkAgainstCrd(crd, doc), [], `README ${doc['kind']} ${stringAt(doc, 'metadata', 'name')}`);
      checked += 1;
    }
  }
  t.ok(checked >= 2, `${checked} objects checked`);
});

t.test('IronicDatabase storage cannot switch between ephemeral and persistent, nor change class', async (t) => {
  const db = (storage: Record<string, unknown>) => ({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'IronicDatabase',
    metadata: { name: 'db' },
    spec: { storage },
  });
  t.match(checkAgainstCrd(ironicDatabaseCrd(), db({ ephemeral: true }), db({ size: '1Gi' })).join(), /ephemeral cannot be changed/);
  t.match(checkAgainstCrd(ironicDatabaseCrd(), db({ storageClassName: 'b' }), db({ storageClassName: 'a' })).join(), /storageClassName cannot be changed/);
  t.same(
    checkAgainstCrd(ironicDatabaseCrd(), db({ size: '20Gi', storageClassName: 'a' }), db({ size: '10Gi', storageClassName: 'a' })),
    [],
    'growing is allowed',
  );
  const withoutStorage = { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name: 'db' }, spec: {} };
  t.match(
    checkAgainstCrd(ironicDatabaseCrd(), db({ ephemeral: true }), withoutStorage).join(),
    /ephemeral cannot be changed/,
    'from no storage (persistent) to ephemeral',
  );
  t.match(checkAgainstCrd(ironicDatabaseCrd(), withoutStorage, db({ ephemeral: true })).join(), /ephemeral cannot be changed/, 'from ephemeral to no storage');
  t.match(
    checkAgainstCrd(ironicDatabaseCrd(), db({ storageClassName: 'a' }), withoutStorage).join(),
    /storageClassName cannot be changed/,
    'from the default class to another',
  );
  t.same(checkAgainstCrd(ironicDatabaseCrd(), db({ storageClassName: '' }), withoutStorage), [], 'an empty class is the default class');
});

t.test('IronicDatabase names are limited so that pod labels fit', async (t) => {
  const db = (name: string) => ({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name }, spec: {} });
  t.same(checkAgainstCrd(ironicDatabaseCrd(), db('a'.repeat(43))), []);
  t.match(checkAgainstCrd(ironicDatabaseCrd(), db('a'.repeat(44))).join(), /at most 43 characters/);
});

/** Every x-kubernetes-validations rule of a schema, with the property path it sits on. */
const rulesWithPaths = (schema: unknown, path: readonly string[] = []): { path: string; rule: string }[] => {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as { 'x-kubernetes-validations'?: { rule: string }[]; properties?: Record<string, unknown>; items?: unknown };
  return [
    ...(node['x-kubernetes-validations'] ?? []).map(({ rule }) => ({ path: path.join('.'), rule })),
    ...Object.entries(node.properties ?? {}).flatMap(([name, child]) => rulesWithPaths(child, [...path, name])),
    ...rulesWithPaths(node.items, [...path, '[]']),
  ];
};

t.test('the sensor interval minimum is ratcheted: a rule on the field itself, without oldSelf', async (t) => {
  // A stored Ironic from the former default of 60 must stay editable: Kubernetes 1.30+ ratchets a rule only
  // when the value at the rule's own location is unchanged, so a rule on prometheusExporter would refuse any
  // change of enabled or bindAddress.
  const rules = rulesWithPaths(schemaOf(ironicCrd())).filter((r) => r.rule.includes('sensorCollectionInterval') || r.path.endsWith('sensorCollectionInterval'));
  t.same(rules, [{ path: 'spec.prometheusExporter.sensorCollectionInterval', rule: 'self >= 120' }]);
});
