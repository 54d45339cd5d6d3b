/**
 * JSON text as Metacontroller writes a hook request: Go's encoding/json (json.Marshal of maps, which is what
 * Metacontroller holds every object as). It writes the keys of every map sorted by their bytes, at every level,
 * whatever order the object was created in, and escapes `<`, `>`, `&`, U+2028 and U+2029 (its HTML-safe
 * default). A hook that compares an observed object with a rendered one by the order of its keys sees
 * them differ here, as it would under the real Metacontroller.
 */

/** Go compares map keys as byte strings: UTF-8 order, which differs from UTF-16 order above U+FFFF. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** A string as Go writes it: JSON's escapes plus its HTML-safe ones (`<` is written `\u003c`). */
const goString = (text: string): string => JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The JSON text of a value that JSON could hold, written as Go's encoding/json writes a map[string]interface{}. */
export const goJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((item: unknown) => goJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(byBytes);
    return `{${keys.map((key) => `${goString(key)}:${goJson(record[key])}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value ?? null);
};
