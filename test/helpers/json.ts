/**
 * Typed reading of JSON and YAML in tests: a value is checked against a TypeBox schema and comes back with
 * the schema's type, or the test fails naming the first mismatch. No cast stands between a parsed file
 * or response body and the fields a test reads.
 */
import { readFileSync } from 'node:fs';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse } from 'yaml';

/** `value` as the schema's type; throws (naming `what` and the first mismatch) when it does not match. */
export const checked = <T extends TSchema>(schema: T, value: unknown, what = 'value'): Static<T> => {
  if (Value.Check(schema, value)) return value;
  const [first] = Value.Errors(schema, value);
  throw new TypeError(`${what} does not have the expected shape: ${first === undefined ? 'unknown mismatch' : `${first.path || '/'}: ${first.message}`}`);
};

/** A parsed YAML document as a plain value, not yet checked (yaml types `toJS()` as `any`). */
export const jsOf = (document: { readonly toJS: () => unknown }): unknown => document.toJS();

/** A YAML text (one document) as a plain value, not yet checked (yaml types `parse()` as `any`). */
export const yamlValue = (text: string): unknown => {
  const value: unknown = parse(text);
  return value;
};

/** The JSON text, parsed and checked. */
export const parseJson = <T extends TSchema>(text: string, schema: T, what = 'JSON'): Static<T> => {
  const value: unknown = JSON.parse(text);
  return checked(schema, value, what);
};

/** The YAML text (one document), parsed and checked. */
export const parseYaml = <T extends TSchema>(text: string, schema: T, what = 'YAML'): Static<T> => {
  const value: unknown = parse(text);
  return checked(schema, value, what);
};

/** A JSON file, parsed and checked. */
export const readJson = <T extends TSchema>(file: string, schema: T): Static<T> => parseJson(readFileSync(file, 'utf8'), schema, file);

/** A YAML file (one document), parsed and checked. */
export const readYaml = <T extends TSchema>(file: string, schema: T): Static<T> => parseYaml(readFileSync(file, 'utf8'), schema, file);

/** The JSON body of an HTTP response (fastify's inject or a real one), checked. */
export const bodyOf = <T extends TSchema>(response: { readonly json: () => unknown }, schema: T, what = 'response body'): Static<T> =>
  checked(schema, response.json(), what);
