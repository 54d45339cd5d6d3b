/**
 * The admission policies deploy/ ships, taken from the `kubectl kustomize` output and run on sample
 * requests with the CEL interpreter, as the API server would run them:
 * - deploy/base: for every kind that Ironics use (a descriptor with `usedBy`), a ValidatingAdmissionPolicy
 *   refuses deleting an object that status.usedBy says is in use, naming the users; the committed files
 *   are what `npm run crds` writes;
 * - deploy/components/api-credentials-name: a MutatingAdmissionPolicy writes `<name>-api-credentials`
 *   (the Secret the hook generates) into spec.apiCredentialsName of a new Ironic that names none.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { allInUsePolicies, inUsePolicyName, usedParentKinds, type UsedParentKind } from '../../src/kinds/in-use-policies.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { ironic, testServer } from '../helpers/hooks.js';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { kustomizeBuild, type Obj } from './kustomize.js';
import { admissionPolicyErrors } from './admission-policy.js';
import { applyConfigurationAsMap, applyConfigurationOf, fieldPaths, mutate, policyMatches, validate, type Admission, type Operation } from './admission-cel.js';

type Policy = Parameters<typeof validate>[0] & Obj;

const GROUP = 'ironic.metal3.io';
const VERSION = 'v1alpha1';
const CREDENTIALS = 'ironic-api-credentials-name.ironic.metal3.io';

const named = (objects: readonly Obj[], kind: string, name: string): Obj => {
  const found = objects.find((o) => o['kind'] === kind && (o['metadata'] as Obj)['name'] === name);
  if (found === undefined) throw new Error(`${kind} ${name} is missing`);
  return found;
};
const base = kustomizeBuild('deploy/base');
const component = kustomizeBuild('deploy/components/api-credentials-name');
const credentials = named(component, 'MutatingAdmissionPolicy', CREDENTIALS) as Policy;
const crd = (plural: string): Obj => parse(readFileSync(`deploy/crds/${GROUP}_${plural}.yaml`, 'utf8').replace(/^#.*\n/, '')) as Obj;
const ironicCrd = crd('ironics');

/** The kinds Ironics use, each with its in-use policy as deploy/base installs it. */
const USED = usedParentKinds().map((kind) => ({ kind, policy: named(base, 'ValidatingAdmissionPolicy', inUsePolicyName(kind)) as Policy }));
const [FIRST] = USED;

/** A stored object of a used kind, with the status the sync hook wrote (if any). */
const stored = (kind: UsedParentKind, status?: Obj): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: kind.kind,
  metadata: {
    name: 'used',
    namespace: 'metal3',
    uid: '7f1e4c7e-0000-4000-8000-0000000000ab',
    generation: 2,
    finalizers: [`metacontroller.io/compositecontroller-${kind.controllerName}`],
  },
  spec: {},
  ...(status !== undefined && { status }),
});

const request = (kind: Pick<UsedParentKind, 'kind' | 'plural'>, operation: Operation, object: Obj | null, oldObject: Obj | null): Admission => ({
  operation,
  kind: kind.kind,
  resource: { group: GROUP, version: VERSION, resource: kind.plural },
  object,
  oldObject,
});
/** DELETE: the API server gives the stored object as oldObject and null as object. */
const deletion = (kind: UsedParentKind, object: Obj): Admission => request(kind, 'DELETE', null, object);
const IRONIC_KIND = { kind: 'Ironic', plural: 'ironics' } as const;

t.test('some kind is used by Ironics, and each has its policy', async (t) => {
  t.ok(USED.length > 0, USED.map((u) => u.kind.kind).join(', '));
});

t.test('the committed in-use policies are what the generator writes (run `npm run crds` after changing src/api or src/kinds)', async (t) => {
  for (const { file, text } of allInUsePolicies()) t.equal(readFileSync(`deploy/admission/${file}`, 'utf8'), text, file);
  const kustomization = parse(readFileSync('deploy/admission/kustomization.yaml', 'utf8')) as { resources: string[] };
  for (const { file } of allInUsePolicies()) t.ok(kustomization.resources.includes(file), `deploy/admission/kustomization.yaml installs ${file}`);
});

t.test('the policies and their bindings are well-formed and bound', async (t) => {
  for (const [objects, kind, name] of [
    ...USED.map(({ kind }) => [base, 'ValidatingAdmissionPolicy', inUsePolicyName(kind)] as const),
    [component, 'MutatingAdmissionPolicy', CREDENTIALS] as const,
  ]) {
    const policy = named(objects, kind, name);
    const binding = named(objects, `${kind}Binding`, name);
    t.same(admissionPolicyErrors(policy), [], `${kind} ${name}`);
    t.same(admissionPolicyErrors(binding), [], `${kind}Binding ${name}`);
    t.equal((binding['spec'] as Obj)['policyName'], name, 'the binding names the policy');
    t.equal((policy['spec'] as Obj)['failurePolicy'], 'Fail', 'an expression error refuses the request instead of skipping the policy');
  }
  for (const { kind } of USED) {
    t.same(
      (named(base, 'ValidatingAdmissionPolicyBinding', inUsePolicyName(kind))['spec'] as Obj)['validationActions'],
      ['Deny'],
      `${kind.kind}: a refusal, not a warning`,
    );
  }
  t.same(
    base.filter((o) => String(o['kind']).startsWith('Mutating')),
    [],
    'deploy/base installs on clusters without MutatingAdmissionPolicy (before Kubernetes 1.36)',
  );
});

t.test('the shape checks refuse what the API server would', async (t) => {
  if (FIRST === undefined) return;
  const broken: [string, (p: Obj & { spec: Obj }) => void][] = [
    ['a misspelt field', (p) => Object.assign(p.spec, { validation: [] })],
    ['no validations', (p) => Object.assign(p.spec, { validations: [] })],
    [
      'an unknown operation',
      (p) =>
        Object.assign(p.spec, {
          matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: [VERSION], operations: ['REMOVE'], resources: ['x'] }] },
        }),
    ],
    ['an unknown reason', (p) => Object.assign((p.spec['validations'] as Obj[])[0] ?? {}, { reason: 'Conflict' })],
  ];
  for (const [scenario, change] of broken) {
    const policy = structuredClone(FIRST.policy) as Obj & { spec: Obj };
    change(policy);
    t.not(admissionPolicyErrors(policy).length, 0, scenario);
  }
  const mutating = structuredClone(credentials) as Obj & { spec: { mutations: Obj[] } };
  mutating.spec.mutations[0] = { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } };
  t.match(admissionPolicyErrors(mutating), [/needs jsonPatch/, /applyConfiguration is not allowed/]);
  const binding = structuredClone(named(base, 'ValidatingAdmissionPolicyBinding', inUsePolicyName(FIRST.kind))) as Obj & { spec: Obj };
  binding.spec['validationActions'] = ['Deny', 'Warn'];
  t.match(admissionPolicyErrors(binding), [/Deny and Warn/]);
});

for (const { kind, policy } of USED) {
  const kindCrd = crd(kind.plural);

  t.test(`deleting an ${kind.kind} that Ironics use is refused, naming them and the Ironic field to change`, async (t) => {
    const used = stored(kind, { usedBy: ['ironic', 'ironic-2'] });
    t.same(checkAgainstCrd(kindCrd, used), [], `the sample is a valid ${kind.kind}`);
    const field = kind.usedBy.ironicField;
    t.same(validate(policy, deletion(kind, used)), {
      allowed: false,
      reason: 'Forbidden',
      message: `${kind.kind} used is used by the Ironic objects ironic, ironic-2 of namespace metal3: delete them or change their spec.${field} first`,
    });
    const ironicSpec = (((((ironicCrd['spec'] as Obj)['versions'] as Obj[])[0]?.['schema'] as Obj)['openAPIV3Schema'] as Obj)['properties'] as Obj)[
      'spec'
    ] as Obj;
    t.ok((ironicSpec['properties'] as Obj)[field], `spec.${field} is a field of the Ironic CRD`);
    const terminating = stored(kind, { usedBy: ['ironic'] });
    Object.assign(terminating['metadata'] as Obj, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    t.match(
      validate(policy, deletion(kind, terminating)),
      { allowed: false, message: /used by the Ironic objects ironic of/ },
      'also once its deletion has begun',
    );
  });

  t.test(`deleting an ${kind.kind} nobody uses is allowed`, async (t) => {
    const cases: [string, Obj | undefined][] = [
      ['no status yet', undefined],
      ['a status without usedBy (the hook omits an empty list)', { conditions: [] }],
      ['an empty usedBy', { usedBy: [] }],
    ];
    for (const [scenario, status] of cases) {
      const object = stored(kind, status);
      t.same(checkAgainstCrd(kindCrd, object), [], `${scenario}: a valid ${kind.kind}`);
      t.same(validate(policy, deletion(kind, object)), { allowed: true }, scenario);
    }
  });

  t.test(`the ${kind.kind} in-use policy looks at DELETE of ${kind.plural} only`, async (t) => {
    const used = stored(kind, { usedBy: ['ironic'] });
    t.ok(policyMatches(policy, deletion(kind, used)));
    t.notOk(policyMatches(policy, request(kind, 'UPDATE', used, used)), 'an update');
    t.notOk(policyMatches(policy, request(kind, 'CREATE', used, null)), 'a create');
    t.notOk(policyMatches(policy, request(IRONIC_KIND, 'DELETE', null, used)), 'an Ironic');
    t.notOk(policyMatches(policy, { ...deletion(kind, used), resource: { group: 'example.com', version: VERSION, resource: kind.plural } }), 'another group');
    for (const other of USED.filter((u) => u.kind !== kind))
      t.notOk(policyMatches(policy, deletion(other.kind, stored(other.kind, { usedBy: ['ironic'] }))), `an ${other.kind.kind}`);
  });
}

/** The Secret name the sync hook reports for an Ironic without spec.apiCredentialsName. */
const generatedName = async (name: string): Promise<string> => {
  const app = testServer();
  try {
    const parent = ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } });
    (parent['metadata'] as Obj)['name'] = name;
    const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
    const status = response.json<{ status?: { apiCredentialsName?: string } }>().status;
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
const creation = (object: Obj): Admission => request(IRONIC_KIND, 'CREATE', object, null);
const credentialsNameOf = (object: Obj | null): unknown => ((object?.['spec'] ?? {}) as Obj)['apiCredentialsName'];

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
    const name = String((object['metadata'] as Obj)['name']);
    const mutated = mutate(credentials, creation(object));
    t.equal(credentialsNameOf(mutated), await generatedName(name), `${scenario}: the name the sync hook reports`);
    t.equal(credentialsNameOf(mutated), `${name}-api-credentials`, scenario);
    t.same(
      { ...mutated, spec: { ...((mutated?.['spec'] ?? {}) as Obj), apiCredentialsName: undefined } },
      { ...object, spec: { ...((object['spec'] ?? {}) as Obj), apiCredentialsName: undefined } },
      `${scenario}: nothing else changes`,
    );
    if (object['spec'] !== undefined) t.same(checkAgainstCrd(ironicCrd, mutated), [], `${scenario}: the result passes the CRD`);
  }
});

t.test('the credentials policy leaves everything else alone', async (t) => {
  const networking = { interface: 'eth1', ipAddress: '192.0.2.2' };
  const cases: [string, Admission][] = [
    ['credentials of its own', creation(newIronic({ name: 'ironic' }, { networking, apiCredentialsName: 'mine' }))],
    ['generateName (no name at admission)', creation(newIronic({ generateName: 'ironic-' }, { networking }))],
    ['a name too long for the suffix', creation(newIronic({ name: 'a'.repeat(238) }, { networking }))],
    ['an update', request(IRONIC_KIND, 'UPDATE', newIronic({ name: 'ironic' }, { networking }), newIronic({ name: 'ironic' }, { networking }))],
    ...PARENT_KINDS.filter((kind) => kind.kind !== IRONIC_KIND.kind).map((kind): [string, Admission] => [
      `an ${kind.kind}`,
      request(kind, 'CREATE', { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: 'other', namespace: 'metal3' }, spec: {} }, null),
    ]),
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
  const schema = (((ironicCrd['spec'] as Obj)['versions'] as Obj[])[0]?.['schema'] as Obj)['openAPIV3Schema'] as Obj;
  const spec = (schema['properties'] as Obj)['spec'] as Obj;
  t.equal(((spec['properties'] as Obj)['apiCredentialsName'] as Obj)['type'], 'string', 'spec.apiCredentialsName is a string field of the CRD');
  t.equal(applyConfigurationAsMap("Object{spec: Object.spec{a: 'x:y', b: c ? d : e}}"), '{"spec": {"a": \'x:y\', "b": c ? d : e}}');
  t.throws(() => applyConfigurationAsMap('Object{spec: Object.status{a: 1}}'), /type Object\.status where Object\.spec is expected/);
  t.throws(() => applyConfigurationAsMap('Object{spec: Object.spec{a: 1}'), /unbalanced/);
});

t.test('the sync hook generates the Secret the policy names, when it does not exist', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const parent = ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, apiCredentialsName: 'ironic-api-credentials' });
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  const body = response.json<{ children?: Obj[]; status?: { conditions?: { type: string; reason: string }[] } }>();
  const reason = body.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
  const generated = (body.children ?? []).some((c) => c['kind'] === 'Secret' && (c['metadata'] as Obj)['name'] === 'ironic-api-credentials');
  t.not(reason, 'MissingReference', 'not a missing reference');
  t.ok(generated, 'the hook renders Secret ironic-api-credentials');
});
