/** Reading nested fields of plain objects in tests without casts. */

/** A plain object (what JSON and YAML objects parse to). */
export type Obj = Record<string, unknown>;

type Path = readonly (string | number)[];

/** True for a plain object: not null, not an array. */
export const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

const step = (value: unknown, key: string | number): unknown => {
  if (typeof key !== 'number') return isObj(value) ? value[key] : undefined;
  if (!Array.isArray(value)) return undefined;
  const item: unknown = value[key];
  return item;
};

/** The value at a path of keys and list indexes, or undefined. */
export const valueAt = (value: unknown, ...path: Path): unknown => path.reduce(step, value);

/** The string map at a path (labels, annotations), or an empty one. */
export const stringMapAt = (value: unknown, ...path: Path): Record<string, string> => {
  const found = valueAt(value, ...path);
  if (typeof found !== 'object' || found === null || Array.isArray(found)) return {};
  return Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => typeof e[1] === 'string'));
};

const pathText = (path: Path): string => path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('') || '(the value itself)';

/**
 * The object at a path. Throws when there is none: for a test that goes on to read the object's fields,
 * a missing object is a failure either way, and this one names the path.
 */
export const objAt = (value: unknown, ...path: Path): Obj => {
  const found = valueAt(value, ...path);
  if (!isObj(found)) throw new TypeError(`no object at ${pathText(path)}`);
  return found;
};

/** The object at a path, or an empty one when there is nothing (or null) there; throws when something else is. */
export const objAtOrEmpty = (value: unknown, ...path: Path): Obj => {
  const found = valueAt(value, ...path);
  if (found === undefined || found === null) return {};
  if (!isObj(found)) throw new TypeError(`not an object at ${pathText(path)}`);
  return found;
};

/** The list at a path, or an empty one when there is nothing (or null) there; throws when something else is. */
export const listAtOrEmpty = (value: unknown, ...path: Path): unknown[] => {
  const found = valueAt(value, ...path);
  if (found === undefined || found === null) return [];
  if (!Array.isArray(found)) throw new TypeError(`not a list at ${pathText(path)}`);
  return found;
};

/** The list of objects at a path; throws when there is no list there or it holds anything but objects. */
export const objsAt = (value: unknown, ...path: Path): Obj[] => {
  const found = valueAt(value, ...path);
  if (!Array.isArray(found) || !found.every(isObj)) throw new TypeError(`no list of objects at ${pathText(path)}`);
  return found;
};

/** The list at a path (its items unknown); throws when there is no list there. */
export const listAt = (value: unknown, ...path: Path): unknown[] => {
  const found = valueAt(value, ...path);
  if (!Array.isArray(found)) throw new TypeError(`no list at ${pathText(path)}`);
  return found;
};

/** The string at a path; throws when there is none. */
export const stringAt = (value: unknown, ...path: Path): string => {
  const found = valueAt(value, ...path);
  if (typeof found !== 'string') throw new TypeError(`no string at ${pathText(path)}`);
  return found;
};

/** The value; throws (naming `what`) when it is null or undefined, for a test that goes on to use it. */
export const present = <T>(value: T | null | undefined, what = 'value'): T => {
  if (value === null || value === undefined) throw new TypeError(`${what} is missing`);
  return value;
};

/** The `metadata.name` of an object (undefined when it has none). */
export const nameOf = (object: unknown): string | undefined => {
  const name = valueAt(object, 'metadata', 'name');
  return typeof name === 'string' ? name : undefined;
};
