/** Small readers of optional spec fields, shared by both parsers. */
import { canonicalQuantity } from './quantity.js';

/** A non-empty string, or undefined: the API treats an empty string as unset. */
export const given = (value: string | undefined): string | undefined => (value !== undefined && value !== '' ? value : undefined);

/** A positive number, or the fallback: a missing or zero port gets its default. */
export const positiveOr = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);

/** The entries of a comma-separated list, trimmed, without empty ones. */
export const listEntries = (text: string | undefined): string[] => (text ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');

/** A copy of a string map with its keys sorted (user maps are sorted before they reach an object). */
export const sortedMap = (map: Readonly<Record<string, string>> | undefined): Record<string, string> =>
  map === undefined ? {} : Object.fromEntries(Object.keys(map).sort().map((k) => [k, map[k] ?? '']));

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
