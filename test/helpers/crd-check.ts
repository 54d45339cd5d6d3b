/**
 * Checks an object against a generated CRD the way the API server would: the openAPIV3Schema with Ajv,
 * then every x-kubernetes-validations (CEL) rule with a CEL evaluator. Transition rules (those that use
 * oldSelf) run only when an old object is given.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _, Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { evaluateKubeCel } from '../../src/cli/emulation/kube-cel.js';
import { CRD_FORMATS } from './crd-formats.js';
import { isObj as isObject, objAt, valueAt, type Obj as Json } from '../support/paths.js';

type Rule = { rule: string; message?: string };

const rulesOf = (rules: readonly unknown[]): Rule[] =>
  rules.map((rule) => {
    const [text, message] = [valueAt(rule, 'rule'), valueAt(rule, 'message')];
    if (typeof text !== 'string' || (message !== undefined && typeof message !== 'string'))
      throw new TypeError(`not a validation rule: ${JSON.stringify(rule)}`);
    return { rule: text, ...(message !== undefined && { message }) };
  });

// ajv-formats is CommonJS: its module object is the plugin, and `.default` the same function (the one its types describe).
const addFormats = addFormatsModule.default;

// The same for Ajv's standalone code writer (CommonJS as well).
const standaloneCode = standaloneModule.default;

/**
 * The module of the formats (crd-formats.ts), by path: the standalone code of a validator requires it to
 * reach the format functions (Ajv writes `require(<code.formats>)["uri"]`; ajv-formats would otherwise
 * set its own module there, whose `uri` is not the API server's).
 */
const FORMATS_FILE = fileURLToPath(new URL('crd-formats.ts', import.meta.url));

/**
 * Part of the cache key: bump it when what the formats of crd-formats.ts are changes in a way the code Ajv
 * writes depends on (it calls the functions by name, so a change of their bodies needs no bump). Its
 * presence also keeps the validators written before `uri` was the API server's from being served.
 */
const FORMATS_VERSION = 'uri=go-url-ParseRequestURI';

const ajvFor = (): Ajv => {
  const ajv = new Ajv({ strict: false, allErrors: true, code: { source: true, formats: _`require(${FORMATS_FILE}).CRD_FORMATS` } });
  // The keywords of ajv-formats (formatMinimum, …) and its formats; then the API server's `uri` over RFC 3986's.
  addFormats(ajv);
  ajv.addFormat('uri', CRD_FORMATS.uri);
  return ajv;
};

/** Where compiled validators are kept between test processes, by a digest of Ajv's version, the formats and the schema. */
const CACHE = resolve('node_modules/.cache/crd-check');
const requireHere = createRequire(import.meta.url);
const AJV_VERSION = String((requireHere('ajv/package.json') as { version?: unknown }).version);

/** Compiled validators by the exact text of their schema: compiling a CRD's schema costs far more than writing it out. */
const validators = new Map<string, ValidateFunction>();

/** Compiles a schema and keeps Ajv's standalone code of it where later test processes find it. */
const compileAndKeep = (schema: Json, file: string): ValidateFunction => {
  const ajv = ajvFor();
  const validate = ajv.compile(schema);
  try {
    mkdirSync(CACHE, { recursive: true });
    const partial = `${file}.${String(process.pid)}`;
    writeFileSync(partial, standaloneCode(ajv, validate));
    renameSync(partial, file);
  } catch {
    // A read-only or full disk only loses the cache.
  }
  return validate;
};

/**
 * The Ajv validator of a schema: compiled once per process, and its code kept between processes (a CRD's
 * schema takes Ajv most of a second to compile; the kept code loads in milliseconds and is Ajv's own output).
 */
const validatorOf = (schema: Json): ValidateFunction => {
  const key = JSON.stringify(schema);
  const known = validators.get(key);
  if (known !== undefined) return known;
  const file = join(CACHE, `${createHash('sha256').update(`${AJV_VERSION}\0${FORMATS_VERSION}\0${FORMATS_FILE}\0${key}`).digest('hex')}.cjs`);
  let validate: ValidateFunction;
  try {
    validate = requireHere(file) as ValidateFunction;
  } catch {
    validate = compileAndKeep(schema, file);
  }
  validators.set(key, validate);
  return validate;
};

/** The schema of the only version of a CRD. */
export const schemaOf = (crd: Json): Json => objAt(crd, 'spec', 'versions', 0, 'schema', 'openAPIV3Schema');

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
    if (result !== true) out.push(`${path}: ${String(message)}`);
  }
};

const walk = (schema: Json, value: unknown, old: unknown, path: string, out: string[]): void => {
  if (value === undefined) return;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) runRules(rulesOf(rules), value, old, path, out);
  const properties = schema['properties'];
  if (isObject(properties) && isObject(value)) {
    for (const [name, child] of Object.entries(properties)) {
      walk(objAt(child), value[name], isObject(old) ? old[name] : undefined, `${path}.${name}`, out);
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
  const validate = validatorOf(schema);
  const out: string[] = [];
  if (!validate(object)) {
    for (const e of validate.errors ?? []) out.push(`${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
    return out;
  }
  walk(schema, object, old, '', out);
  return out;
};
