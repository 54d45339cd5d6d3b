/**
 * What the API server does with a custom resource and its CRD's structural schema (openAPIV3Schema):
 * defaulting (and pruning of undeclared fields), then validation of types, int-or-string, enums, the
 * formats our CRDs use, bounds, lengths, patterns, required fields, then the CEL rules
 * (x-kubernetes-validations; transition rules only with an old object). The API server finds what it
 * finds, but says it in the hooks' words (src/api/shared/schema-messages.ts: the value given, what is
 * expected and an example, never a regular expression): `spec.version: must be text, but it is the number
 * 38: write it as text, in quotes, for example "38.0"`. CEL failures keep the API server's form with the
 * rule's own message. Pure; never throws.
 */
import { evaluateKubeCel } from './kube-cel.js';
import { isRequestUri } from '../../api/shared/formats.js';
import { isRecord } from '../../api/shared/problems.js';
import {
  enumMessage,
  formatMessage,
  maxItemsMessage,
  maxLengthMessage,
  maximumMessage,
  minItemsMessage,
  minLengthMessage,
  minimumMessage,
  patternMessage,
  typeMessage,
  type ExpectedType,
} from '../../api/shared/schema-messages.js';

type Json = Readonly<Record<string, unknown>>;
type Rule = { readonly rule: string; readonly message?: string };

const isObject: (value: unknown) => value is Json = isRecord;

const objectOr = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);

/** Nesting beyond this is not walked (no schema of ours is that deep; a hostile input could be). */
const MAX_DEPTH = 64;

const shown = (value: unknown): string => (isObject(value) ? '"object"' : Array.isArray(value) ? '"array"' : JSON.stringify(value));

/** `a.b`, or `b` at the root. */
const joined = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const childSchema = (schema: Json, key: string): Json | undefined =>
  objectOr(objectOr(schema['properties'])?.[key]) ?? objectOr(schema['additionalProperties']);

/** The value as stored: defaults applied top-down (into defaulted values too), undeclared fields dropped. */
export const defaultAndPrune = (schema: Json, value: unknown, depth = 0): unknown => {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = objectOr(schema['items']);
    return items === undefined ? value : value.map((v) => defaultAndPrune(items, v, depth + 1));
  }
  if (!isObject(value)) return value;
  const keepUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const child = childSchema(schema, key);
    if (child !== undefined) out[key] = defaultAndPrune(child, item, depth + 1);
    else if (keepUnknown) out[key] = item;
  }
  for (const [key, child] of Object.entries(objectOr(schema['properties']) ?? {})) {
    if (out[key] === undefined && isObject(child) && child['default'] !== undefined)
      out[key] = defaultAndPrune(child, structuredClone(child['default']), depth + 1);
  }
  return out;
};

const typeOf = (value: unknown): string => {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const EXPECTED_TYPES: readonly unknown[] = ['string', 'integer', 'number', 'boolean', 'object', 'array'] satisfies ExpectedType[];

const isExpectedType = (value: unknown): value is ExpectedType => EXPECTED_TYPES.includes(value);

const expectedType = (schema: Json): ExpectedType => {
  if (schema['x-kubernetes-int-or-string'] === true) return 'int-or-string';
  const wanted = schema['type'];
  return isExpectedType(wanted) ? wanted : 'object';
};

const typeMatches = (schema: Json, value: unknown): boolean => {
  if (schema['x-kubernetes-int-or-string'] === true) return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  const wanted = schema['type'];
  if (typeof wanted !== 'string') return true;
  const actual = typeOf(value);
  return actual === wanted || (wanted === 'number' && actual === 'integer');
};

const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  // The API server's own rule (Go's url.ParseRequestURI): it accepts `/path` and `http://a/x ` and refuses ` http://a`.
  uri: isRequestUri,
};

/** Characters as the API server counts them (runes, not UTF-16 units). */
const codePoints = (value: string): number => value.length - (value.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

const stringProblems = (schema: Json, value: string, path: string): string[] => {
  const out: string[] = [];
  const length = codePoints(value);
  const { minLength, maxLength, pattern, format } = schema;
  if (typeof maxLength === 'number' && length > maxLength) out.push(`${path}: ${maxLengthMessage(schema, length)}`);
  if (typeof minLength === 'number' && length < minLength) out.push(`${path}: ${minLengthMessage(schema)}`);
  if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)) out.push(`${path}: ${patternMessage(schema, value)}`);
  const check = typeof format === 'string' ? FORMATS[format] : undefined;
  if (check !== undefined && !check(value)) out.push(`${path}: ${formatMessage(schema, value)}`);
  return out;
};

const numberProblems = (schema: Json, value: number, path: string): string[] => {
  const { minimum, maximum } = schema;
  const out: string[] = [];
  if (typeof minimum === 'number' && value < minimum) out.push(`${path}: ${minimumMessage(schema, value)}`);
  if (typeof maximum === 'number' && value > maximum) out.push(`${path}: ${maximumMessage(schema, value)}`);
  return out;
};

const scalarProblems = (schema: Json, value: unknown, path: string): string[] => {
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && !allowed.includes(value)) return [`${path}: ${enumMessage(allowed, value)}`];
  if (typeof value === 'string') return stringProblems(schema, value, path);
  if (typeof value === 'number') return numberProblems(schema, value, path);
  return [];
};

const arrayProblems = (schema: Json, value: readonly unknown[], path: string, depth: number): string[] => {
  const { minItems, maxItems } = schema;
  const items = objectOr(schema['items']);
  return [
    ...(typeof maxItems === 'number' && value.length > maxItems ? [`${path}: ${maxItemsMessage(schema, value)}`] : []),
    ...(typeof minItems === 'number' && value.length < minItems ? [`${path}: ${minItemsMessage(schema, value)}`] : []),
    ...(items === undefined ? [] : value.flatMap((item, i) => walk(items, item, `${path}[${i}]`, depth + 1))),
  ];
};

const objectProblems = (schema: Json, value: Json, path: string, depth: number): string[] => {
  const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
  return [
    ...required.filter((key) => value[key] === undefined).map((key) => `${joined(path, key)}: is required but missing: add it`),
    ...Object.entries(value).flatMap(([key, item]) => {
      const child = childSchema(schema, key);
      return child === undefined ? [] : walk(child, item, joined(path, key), depth + 1);
    }),
  ];
};

const walk = (schema: Json, value: unknown, path: string, depth: number): string[] => {
  if (depth > MAX_DEPTH) return [];
  if (!typeMatches(schema, value)) return [`${path}: ${typeMessage(expectedType(schema), schema, value)}`];
  if (Array.isArray(value)) return arrayProblems(schema, value, path, depth);
  if (isObject(value)) return objectProblems(schema, value, path, depth);
  return scalarProblems(schema, value, path);
};

/** The structural-schema problems of a value (paths start with `path`; give '' for a whole object). */
export const schemaProblems = (schema: Json, value: unknown, path: string): string[] => walk(schema, value, path, 0);

/** CEL wants int64 for integers. */
const celValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(celValue);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return value;
};

const rulesOf = (schema: Json): Rule[] => {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter((r): r is Rule => isObject(r) && typeof r['rule'] === 'string') : [];
};

const ruleProblem = (rule: Rule, self: unknown, old: unknown, path: string): string | undefined => {
  const transition = rule.rule.includes('oldSelf');
  if (transition && old === undefined) return undefined;
  const where = path === '' ? '<root>' : path;
  try {
    const result: unknown = evaluateKubeCel(rule.rule, { self: celValue(self), ...(transition && { oldSelf: celValue(old) }) });
    return result === true ? undefined : `${where}: Invalid value: ${shown(self)}: ${rule.message ?? `failed rule: ${rule.rule}`}`;
  } catch (error) {
    return `${where}: Invalid value: ${shown(self)}: rule "${rule.rule}" could not be evaluated: ${error instanceof Error ? error.message : String(error)}`;
  }
};

const celWalk = (schema: Json, value: unknown, old: unknown, path: string, depth: number): string[] => {
  if (value === undefined || depth > MAX_DEPTH) return [];
  const own = rulesOf(schema).flatMap((rule) => ruleProblem(rule, value, old, path) ?? []);
  const properties = objectOr(schema['properties']);
  const items = objectOr(schema['items']);
  const nested =
    properties !== undefined && isObject(value)
      ? Object.entries(properties).flatMap(([key, child]) =>
          isObject(child) ? celWalk(child, value[key], isObject(old) ? old[key] : undefined, joined(path, key), depth + 1) : [],
        )
      : items !== undefined && Array.isArray(value)
        ? value.flatMap((item, i) => celWalk(items, item, undefined, `${path}[${i}]`, depth + 1))
        : [];
  return [...own, ...nested];
};

/** The CEL rule failures of a (defaulted, schema-valid) value; `old` enables transition rules. */
export const celProblems = (schema: Json, value: unknown, old?: unknown): string[] => celWalk(schema, value, old, '', 0);
