/**
 * Metacontroller's dynamic apply (pkg/dynamic/apply/apply.go): a client-side `kubectl apply`. An update
 * is a 3-way merge of the observed object, the last applied configuration (kept in an annotation) and
 * the desired object: fields we set last time and dropped now are removed, fields we never set (server
 * defaults, other controllers) are kept. Lists of objects that share a conventional key are merged item
 * by item; every other list is replaced.
 */
import { LAST_APPLIED_ANNOTATION, READ_ONLY_METADATA } from '../render/child.js';
import { deepCopy, isRecord, sortedJson, type Json, type KubeResource } from './objects.js';

/** Conventional list-map keys, in Metacontroller's order of preference. */
const MERGE_KEYS = ['containerPort', 'port', 'mountPath', 'name', 'uid', 'ip', 'path'] as const;

/** The last applied configuration recorded on an observed object, or undefined. */
export const lastAppliedOf = (object: KubeResource): Json | undefined => {
  const text = object.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** A copy of `object` whose last-applied annotation records `desired` (sorted keys, as Go marshals a map). */
export const withLastApplied = (object: KubeResource, desired: KubeResource): KubeResource => ({
  ...object,
  metadata: { ...object.metadata, annotations: { ...(object.metadata.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: sortedJson(desired) } },
});

const keyText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The merge key shared by every item of every list, or undefined when the lists are not list-maps. */
const listMapKey = (lists: readonly (readonly unknown[])[]): string | undefined => {
  let common: Set<string> | undefined;
  for (const list of lists) {
    for (const item of list) {
      if (!isRecord(item)) return undefined;
      const keys = Object.keys(item);
      common = common === undefined ? new Set(keys) : new Set(keys.filter((k) => common?.has(k) === true));
    }
  }
  return MERGE_KEYS.find((key) => common?.has(key) === true);
};

const toMap = (list: readonly unknown[], key: string): Json => Object.fromEntries(list.filter(isRecord).map((item) => [keyText(item[key]), item]));

/**
 * mergeListMap of apply.go: the lists as maps by key (a later duplicate wins), merged as objects, then
 * back to a list. Every item of the destination is written with its key's merged value, so a duplicate
 * already stored is written once per duplicate; a duplicate only desired is written once.
 */
const mergeListMap = (destination: readonly unknown[], lastApplied: readonly unknown[], desired: readonly unknown[], key: string): unknown[] => {
  const merged = mergeObject(toMap(destination, key), toMap(lastApplied, key), toMap(desired, key));
  const idOf = (item: unknown): string => (isRecord(item) ? keyText(item[key]) : '');
  const out: unknown[] = [];
  const added = new Set<string>();
  // Items already in the destination keep their order (each of them, duplicates included).
  for (const item of destination) {
    const id = idOf(item);
    if (id in merged) {
      out.push(deepCopy(merged[id]));
      added.add(id);
    }
  }
  // Then the desired items not added yet, in the desired order.
  for (const item of desired) {
    const id = idOf(item);
    if (!added.has(id) && id in merged) {
      out.push(deepCopy(merged[id]));
      added.add(id);
    }
  }
  return out;
};

/**
 * merge of apply.go. Its type checks never fail: a failed type assertion leaves a nil value, which the
 * check (`!ok && val != nil`) lets through. So a map desired as a scalar or a list is merged with nothing
 * desired (the fields applied last time go, the others stay), and a list desired as anything else becomes
 * null (a list-map keeps the items never applied). No merge error reaches the API server.
 */
const mergeValue = (destination: unknown, lastApplied: unknown, desired: unknown): unknown => {
  if (isRecord(destination)) return mergeObject(destination, isRecord(lastApplied) ? lastApplied : {}, isRecord(desired) ? desired : {});
  if (Array.isArray(destination)) {
    const last = Array.isArray(lastApplied) ? lastApplied : [];
    const wanted = Array.isArray(desired) ? desired : [];
    const key = listMapKey([destination, last, wanted]);
    if (key !== undefined) return mergeListMap(destination, last, wanted, key);
    return Array.isArray(desired) ? deepCopy(desired) : null;
  }
  return deepCopy(desired);
};

const mergeObject = (destination: Json, lastApplied: Json, desired: Json): Json => {
  const out: Json = { ...destination };
  for (const key of Object.keys(lastApplied)) if (!(key in desired)) Reflect.deleteProperty(out, key);
  for (const [key, value] of Object.entries(desired)) out[key] = mergeValue(out[key], lastApplied[key], value);
  return out;
};

/** The 3-way merge of Metacontroller's apply.Merge. Status and read-only metadata keep their observed values. */
export const threeWayMerge = (observed: KubeResource, lastApplied: Json | undefined, desired: KubeResource): KubeResource => {
  const merged = mergeObject(deepCopy(observed), lastApplied ?? {}, desired) as KubeResource;
  const metadata: Json = { ...merged.metadata };
  for (const field of READ_ONLY_METADATA) {
    if (observed.metadata[field] === undefined) Reflect.deleteProperty(metadata, field);
    else metadata[field] = observed.metadata[field];
  }
  const { status: _status, ...rest } = merged;
  return { ...rest, metadata: metadata as KubeResource['metadata'], ...(observed['status'] !== undefined && { status: observed['status'] }) };
};

/** What an update would write: the merge, with the new last-applied annotation. */
export const applyUpdate = (observed: KubeResource, desired: KubeResource): KubeResource =>
  withLastApplied(threeWayMerge(observed, lastAppliedOf(observed), desired), desired);
