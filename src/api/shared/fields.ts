/** Small readers of optional spec fields, shared by both parsers. */
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import { canonicalQuantity, compareQuantities, parseQuantity } from './quantity.js';

/** A non-empty string, or undefined: the API treats an empty string as unset. */
/** The values that stand more than once in a list, each once, in the order of their first repetition. */
export const repeatedValues = (values: readonly string[]): string[] => [...new Set(values.filter((value, i) => values.indexOf(value) !== i))];

export const given = (value: string | undefined): string | undefined => (value !== undefined && value !== '' ? value : undefined);

/** A positive number, or the fallback: a missing or zero port gets its default. */
export const positiveOr = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);

/** The entries of a comma-separated list, trimmed, without empty ones. */
export const listEntries = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');

/** A copy of a string map with its keys sorted (user maps are sorted before they reach an object). */
export const sortedMap = (map: Readonly<Record<string, string>> | undefined): Record<string, string> =>
  map === undefined
    ? {}
    : Object.fromEntries(
        Object.keys(map)
          .sort()
          .map((k) => [k, map[k] ?? '']),
      );

/** The fields whose value is defined (optional properties must be absent, not undefined). */
export const optionalFields = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };

/** A quantity in the API server's canonical text (validation has refused anything that is not a quantity). */
export const canonical = (value: string | number): string => canonicalQuantity(value) ?? String(value);

type Quantities = Readonly<Record<string, string | number>>;

/** A map of quantities (requests, limits) in canonical text. */
export const canonicalQuantities = (map: Quantities): Record<string, string> =>
  Object.fromEntries(Object.entries(map).map(([key, value]) => [key, canonical(value)]));

/** Resource requirements with every quantity canonical, other fields as given. */
export const canonicalResources = <R extends { readonly limits?: Quantities; readonly requests?: Quantities }>(resources: R): R => ({
  ...resources,
  ...(resources.limits && { limits: canonicalQuantities(resources.limits) }),
  ...(resources.requests && { requests: canonicalQuantities(resources.requests) }),
});

/** The smaller of two quantities (both parse: validation refused any that does not). */
const smaller = (a: string | number, b: string | number): string | number => {
  const [qa, qb] = [parseQuantity(a), parseQuantity(b)];
  return qa !== undefined && qb !== undefined && compareQuantities(qb, qa) < 0 ? b : a;
};

const sortedQuantities = (map: Quantities): Record<string, string | number> =>
  Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k] ?? 0]),
  );

type UserResources = { readonly requests?: Quantities; readonly limits?: Quantities } | undefined;

const overDefaults = (defaults: Readonly<Record<string, string>>, user: UserResources): IResourceRequirements => {
  const requests: Record<string, string | number> = { ...defaults };
  for (const [resource, limit] of Object.entries(user?.limits ?? {})) {
    const current = requests[resource];
    if (current !== undefined) requests[resource] = smaller(current, limit);
  }
  Object.assign(requests, user?.requests);
  const limits = user?.limits;
  return canonicalResources({
    requests: sortedQuantities(requests),
    ...(limits !== undefined && Object.keys(limits).length > 0 && { limits: sortedQuantities(limits) }),
  });
};

/**
 * The resources of each table of default requests (constants) when the user sets none, worked out once: a
 * sync asks for every container's. Held weakly by the table.
 */
const defaultResources = new WeakMap<Readonly<Record<string, string>>, IResourceRequirements>();

/**
 * One container's resources: the default requests, each replaced by the user's request of the same
 * resource; a user limit without a request caps the default request (the API server refuses a request above
 * its limit). Limits only as given. Canonical. A new object every time (the defaults' is copied).
 */
export const resourcesOverDefaults = (defaults: Readonly<Record<string, string>>, user: UserResources): IResourceRequirements => {
  if (user?.requests !== undefined || user?.limits !== undefined) return overDefaults(defaults, user);
  const known = defaultResources.get(defaults) ?? overDefaults(defaults, undefined);
  defaultResources.set(defaults, known);
  // Without user resources there are requests only (those of the table).
  return { ...known, requests: { ...known.requests } };
};
