/**
 * Turns a TypeBox (JSON Schema) schema into a Kubernetes structural schema, and checks the result.
 *
 * The rewrite is deliberately small and strict, in the spirit of kube-rs' structural-schema rewriter:
 * - unions of string literals become `{type: string, enum: [...]}`;
 * - `Type.Record(String, X)` (patternProperties) becomes `additionalProperties: X`;
 * - `additionalProperties` booleans are dropped (the API server prunes unknown fields; objects that keep
 *   them say so with `x-kubernetes-preserve-unknown-fields`);
 * - int-or-string unions keep `anyOf` of bare types, as Kubernetes requires.
 * Anything else it cannot map throws, so a schema change that would produce an invalid CRD fails loudly.
 */

import { isRecord } from '../api/shared/problems.js';

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** Keywords copied unchanged when present. */
const COPIED = [
  'description',
  'type',
  'format',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'enum',
] as const;

/** Keywords handled by the rewrite itself, or dropped on purpose. */
const HANDLED = new Set<string>(['properties', 'required', 'items', 'anyOf', 'patternProperties', 'additionalProperties', 'const']);

const isObject: (value: unknown) => value is JsonObject = isRecord;

const fail = (path: string, message: string): never => {
  throw new Error(`cannot convert schema at ${path}: ${message}`);
};

const stringLiterals = (variants: unknown[]): string[] | undefined => {
  const values = variants.map((v) => (isObject(v) && typeof v['const'] === 'string' ? v['const'] : undefined));
  return values.every((v): v is string => v !== undefined) ? values : undefined;
};

const copyKnown = (schema: JsonObject, path: string): JsonObject => {
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    if ((COPIED as readonly string[]).includes(key) || key.startsWith('x-kubernetes-')) out[key] = schema[key];
    else if (!HANDLED.has(key)) fail(path, `unsupported keyword "${key}"`);
  }
  return out;
};

const convertUnion = (schema: JsonObject, variants: unknown[], path: string): JsonObject => {
  const rest = copyKnown(schema, path);
  if (schema['x-kubernetes-int-or-string'] === true) {
    return { ...rest, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  }
  const literals = stringLiterals(variants);
  if (literals === undefined) return fail(path, 'only unions of string literals or int-or-string are supported');
  return { ...rest, type: 'string', enum: literals };
};

const convertObject = (schema: JsonObject, path: string): JsonObject => {
  const out = copyKnown(schema, path);
  const properties = schema['properties'];
  if (isObject(properties) && Object.keys(properties).length > 0) {
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, toStructuralSchema(child, `${path}.${name}`)]));
    const required = schema['required'];
    if (Array.isArray(required) && required.length > 0) out['required'] = required;
  }
  const pattern = schema['patternProperties'];
  if (isObject(pattern)) {
    const values = Object.values(pattern);
    if (values.length !== 1 || isObject(properties)) fail(path, 'a map must have exactly one value schema and no properties');
    out['additionalProperties'] = toStructuralSchema(values[0], `${path}[*]`);
  }
  const additional = schema['additionalProperties'];
  if (isObject(additional)) out['additionalProperties'] = toStructuralSchema(additional, `${path}[*]`);
  if (additional === true && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
    fail(path, 'additionalProperties: true needs x-kubernetes-preserve-unknown-fields');
  }
  return out;
};

/**
 * Converts one schema node (recursively). Throws with the path of the first node it cannot convert.
 */
export const toStructuralSchema = (schema: unknown, path = 'openAPIV3Schema'): JsonObject => {
  if (!isObject(schema)) return fail(path, 'not an object');
  if (typeof schema['$ref'] === 'string') fail(path, '$ref is not allowed');
  const variants = schema['anyOf'];
  if (Array.isArray(variants)) return convertUnion(schema, variants, path);
  if (schema['const'] !== undefined) {
    return { ...copyKnown(schema, path), type: typeof schema['const'], enum: [schema['const']] };
  }
  const type = schema['type'];
  if (type === 'object') return convertObject(schema, path);
  if (type === 'array') {
    const out = copyKnown(schema, path);
    out['items'] = toStructuralSchema(schema['items'], `${path}[]`);
    return out;
  }
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') return copyKnown(schema, path);
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return copyKnown(schema, path);
  return fail(path, `unsupported type ${JSON.stringify(type)}`);
};

/** Keywords Kubernetes refuses anywhere in a structural schema. */
const FORBIDDEN = [
  '$ref',
  '$id',
  'id',
  '$schema',
  'additionalItems',
  'patternProperties',
  'definitions',
  '$defs',
  'dependencies',
  'const',
  'oneOf',
  'allOf',
  'not',
  'nullable',
];

const lintNode = (node: JsonObject, path: string, problems: string[], inIntOrString: boolean): void => {
  for (const key of FORBIDDEN) if (key in node) problems.push(`${path}: "${key}" is not allowed`);
  if (node['uniqueItems'] === true) problems.push(`${path}: uniqueItems is not allowed`);
  if (node['type'] === 'null' || Array.isArray(node['type'])) problems.push(`${path}: type must be a single non-null type`);
  if ('properties' in node && 'additionalProperties' in node) problems.push(`${path}: properties and additionalProperties are mutually exclusive`);
  const typed = typeof node['type'] === 'string';
  const special = node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
  if (!typed && !special && !inIntOrString) problems.push(`${path}: type is required`);
  if ('anyOf' in node && node['x-kubernetes-int-or-string'] !== true) problems.push(`${path}: anyOf is only allowed for int-or-string`);
  if (typeof node['additionalProperties'] === 'boolean') problems.push(`${path}: additionalProperties must be a schema`);
};

/**
 * Lists every violation of the structural-schema rules in `schema` (empty when it is valid). Used by the
 * tests on the generated CRDs.
 */
export const lintStructuralSchema = (schema: unknown, path = 'openAPIV3Schema', problems: string[] = [], inIntOrString = false): string[] => {
  if (!isObject(schema)) {
    problems.push(`${path}: not an object`);
    return problems;
  }
  lintNode(schema, path, problems, inIntOrString);
  const properties = schema['properties'];
  if (isObject(properties)) for (const [k, v] of Object.entries(properties)) lintStructuralSchema(v, `${path}.${k}`, problems);
  if (isObject(schema['additionalProperties'])) lintStructuralSchema(schema['additionalProperties'], `${path}[*]`, problems);
  if (schema['items'] !== undefined) lintStructuralSchema(schema['items'], `${path}[]`, problems);
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) anyOf.forEach((v, i) => lintStructuralSchema(v, `${path}.anyOf[${i}]`, problems, true));
  return problems;
};
