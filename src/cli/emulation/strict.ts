/**
 * Fields a schema does not know, as the API server's strict field validation (`kubectl apply` refuses
 * them) reports them: by path, at every level, except inside objects that keep unknown fields
 * (`x-kubernetes-preserve-unknown-fields`, the embedded Kubernetes objects of overrides). Pure; never throws.
 */
import type { TSchema } from '@sinclair/typebox';
import { isRecord } from '../../api/shared/problems.js';

type Json = Readonly<Record<string, unknown>>;

const isObject: (value: unknown) => value is Json = isRecord;

/** Nesting beyond this is not walked (no schema of ours is that deep; a hostile input could be). */
const MAX_DEPTH = 64;

const keepsUnknown = (schema: Json): boolean => schema['x-kubernetes-preserve-unknown-fields'] === true;

/** The schemas a union offers for an object value (e.g. an int-or-string never has fields). */
const objectBranches = (schema: Json): Json[] => {
  const branches = schema['anyOf'];
  return Array.isArray(branches) ? branches.filter(isObject).filter((b) => b['type'] === 'object') : [];
};

/** A field the schema does not declare: its path, and the names declared beside it. */
export type UnknownField = { readonly path: string; readonly known: readonly string[] };

const walk = (schema: Json, value: unknown, path: string, depth: number): UnknownField[] => {
  if (depth > MAX_DEPTH || keepsUnknown(schema)) return [];
  const union = objectBranches(schema);
  if (union.length > 0) {
    // The branch with the fewest unknown fields is the one meant.
    const candidates = union.map((branch) => walk(branch, value, path, depth + 1));
    return candidates.reduce((best, c) => (c.length < best.length ? c : best));
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isObject(items) ? value.flatMap((item, i) => walk(items, item, `${path}[${i}]`, depth + 1)) : [];
  }
  if (!isObject(value)) return [];
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined;
  const patterns = isObject(schema['patternProperties']) ? Object.values(schema['patternProperties']).filter(isObject) : [];
  return Object.keys(value).flatMap((key) => {
    const child = `${path}.${key}`;
    const known = properties?.[key];
    if (isObject(known)) return walk(known, value[key], child, depth + 1);
    const pattern = patterns[0];
    if (pattern !== undefined) return walk(pattern, value[key], child, depth + 1);
    return [{ path: child, known: Object.keys(properties ?? {}) }];
  });
};

/** Every field of `value` that `schema` does not declare, with the names declared beside it. */
export const unknownFieldsBeside = (schema: TSchema, value: unknown, path: string): UnknownField[] => walk(schema, value, path, 0);

/** The paths (`spec.networking.ipAdress`) of every field of `value` that `schema` does not declare. */
export const unknownFields = (schema: TSchema, value: unknown, path: string): string[] => unknownFieldsBeside(schema, value, path).map((f) => f.path);
