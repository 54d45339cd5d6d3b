/**
 * Closed schemas of the admission policy kinds of admissionregistration.k8s.io/v1 (k8s.io/api
 * admissionregistration/v1 types.go: ValidatingAdmissionPolicy since Kubernetes 1.30,
 * MutatingAdmissionPolicy since 1.36), for the fields that exist upstream, so that a misspelt field fails
 * instead of being pruned by the API server. kubernetes-models checks types and enums but lets unknown
 * fields through; deploy/ objects go through both. Cross-field rules of the API server's validation that
 * a schema cannot say are in `admissionPolicyErrors`.
 */
import { Type, type TLiteral, type TObject, type TProperties, type TSchema, type TUnion } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const closed = <T extends TProperties>(properties: T): TObject<T> => Type.Object(properties, { additionalProperties: false });
const literals = <const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> => Type.Union(values.map((v) => Type.Literal(v)));
const list = <T extends TSchema>(item: T) => Type.Optional(Type.Array(item));
const strings = Type.Optional(Type.Array(Type.String({ minLength: 1 })));

const Metadata = closed({
  name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', maxLength: 253 }),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
});

const LabelSelector = closed({
  matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
  matchExpressions: list(closed({ key: Type.String(), operator: literals(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: strings })),
});

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'] as const;

const NamedRuleWithOperations = closed({
  resourceNames: strings,
  operations: Type.Array(literals(OPERATIONS), { minItems: 1 }),
  apiGroups: Type.Array(Type.String(), { minItems: 1 }),
  apiVersions: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  resources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  scope: Type.Optional(literals(['Cluster', 'Namespaced', '*'])),
});

const MatchResources = closed({
  namespaceSelector: Type.Optional(LabelSelector),
  objectSelector: Type.Optional(LabelSelector),
  resourceRules: list(NamedRuleWithOperations),
  excludeResourceRules: list(NamedRuleWithOperations),
  matchPolicy: Type.Optional(literals(['Exact', 'Equivalent'])),
});

const ParamKind = closed({ apiVersion: Type.String(), kind: Type.String() });
const ParamRef = closed({
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  selector: Type.Optional(LabelSelector),
  parameterNotFoundAction: Type.Optional(literals(['Allow', 'Deny'])),
});

/** A CEL expression: non-empty (the API server also compiles it; the tests evaluate ours). */
const Expression = Type.String({ minLength: 1 });
/** matchConditions and variables names: a qualified name (at most 63 characters). */
const QualifiedName = Type.String({ pattern: '^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$', maxLength: 63 });
const MatchCondition = closed({ name: QualifiedName, expression: Expression });
const Variable = closed({ name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), expression: Expression });
const FailurePolicy = literals(['Ignore', 'Fail']);

const Validation = closed({
  expression: Expression,
  message: Type.Optional(Type.String()),
  /** metav1.StatusReason; the API server accepts these four. */
  reason: Type.Optional(literals(['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'])),
  messageExpression: Type.Optional(Expression),
});

const ValidatingAdmissionPolicy = closed({
  apiVersion: Type.Literal('admissionregistration.k8s.io/v1'),
  kind: Type.Literal('ValidatingAdmissionPolicy'),
  metadata: Metadata,
  spec: closed({
    paramKind: Type.Optional(ParamKind),
    matchConstraints: MatchResources,
    validations: list(Validation),
    failurePolicy: Type.Optional(FailurePolicy),
    auditAnnotations: list(closed({ key: Type.String({ minLength: 1 }), valueExpression: Expression })),
    matchConditions: list(MatchCondition),
    variables: list(Variable),
  }),
});

const ValidatingAdmissionPolicyBinding = closed({
  apiVersion: Type.Literal('admissionregistration.k8s.io/v1'),
  kind: Type.Literal('ValidatingAdmissionPolicyBinding'),
  metadata: Metadata,
  spec: closed({
    policyName: Type.String({ minLength: 1 }),
    paramRef: Type.Optional(ParamRef),
    matchResources: Type.Optional(MatchResources),
    validationActions: Type.Array(literals(['Deny', 'Warn', 'Audit']), { minItems: 1, uniqueItems: true }),
  }),
});

const Mutation = closed({
  patchType: literals(['ApplyConfiguration', 'JSONPatch']),
  applyConfiguration: Type.Optional(closed({ expression: Expression })),
  jsonPatch: Type.Optional(closed({ expression: Expression })),
});

const MutatingAdmissionPolicy = closed({
  apiVersion: Type.Literal('admissionregistration.k8s.io/v1'),
  kind: Type.Literal('MutatingAdmissionPolicy'),
  metadata: Metadata,
  spec: closed({
    paramKind: Type.Optional(ParamKind),
    matchConstraints: MatchResources,
    variables: list(Variable),
    mutations: Type.Array(Mutation, { minItems: 1 }),
    failurePolicy: Type.Optional(FailurePolicy),
    matchConditions: list(MatchCondition),
    reinvocationPolicy: Type.Optional(literals(['Never', 'IfNeeded'])),
  }),
});

const MutatingAdmissionPolicyBinding = closed({
  apiVersion: Type.Literal('admissionregistration.k8s.io/v1'),
  kind: Type.Literal('MutatingAdmissionPolicyBinding'),
  metadata: Metadata,
  spec: closed({
    policyName: Type.String({ minLength: 1 }),
    paramRef: Type.Optional(ParamRef),
    matchResources: Type.Optional(MatchResources),
  }),
});

const SCHEMAS: Record<string, TSchema> = {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
};

type Rule = { operations?: string[] };
type PolicySpec = {
  matchConstraints?: { resourceRules?: Rule[] };
  validations?: unknown[];
  auditAnnotations?: unknown[];
  mutations?: { patchType?: string; applyConfiguration?: unknown; jsonPatch?: unknown }[];
  validationActions?: string[];
};

/** What the API server's validation adds to the schema (validation.go of admissionregistration). */
const crossFieldErrors = (kind: string, spec: PolicySpec): string[] => {
  const errors: string[] = [];
  if (kind === 'ValidatingAdmissionPolicy' || kind === 'MutatingAdmissionPolicy') {
    if ((spec.matchConstraints?.resourceRules ?? []).length === 0) errors.push('/spec/matchConstraints/resourceRules: required');
  }
  if (kind === 'ValidatingAdmissionPolicy' && (spec.validations ?? []).length === 0 && (spec.auditAnnotations ?? []).length === 0) {
    errors.push('/spec: validations or auditAnnotations must be set');
  }
  if (kind === 'ValidatingAdmissionPolicyBinding') {
    const actions = spec.validationActions ?? [];
    if (actions.includes('Deny') && actions.includes('Warn')) errors.push('/spec/validationActions: Deny and Warn cannot be used together');
  }
  if (kind === 'MutatingAdmissionPolicy') {
    (spec.mutations ?? []).forEach((m, i) => {
      const wanted = m.patchType === 'ApplyConfiguration' ? 'applyConfiguration' : 'jsonPatch';
      const other = wanted === 'applyConfiguration' ? 'jsonPatch' : 'applyConfiguration';
      if (m[wanted] === undefined) errors.push(`/spec/mutations/${i}: patchType ${String(m.patchType)} needs ${wanted}`);
      if (m[other] !== undefined) errors.push(`/spec/mutations/${i}: ${other} is not allowed with patchType ${String(m.patchType)}`);
    });
  }
  return errors;
};

/** Schema and cross-field errors as `path: message` lines (empty when valid). */
export const admissionPolicyErrors = (object: Record<string, unknown>): string[] => {
  const kind = String(object['kind']);
  const schema = SCHEMAS[kind];
  if (schema === undefined) return [`/kind: ${kind} is not an admission policy kind`];
  const errors = [...Value.Errors(schema, object)].map((e) => `${e.path || '/'}: ${e.message}`);
  const spec = object['spec'];
  return errors.length > 0 || typeof spec !== 'object' || spec === null ? errors : crossFieldErrors(kind, spec);
};
