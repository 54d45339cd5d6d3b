/** Reading nested fields of plain objects in tests without casts. */

const step = (value: unknown, key: string | number): unknown => {
  if (typeof key === 'number') return Array.isArray(value) ? (value[key] as unknown) : undefined;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
};

/** The value at a path of keys and list indexes, or undefined. */
export const valueAt = (value: unknown, ...path: readonly (string | number)[]): unknown => path.reduce(step, value);

/** The string map at a path (labels, annotations), or an empty one. */
export const stringMapAt = (value: unknown, ...path: readonly (string | number)[]): Record<string, string> => {
  const found = valueAt(value, ...path);
  if (typeof found !== 'object' || found === null || Array.isArray(found)) return {};
  return Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => typeof e[1] === 'string'));
};
