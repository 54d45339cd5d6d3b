/**
 * The admission policies deploy/ ships, taken from the `kubectl kustomize` output and run on sample
 * requests with the CEL interpreter, as the API server would run them:
 * - deploy/base: a ValidatingAdmissionPolicy refuses deleting an IronicDatabase that status.usedBy says is
 *   in use, naming the users;
 * - deploy/components/api-credentials-name: a MutatingAdmissionPolicy writes `<name>-api-credentials`
 *   (the Secret the hook generates) into spec.apiCredentialsName of a new Ironic that names none.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { conditionsOf, hookResponse, ironic, testServer } from '../helpers/hooks.js';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { kustomizeBuild, type Obj } from './kustomize.js';
import { admissionPolicyErrors } from './admission-policy.js';
import { applyConfigurationAsMap, applyConfigurationOf, fieldPaths, mutate, policyMatches, Policy, validate, type Admission, type Operation } from './admission-cel.js';
import { Type } from '@sinclair/typebox';
import { childOf } from '../helpers/children.js';
import { bodyOf, checked } from '../helpers/json.js';
import { objAt, objAtOrEmpty, objsAt } from '../support/paths.js';

const GROUP = 'ironic.metal3.io';
const VERSION = 'v1alpha1';
const IN_USE = 'ironicdatabase-in-use.ironic.metal3.io';
const CACHE_IN_USE = 'ironicimagecache-in-use.ironic.metal3.io';
const CREDENTIALS = 'ironic-api-credentials-name.ironic.metal3.io';

const named = (objects: readonly Obj[], kind: string, name: string): Obj => {
  const found = objects.find((o) => o['kind'] === kind && objAt(o, 'metadata')['name'] === name);
  if (found === undefined) throw new Error(`${kind} ${name} is missing`);
  return found;
};
const base = kustomizeBuild('deploy/base');
const component = kustomizeBuild('deploy/components/api-credentials-name');
const inUse = checked(Policy, named(base, 'ValidatingAdmissionPolicy', IN_USE), IN_USE);
const cacheInUse = checked(Policy, named(base, 'ValidatingAdmissionPolicy', CACHE_IN_USE), CACHE_IN_USE);
const credentials = checked(Policy, named(component, 'MutatingAdmissionPolicy', CREDENTIALS), CREDENTIALS);
const crd = (file: string): Obj => objAt(parse(readFileSync(`deploy/crds/${file}`, 'utf8').replace(/^#.*\n/, '')));
const databaseCrd = crd('ironic.metal3.io_ironicdatabases.yaml');
const ironicCrd = crd('ironic.metal3.io_ironics.yaml');
const cacheCrd = crd('ironic.metal3.io_ironicimagecaches.yaml');

const database = (status?: Obj): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'IronicDatabase',
  metadata: { name: 'ironic-db', namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-0000000000db', generation: 2, finalizers: ['metacontroller.io/compositecontroller-ironicdatabase'] },
  spec: { storage: { size: '10Gi' } },
  ...(status !== undefined && { status }),
});

const request = (kind: 'Ironic' | 'IronicDatabase', operation: Operation, object: Obj | null, oldObject: Obj | null): Admission => ({
  operation,
  kind,
  resource: { group: GROUP, version: VERSION, resource: kind === 'Ironic' ? 'ironics' : 'ironicdatabases' },
  object,
  oldObject,
});
/** DELETE: the API server gives the stored object as oldObject and null as object. */
const deletion = (stored: Obj): Admission => request('IronicDatabase', 'DELETE', null, stored);

t.test('the policies and their bindings are well-formed and bound', async (t) => {
  for (const [objects, kind, name] of [
    [base, 'ValidatingAdmissionPolicy', IN_USE],
    [base, 'ValidatingAdmissionPolicy', CACHE_IN_USE],
    [component, 'MutatingAdmissionPolicy', CREDENTIALS],
  ] as const) {
    const policy = named(objects, kind, name);
    const binding = named(objects, `${kind}Binding`, name);
    t.same(admissionPolicyErrors(policy), [], `${kind} ${name}`);
    t.same(admissionPolicyErrors(binding), [], `${kind}Binding ${name}`);
    t.equal(objAt(binding, 'spec')['policyName'], name, 'the binding names the policy');
    t.equal(objAt(policy, 'spec')['failurePolicy'], 'Fail', 'an expression error refuses the request instead of skipping the policy');
  }
  t.same(objAt(named(base, 'ValidatingAdmissionPolicyBinding', IN_USE), 'spec')['validationActions'], ['Deny'], 'a refusal, not a warning');
  t.same(
    base.filter((o) => String(o['kind']).startsWith('Mutating')),
    [],
    'deploy/base installs on clusters without MutatingAdmissionPolicy (before Kubernetes 1.36)',
  );
});

t.test('the shape checks refuse what the API server would', async (t) => {
  const broken: [string, (p: Obj & { spec: Obj }) => void][] = [
    ['a misspelt field', (p) => Object.assign(p.spec, { validation: [] })],
    ['no validations', (p) => Object.assign(p.spec, { validations: [] })],
    ['an unknown operation', (p) => Object.assign(p.spec, { matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: [VERSION], operations: ['REMOVE'], resources: ['x'] }] } })],
    ['an unknown reason', (p) => Object.assign(objsAt(p.spec, 'validations')[0] ?? {}, { reason: 'Conflict' })],
  ];
  for (const [scenario, change] of broken) {
    const policy: Obj & { spec: Obj } = structuredClone(inUse);
    change(policy);
    t.not(admissionPolicyErrors(policy).length, 0, scenario);
  }
  const mutating: Obj = structuredClone(credentials);
  objsAt(mutating, 'spec', 'mutations')[0] = { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } };
  t.match(admissionPolicyErrors(mutating), [/needs jsonPatch/, /applyConfiguration is not allowed/]);
  const binding = structuredClone(named(base, 'ValidatingAdmissionPolicyBinding', IN_USE));
  objAt(binding, 'spec')['validationActions'] = ['Deny', 'Warn'];
  t.match(admissionPolicyErrors(binding), [/Deny and Warn/]);
});

t.test('deleting an IronicDatabase that Ironics use is refused, naming them', async (t) => {
  const stored = database({ usedBy: ['ironic', 'ironic-2'] });
  t.same(checkAgainstCrd(databaseCrd, stored), [], 'the sample is a valid IronicDatabase');
  t.same(validate(inUse, deletion(stored)), {
    allowed: false,
    reason: 'Forbidden',
    message: 'IronicDatabase ironic-db is used by the Ironic objects ironic, ironic-2 of namespace metal3: delete them or change their spec.databaseName first',
  });
  const terminating = database({ usedBy: ['ironic'] });
  Object.assign(objAt(terminating, 'metadata'), { deletionTimestamp: '2026-01-01T00:00:00Z' });
  t.match(validate(inUse, deletion(terminating)), { allowed: false, message: /used by the Ironic objects ironic of/ }, 'also once its deletion has begun');
});

t.test('deleting an IronicDatabase nobody uses is allowed', async (t) => {
  const cases: [string, Obj | undefined][] = [
    ['no status yet', undefined],
    ['a status without usedBy (the hook omits an empty list)', { conditions: [] }],
    ['an empty usedBy', { usedBy: [] }],
  ];
  for (const [scenario, status] of cases) {
    const stored = database(status);
    t.same(checkAgainstCrd(databaseCrd, stored), [], `${scenario}: a valid IronicDatabase`);
    t.same(validate(inUse, deletion(stored)), { allowed: true }, scenario);
  }
});

t.test('the in-use policy looks at DELETE of IronicDatabases only', async (t) => {
  const used = database({ usedBy: ['ironic'] });
  t.ok(policyMatches(inUse, deletion(used)));
  t.notOk(policyMatches(inUse, request('IronicDatabase', 'UPDATE', used, used)), 'an update');
  t.notOk(policyMatches(inUse, request('IronicDatabase', 'CREATE', used, null)), 'a create');
  t.notOk(policyMatches(inUse, { ...deletion(used), resource: { group: GROUP, version: VERSION, resource: 'ironics' } }), 'another resource');
  t.notOk(policyMatches(inUse, { ...deletion(used), resource: { group: 'example.com', version: VERSION, resource: 'ironicdatabases' } }), 'another group');
});

const imageCache = (status?: Obj): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'IronicImageCache',
  metadata: { name: 'ipa', namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-0000000000ca', generation: 1, finalizers: ['metacontroller.io/compositecontroller-ironicimagecache'] },
  spec: { agentBranch: 'stable/2025.1' },
  ...(status !== undefined && { status }),
});
const cacheDeletion = (stored: Obj): Admission => ({ operation: 'DELETE', kind: 'IronicImageCache', resource: { group: GROUP, version: VERSION, resource: 'ironicimagecaches' }, object: null, oldObject: stored });

t.test('deleting an IronicImageCache that Ironics use is refused, naming them; unused, it is allowed', async (t) => {
  const stored = imageCache({ usedBy: ['ironic', 'ironic-2'] });
  t.same(checkAgainstCrd(cacheCrd, stored), [], 'the sample is a valid IronicImageCache');
  t.same(objAt(named(base, 'ValidatingAdmissionPolicyBinding', CACHE_IN_USE), 'spec')['validationActions'], ['Deny'], 'a refusal, not a warning');
  t.same(validate(cacheInUse, cacheDeletion(stored)), {
    allowed: false,
    reason: 'Forbidden',
    message: 'IronicImageCache ipa is used by the Ironic objects ironic, ironic-2 of namespace metal3: delete them or change their spec.imageCacheName first',
  });
  for (const [scenario, status] of [['no status yet', undefined], ['no usedBy', { conditions: [] }], ['an empty usedBy', { usedBy: [] }]] as const) {
    t.same(validate(cacheInUse, cacheDeletion(imageCache(status))), { allowed: true }, scenario);
  }
  t.ok(policyMatches(cacheInUse, cacheDeletion(stored)));
  t.notOk(policyMatches(cacheInUse, { ...cacheDeletion(stored), operation: 'UPDATE', object: stored }), 'an update');
  t.notOk(policyMatches(cacheInUse, deletion(database({ usedBy: ['ironic'] }))), 'an IronicDatabase');
  t.notOk(policyMatches(inUse, cacheDeletion(stored)), 'and the database policy leaves caches alone');
});

/** The Secret name the sync hook reports for an Ironic without spec.apiCredentialsName. */
const generatedName = async (name: string): Promise<string> => {
  const app = testServer();
  try {
    const parent = ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } });
    objAt(parent, 'metadata')['name'] = name;
    const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
    const { status } = bodyOf(response, Type.Object({ status: Type.Optional(Type.Object({ apiCredentialsName: Type.Optional(Type.String()) })) }));
    return status?.apiCredentialsName ?? `no status.apiCredentialsName (${response.statusCode})`;
  } finally {
    await app.close();
  }
};

const newIronic = (metadata: Obj, spec: Obj | undefined): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Ironic',
  metadata: { namespace: 'metal3', ...metadata },
  ...(spec !== undefined && { spec }),
});
const creation = (object: Obj): Admission => request('Ironic', 'CREATE', object, null);
const credentialsNameOf = (object: Obj | null): unknown => objAtOrEmpty(object, 'spec')['apiCredentialsName'];

t.test('a new Ironic without API credentials gets the name of the Secret the hook generates', async (t) => {
  const networking = { interface: 'eth1', ipAddress: '192.0.2.2' };
  const longest = `a${'b'.repeat(236)}`;
  t.equal(longest.length, 237);
  const cases: [string, Obj][] = [
    ['no apiCredentialsName', newIronic({ name: 'ironic' }, { version: '38.0', networking })],
    ['an empty apiCredentialsName', newIronic({ name: 'ironic' }, { networking, apiCredentialsName: '' })],
    ['no spec at all', newIronic({ name: 'ironic' }, undefined)],
    ['the longest name that fits', newIronic({ name: longest }, { networking })],
  ];
  for (const [scenario, object] of cases) {
    const name = String(objAt(object, 'metadata')['name']);
    const mutated = mutate(credentials, creation(object));
    t.equal(credentialsNameOf(mutated), await generatedName(name), `${scenario}: the name the sync hook reports`);
    t.equal(credentialsNameOf(mutated), `${name}-api-credentials`, scenario);
    t.same({ ...mutated, spec: { ...objAtOrEmpty(mutated, 'spec'), apiCredentialsName: undefined } }, { ...object, spec: { ...objAtOrEmpty(object, 'spec'), apiCredentialsName: undefined } }, `${scenario}: nothing else changes`);
    if (object['spec'] !== undefined) t.same(checkAgainstCrd(ironicCrd, mutated), [], `${scenario}: the result passes the CRD`);
  }
});

t.test('the credentials policy leaves everything else alone', async (t) => {
  const networking = { interface: 'eth1', ipAddress: '192.0.2.2' };
  const cases: [string, Admission][] = [
    ['credentials of its own', creation(newIronic({ name: 'ironic' }, { networking, apiCredentialsName: 'mine' }))],
    ['generateName (no name at admission)', creation(newIronic({ generateName: 'ironic-' }, { networking }))],
    ['a name too long for the suffix', creation(newIronic({ name: 'a'.repeat(238) }, { networking }))],
    ['an update', request('Ironic', 'UPDATE', newIronic({ name: 'ironic' }, { networking }), newIronic({ name: 'ironic' }, { networking }))],
    ['an IronicDatabase', { ...creation(database()), kind: 'IronicDatabase', resource: { group: GROUP, version: VERSION, resource: 'ironicdatabases' } }],
  ];
  for (const [scenario, admission] of cases) {
    t.notOk(policyMatches(credentials, admission), scenario);
    t.same(mutate(credentials, admission), admission.object, `${scenario}: unchanged`);
  }
});

t.test('the apply configuration sets only fields of the Ironic CRD, with well-formed types', async (t) => {
  const expression = credentials.spec.mutations?.[0]?.applyConfiguration?.expression ?? '';
  const configuration = applyConfigurationOf(expression, creation(newIronic({ name: 'x' }, {})));
  t.same(fieldPaths(configuration), ['spec.apiCredentialsName']);
  const schema = objAt(ironicCrd, 'spec', 'versions', 0, 'schema', 'openAPIV3Schema');
  const spec = objAt(schema, 'properties', 'spec');
  t.equal(objAt(spec, 'properties', 'apiCredentialsName')['type'], 'string', 'spec.apiCredentialsName is a string field of the CRD');
  t.equal(applyConfigurationAsMap("Object{spec: Object.spec{a: 'x:y', b: c ? d : e}}"), "{\"spec\": {\"a\": 'x:y', \"b\": c ? d : e}}");
  t.throws(() => applyConfigurationAsMap('Object{spec: Object.status{a: 1}}'), /type Object\.status where Object\.spec is expected/);
  t.throws(() => applyConfigurationAsMap('Object{spec: Object.spec{a: 1}'), /unbalanced/);
});

t.test('the sync hook generates the Secret the policy names, when it does not exist', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const parent = ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, apiCredentialsName: 'ironic-api-credentials' });
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  const body = hookResponse(response);
  const reason = conditionsOf(body.status).find((c) => c['type'] === 'Ready')?.['reason'];
  const generated = childOf(body, 'Secret', 'ironic-api-credentials') !== undefined;
  t.not(reason, 'MissingReference', 'not a missing reference');
  t.ok(generated, 'the hook renders Secret ironic-api-credentials');
});
