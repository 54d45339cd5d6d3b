/**
 * Checks an object against a generated CRD the way the API server would: the openAPIV3Schema with Ajv,
 * then every x-kubernetes-validations (CEL) rule with a CEL evaluator. Transition rules (those that use
 * oldSelf) run only when an old object is given.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { evaluateKubeCel } from '../../src/api/kube-cel.js';

type Json = { [key: string]: unknown };
type Rule = { rule: string; message: string };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajvFor = (): Ajv => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
};

/** The schema of the only version of a CRD. */
export const schemaOf = (crd: Json): Json => {
  const spec = crd['spec'] as Json;
  const versions = spec['versions'] as Json[];
  const schema = (versions[0]?.['schema'] as Json)['openAPIV3Schema'];
  return schema as Json;
};

const celValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(celValue);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return value;
};

const runRules = (rules: Rule[], self: unknown, old: unknown, path: string, out: string[]): void => {
  for (const { rule, message } of rules) {
    const transition = rule.includes('oldSelf');
    if (transition && old === undefined) continue;
    const result = evaluateKubeCel(rule, { self: celValue(self), ...(transition && { oldSelf: celValue(old) }) });
    if (result !== true) out.push(`${path}: ${message}`);
  }
};

const walk = (schema: Json, value: unknown, old: unknown, path: string, out: string[]): void => {
  if (value === undefined) return;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) runRules(rules as Rule[], value, old, path, out);
  const properties = schema['properties'];
  if (isObject(properties) && isObject(value)) {
    for (const [name, child] of Object.entries(properties)) {
      walk(child as Json, value[name], isObject(old) ? old[name] : undefined, `${path}.${name}`, out);
    }
  }
  const items = schema['items'];
  if (isObject(items) && Array.isArray(value)) value.forEach((v, i) => walk(items, v, undefined, `${path}[${i}]`, out));
};

/**
 * Returns the problems the API server would report for `object` (empty when it would be accepted).
 */
export const checkAgainstCrd = (crd: Json, object: unknown, old?: unknown): string[] => {
  const schema = schemaOf(crd);
  const validate = ajvFor().compile(schema);
  const out: string[] = [];
  if (!validate(object)) {
    for (const e of validate.errors ?? []) out.push(`${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
    return out;
  }
  walk(schema, object, old, '', out);
  return out;
};
