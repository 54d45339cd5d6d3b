/**
 * Typed read access to the `children` and `related` maps of a hook request.
 */
import type { KubeObject, ObjectMap } from '../api/shared/hook.js';
import { isRecord } from '../api/shared/problems.js';

export { isRecord };

/** A non-empty string, or undefined. */
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Every object of one group (`Kind.apiVersion`), sorted by key so that order never depends on the sender. */
export const objectsOf = (map: ObjectMap | null | undefined, group: string): KubeObject[] => {
  const objects = map?.[group];
  if (objects === null || objects === undefined) return [];
  return Object.keys(objects)
    .sort()
    .map((key) => objects[key])
    .filter((o): o is KubeObject => o !== undefined);
};

/** The object `namespace/name` of a group (v2 keys), falling back to the bare name (v1 keys). */
export const findObject = (map: ObjectMap | null | undefined, group: string, namespace: string, name: string): KubeObject | undefined => {
  const objects = map?.[group];
  if (!objects) return undefined;
  const found = objects[`${namespace}/${name}`] ?? objects[name];
  return found?.metadata.name === name ? found : undefined;
};

/** The decoded `data` of a Secret (base64) or the `data` of a ConfigMap; non-string values are skipped. */
export const dataOf = (object: KubeObject | undefined): Record<string, string> => {
  if (object === undefined) return {};
  const data = object['data'];
  const out: Record<string, string> = {};
  if (!isRecord(data)) return out;
  const decode = object.kind === 'Secret';
  for (const key of Object.keys(data).sort()) {
    const value = data[key];
    if (typeof value === 'string') out[key] = decode ? Buffer.from(value, 'base64').toString('utf8') : value;
  }
  return out;
};

/**
 * The bytes the API server holds under each key of a Secret, desired or observed: `data` decoded from base64,
 * then `stringData` as UTF-8 (the server merges it into `data`, its keys winning, and never returns it).
 * Non-string values are skipped, as dataOf skips them.
 */
const storedSecretData = (secret: Readonly<Record<string, unknown>>): Map<string, Buffer> => {
  const stored = new Map<string, Buffer>();
  for (const [field, encoding] of [
    ['data', 'base64'],
    ['stringData', 'utf8'],
  ] as const) {
    const map = secret[field];
    if (!isRecord(map)) continue;
    for (const key of Object.keys(map)) {
      const value = map[key];
      if (typeof value === 'string') stored.set(key, Buffer.from(value, encoding));
    }
  }
  return stored;
};

/**
 * Whether a desired Secret holds what the observed one holds: the same keys with the same bytes. Independent of
 * the key order (Metacontroller, in Go, sends maps sorted; a renderer writes them in its own order) and of the
 * form (base64 spelling, stringData, an empty `data` the server leaves out).
 */
export const sameSecretData = (desired: Readonly<Record<string, unknown>>, observed: Readonly<Record<string, unknown>>): boolean => {
  const [wanted, held] = [storedSecretData(desired), storedSecretData(observed)];
  if (wanted.size !== held.size) return false;
  for (const [key, bytes] of wanted) {
    const other = held.get(key);
    if (other === undefined || !bytes.equals(other)) return false;
  }
  return true;
};

/** A field of an unknown value by path, or undefined. */
export const pathOf = (value: unknown, ...path: string[]): unknown => {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
};
