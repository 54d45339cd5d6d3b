/**
 * The part of the API server's admission policy plugin the tests need, on the CEL interpreter of the
 * devDependencies: which requests a policy matches (matchConstraints, then matchConditions), the verdict
 * and message of a ValidatingAdmissionPolicy, and the object a MutatingAdmissionPolicy's ApplyConfiguration
 * produces. Variables are those the API server gives: `object` (null on DELETE), `oldObject` (null on
 * CREATE), `request` (an admission.k8s.io/v1 AdmissionRequest) and `params` (null without paramKind).
 *
 * The interpreter has no message construction (`Object.spec{...}`), so an ApplyConfiguration is read as
 * the map literal it denotes; its type names are checked as the API server's type checker would (each
 * nested type is its parent's type plus the field name).
 */
import { evaluate } from '@marcbachmann/cel-js';
import { Type, type Static } from '@sinclair/typebox';
import { objAt } from '../support/paths.js';

export type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** CEL integers are int64: JSON integers become BigInt. */
const celValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(celValue);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return value;
};

/** Back to JSON values (BigInt to number). */
const jsonValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]: [unknown, unknown]) => [String(k), jsonValue(v)]));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  if (typeof value === 'bigint') return Number(value);
  return value;
};

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export type Admission = {
  readonly operation: Operation;
  /** group/version/resource of the request, e.g. ironic.metal3.io/v1alpha1/ironicdatabases. */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly kind: string;
  readonly object: Obj | null;
  readonly oldObject: Obj | null;
};

const metadataOf = (admission: Admission): Obj => {
  const source = admission.object ?? admission.oldObject ?? {};
  return isObj(source['metadata']) ? source['metadata'] : {};
};

/** The variables of a policy's expressions for one request. */
export const variables = (admission: Admission): Obj => {
  const metadata = metadataOf(admission);
  const { group, version, resource } = admission.resource;
  return {
    object: celValue(admission.object),
    oldObject: celValue(admission.oldObject),
    params: null,
    request: celValue({
      uid: '00000000-0000-4000-8000-000000000000',
      kind: { group, version, kind: admission.kind },
      resource: { group, version, resource },
      requestKind: { group, version, kind: admission.kind },
      requestResource: { group, version, resource },
      name: metadata['name'] ?? '',
      namespace: metadata['namespace'] ?? '',
      operation: admission.operation,
      userInfo: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
      dryRun: false,
    }),
  };
};

const strings = Type.Array(Type.String());
const ResourceRule = Type.Object({ apiGroups: strings, apiVersions: strings, operations: strings, resources: strings });

/** The fields of a ValidatingAdmissionPolicy or MutatingAdmissionPolicy this model reads. */
export const Policy = Type.Object({
  spec: Type.Object({
    matchConstraints: Type.Object({ resourceRules: Type.Array(ResourceRule) }),
    matchConditions: Type.Optional(Type.Array(Type.Object({ name: Type.String(), expression: Type.String() }))),
    validations: Type.Optional(
      Type.Array(
        Type.Object({
          expression: Type.String(),
          message: Type.Optional(Type.String()),
          messageExpression: Type.Optional(Type.String()),
          reason: Type.Optional(Type.String()),
        }),
      ),
    ),
    mutations: Type.Optional(
      Type.Array(Type.Object({ patchType: Type.String(), applyConfiguration: Type.Optional(Type.Object({ expression: Type.String() })) })),
    ),
  }),
});
export type Policy = Static<typeof Policy>;

const matchesAny = (values: readonly string[], value: string): boolean => values.includes('*') || values.includes(value);

/** Whether the request is one the policy looks at: a resource rule matches and every matchCondition is true. */
export const policyMatches = (policy: Policy, admission: Admission): boolean => {
  const { group, version, resource } = admission.resource;
  const ruled = policy.spec.matchConstraints.resourceRules.some(
    (r) =>
      matchesAny(r.apiGroups, group) &&
      matchesAny(r.apiVersions, version) &&
      matchesAny(r.operations, admission.operation) &&
      matchesAny(r.resources, resource),
  );
  if (!ruled) return false;
  const vars = variables(admission);
  return (policy.spec.matchConditions ?? []).every(({ name, expression }) => {
    const result: unknown = evaluate(expression, vars);
    if (typeof result !== 'boolean') throw new Error(`matchCondition ${name} returned ${String(result)}, not a bool`);
    return result;
  });
};

export type Verdict = { readonly allowed: true } | { readonly allowed: false; readonly message: string; readonly reason: string };

/** A ValidatingAdmissionPolicy's verdict on a request (allowed when it does not match). */
export const validate = (policy: Policy, admission: Admission): Verdict => {
  if (!policyMatches(policy, admission)) return { allowed: true };
  const vars = variables(admission);
  for (const v of policy.spec.validations ?? []) {
    const result: unknown = evaluate(v.expression, vars);
    if (typeof result !== 'boolean') throw new Error(`validation ${v.expression} returned ${String(result)}, not a bool`);
    if (result) continue;
    const message: unknown = v.messageExpression === undefined ? v.message : evaluate(v.messageExpression, vars);
    if (typeof message !== 'string') throw new Error(`messageExpression ${String(v.messageExpression)} returned ${String(message)}, not a string`);
    return { allowed: false, message, reason: v.reason ?? 'Invalid' };
  }
  return { allowed: true };
};

/**
 * An ApplyConfiguration expression (`Object{spec: Object.spec{f: e}}`) as the CEL map literal it
 * denotes (`{"spec": {"f": e}}`). Throws on a type name that is not its parent's type plus the field.
 */
export const applyConfigurationAsMap = (expression: string): string => {
  type Level = { readonly type: string | undefined; field: string | undefined; expectField: boolean };
  const stack: Level[] = [];
  let out = '';
  let i = 0;
  const top = (): Level | undefined => stack.at(-1);
  while (i < expression.length) {
    const c = expression.charAt(i);
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < expression.length && expression.charAt(j) !== c) j += expression.charAt(j) === '\\' ? 2 : 1;
      out += expression.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const level = top();
    const word = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(expression.slice(i))?.[0];
    if (word !== undefined) {
      const after = expression.slice(i + word.length);
      if (/^\s*\{/.test(after) && /^Object(\.|$)/.test(word)) {
        const parent = [...stack].reverse().find((l) => l.type !== undefined);
        const expected = parent === undefined ? 'Object' : `${parent.type ?? ''}.${parent.field ?? ''}`;
        if (word !== expected) throw new Error(`type ${word} where ${expected} is expected`);
        const brace = after.indexOf('{');
        stack.push({ type: word, field: undefined, expectField: true });
        out += '{';
        i += word.length + brace + 1;
        continue;
      }
      if (level?.type !== undefined && level.expectField && /^\s*:/.test(after)) {
        level.field = word;
        level.expectField = false;
        out += JSON.stringify(word);
        i += word.length;
        continue;
      }
      out += word;
      i += word.length;
      continue;
    }
    if (c === '{' || c === '[' || c === '(') stack.push({ type: undefined, field: undefined, expectField: false });
    else if (c === '}' || c === ']' || c === ')') stack.pop();
    else if (c === ',' && level?.type !== undefined) level.expectField = true;
    out += c;
    i += 1;
  }
  if (stack.length > 0) throw new Error(`unbalanced expression: ${expression}`);
  return out;
};

/** Server-side apply of an apply configuration onto an object: maps merge, everything else is replaced. */
const merge = (target: unknown, patch: unknown): unknown => {
  if (!isObj(patch) || !isObj(target)) return structuredClone(patch);
  const out: Obj = { ...target };
  for (const [key, value] of Object.entries(patch)) out[key] = merge(target[key], value);
  return out;
};

/** The object after a MutatingAdmissionPolicy (unchanged when it does not match). */
export const mutate = (policy: Policy, admission: Admission): Obj | null => {
  if (admission.object === null || !policyMatches(policy, admission)) return admission.object;
  let object: Obj = admission.object;
  for (const m of policy.spec.mutations ?? []) {
    if (m.patchType !== 'ApplyConfiguration' || m.applyConfiguration === undefined) throw new Error(`patchType ${m.patchType} is not modelled`);
    const patch = jsonValue(evaluate(applyConfigurationAsMap(m.applyConfiguration.expression), variables({ ...admission, object })));
    object = objAt(merge(object, patch));
  }
  return object;
};

/** The field paths an apply configuration sets, e.g. `spec.apiCredentialsName`. */
export const fieldPaths = (value: unknown, prefix = ''): string[] =>
  isObj(value) ? Object.entries(value).flatMap(([k, v]) => fieldPaths(v, prefix === '' ? k : `${prefix}.${k}`)) : [prefix];

/** Evaluates an ApplyConfiguration expression on its own, as JSON. */
export const applyConfigurationOf = (expression: string, admission: Admission): unknown =>
  jsonValue(evaluate(applyConfigurationAsMap(expression), variables(admission)));
