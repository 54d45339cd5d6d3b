/**
 * Validation of an IronicDatabase spec: the TypeBox schema first, then a few semantic rules on storage,
 * resources and the node selector. Every problem is reported.
 */
import { registerFormats } from './formats.js';
import { IronicDatabaseSpec } from './ironic-database.js';
import { compiledCheck, describeValue, fieldPath, problem, schemaProblems, withoutThrowing, type Problem } from './problems.js';
import { compareQuantities, isPositive, parseQuantity } from './quantity.js';

type Rule = (spec: IronicDatabaseSpec) => Problem[];

const storageClassNotEphemeral: Rule = (spec) => {
  const storage = spec.storage;
  return storage?.ephemeral === true && storage.storageClassName !== undefined && storage.storageClassName !== ''
    ? [problem('spec.storage.storageClassName', 'storageClassName cannot be used with ephemeral storage, which uses no volume: remove storageClassName, or set ephemeral to false')]
    : [];
};

const sizePositive: Rule = (spec) => {
  const size = spec.storage?.size;
  if (size === undefined || size === '') return [];
  const quantity = parseQuantity(size);
  if (quantity === undefined) return [problem('spec.storage.size', `size ${describeValue(size)} is not a Kubernetes quantity: use a size such as 10Gi`)];
  return isPositive(quantity) ? [] : [problem('spec.storage.size', `size must be greater than zero, but it is ${describeValue(size)}: use a size such as 10Gi`)];
};

type QuantityMap = Readonly<Record<string, string | number>>;

const quantityProblems = (kind: 'requests' | 'limits', quantities: QuantityMap): Problem[] =>
  Object.keys(quantities)
    .sort()
    .flatMap((resource) => {
      const value = quantities[resource];
      const parsed = value === undefined ? undefined : parseQuantity(value);
      const path = fieldPath(`spec.resources.${kind}`, resource);
      if (parsed === undefined) return [problem(path, `${describeValue(value)} is not a Kubernetes quantity: use a number with an optional suffix, for example 500m, 2 or 1Gi`)];
      return parsed.numerator < 0n ? [problem(path, `${describeValue(value)} is negative: use a quantity of zero or more, for example 500m or 1Gi`)] : [];
    });

// NOTE: the int-or-string pattern of common.ts sits on the union, where TypeBox does not apply it, so the
// syntax of quantity strings is checked here.
const quantitiesValid: Rule = (spec) => [...quantityProblems('requests', spec.resources?.requests ?? {}), ...quantityProblems('limits', spec.resources?.limits ?? {})];

const requestWithinLimit = (resource: string, request: string | number, limit: string | number): Problem[] => {
  const [requested, limited] = [parseQuantity(request), parseQuantity(limit)];
  if (requested === undefined || limited === undefined || compareQuantities(requested, limited) <= 0) return [];
  return [
    problem(
      fieldPath('spec.resources.requests', resource),
      `the ${describeValue(resource)} request ${describeValue(request)} is more than its limit ${describeValue(limit)}: lower the request or raise the limit`,
    ),
  ];
};

// Only pairs whose quantities both parse are compared; quantitiesValid reports the others.
const requestsWithinLimits: Rule = (spec) => {
  const { requests = {}, limits = {} } = spec.resources ?? {};
  return Object.keys(requests)
    .sort()
    .flatMap((resource) => {
      const [request, limit] = [requests[resource], limits[resource]];
      return request === undefined || limit === undefined ? [] : requestWithinLimit(resource, request, limit);
    });
};

const nodeSelectorKeys: Rule = (spec) =>
  Object.keys(spec.nodeSelector ?? {})
    .filter((key) => key.trim() === '')
    .map((key) => problem(fieldPath('spec.nodeSelector', key), 'node selector keys must not be empty: remove this entry, or use a node label key such as kubernetes.io/os'));

/** The semantic rules, in order. */
const RULES: readonly Rule[] = [storageClassNotEphemeral, sizePositive, quantitiesValid, requestsWithinLimits, nodeSelectorKeys];

const isIronicDatabaseSpec = (value: unknown): value is IronicDatabaseSpec => compiledCheck(IronicDatabaseSpec).Check(value);

const validateIronicDatabaseUnsafe = (spec: unknown): Problem[] => {
  registerFormats();
  const shapeProblems = schemaProblems(IronicDatabaseSpec, spec, 'spec');
  if (shapeProblems.length > 0) return shapeProblems;
  if (!isIronicDatabaseSpec(spec)) return [problem('spec', 'the spec does not match the IronicDatabase API: compare it with `kubectl explain ironicdatabase.spec`')];
  return RULES.flatMap((rule) => rule(spec));
};

/**
 * Validates an IronicDatabase spec: schema problems alone when the shape is wrong, otherwise the problems
 * of the semantic rules. Pure and total: it never throws, whatever the input.
 */
export const validateIronicDatabase = (spec: unknown): Problem[] => withoutThrowing(() => validateIronicDatabaseUnsafe(spec));
