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

/** A field of an unknown value by path, or undefined. */
export const pathOf = (value: unknown, ...path: string[]): unknown => {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
};
