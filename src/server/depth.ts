/**
 * A bound on the nesting of a hook request. Kubernetes objects are never nested more than a few dozen
 * levels (a Pod template inside a Deployment is about 15), but JSON has no limit, and the hooks and the
 * response serialisation recurse: an array nested thousands deep would exhaust the stack (a 500 on every
 * sync). The body is walked without recursion before the hook sees it.
 */
import { echo } from './echo.js';

/** The deepest nesting accepted, in objects and arrays; far above any Kubernetes object. */
export const MAX_DEPTH = 100;

type Entry = { readonly value: unknown; readonly depth: number; readonly path: readonly string[] };

/** The children of an object or array, one level deeper, with their path (the first 3 keys). */
const childrenOf = (entry: Entry): Entry[] => {
  const { value, depth, path } = entry;
  if (typeof value !== 'object' || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_v, i) => String(i)) : Object.keys(value);
  const values: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return values.map((child, i) => ({ value: child, depth: depth + 1, path: path.length < 3 ? [...path, keys[i] ?? ''] : path }));
};

/** The object of the body a path is in: "the parent", "children Secret.v1 ns/name", "related …". */
export const objectAt = (path: readonly string[]): string => {
  const [top, type, name] = path;
  if (top === 'parent') return 'the parent';
  if ((top === 'children' || top === 'related') && type !== undefined && name !== undefined) return `${top} ${echo(type)} ${echo(name)}`;
  return 'the request body';
};

/** The object of the body nested deeper than `limit`, found by a walk that keeps paths. */
const deepObject = (body: unknown, limit: number): string | undefined => {
  const stack: Entry[] = [{ value: body, depth: 0, path: [] }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (typeof entry.value !== 'object' || entry.value === null) continue;
    if (entry.depth >= limit) return objectAt(entry.path);
    for (const child of childrenOf(entry)) stack.push(child);
  }
  return undefined;
};

/**
 * Whether an object or array of `value` is `levelsLeft` levels below it: a walk that allocates nothing and
 * recurses at most `levelsLeft` + 1 frames deep, however deep the value, since it stops there. (`for in`
 * also sees inherited keys: at worst a body is walked again by deepObject, which answers.)
 */
const anyTooDeep = (value: object, levelsLeft: number): boolean => {
  if (levelsLeft <= 0) return true;
  // Most values of a Kubernetes object are strings and numbers: they are passed over here, not in a call each.
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) if (typeof child === 'object' && child !== null && anyTooDeep(child, levelsLeft - 1)) return true;
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && anyTooDeep(child, levelsLeft - 1)) return true;
  }
  return false;
};

/**
 * Where the body is nested deeper than `limit`: the object that is, or undefined. Every body is walked
 * once cheaply; only one that is too deep is walked again to name the object.
 */
export const tooDeep = (body: unknown, limit: number = MAX_DEPTH): string | undefined =>
  typeof body === 'object' && body !== null && anyTooDeep(body, limit) ? deepObject(body, limit) : undefined;
