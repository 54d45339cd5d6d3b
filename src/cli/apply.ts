/**
 * Metacontroller's dynamic apply (pkg/dynamic/apply/apply.go): a client-side `kubectl apply`. An update
 * is a 3-way merge of the observed object, the last applied configuration (kept in an annotation) and
 * the desired object: fields we set last time and dropped now are removed, fields we never set (server
 * defaults, other controllers) are kept. Lists of objects that share a conventional key are merged item
 * by item; every other list is replaced.
 */
import { LAST_APPLIED_ANNOTATION } from '../render/child.js';
import { deepCopy, isRecord, sortedJson, type Json, type KubeResource } from './objects.js';

/** Conventional list-map keys, in Metacontroller's order of preference. */
const MERGE_KEYS = ['containerPort', 'port', 'mountPath', 'name', 'uid', 'ip', 'path'] as const;

/** Metadata the server owns: reverted to the observed values after a merge, so they never cause a diff. */
const READ_ONLY_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'managedFields'] as const;

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

const mergeListMap = (destination: readonly unknown[], lastApplied: readonly unknown[], desired: readonly unknown[], key: string): unknown[] => {
  const merged = mergeObject(toMap(destination, key), toMap(lastApplied, key), toMap(desired, key));
  const out: unknown[] = [];
  const added = new Set<string>();
  const take = (item: unknown): void => {
    const id = isRecord(item) ? keyText(item[key]) : '';
    if (!added.has(id) && id in merged) {
      out.push(merged[id]);
      added.add(id);
    }
  };
  // Items already in the destination keep their order; new ones follow in the desired order.
  destination.forEach(take);
  desired.forEach(take);
  return out;
};

/** A merge apply refuses, e.g. a map the desired object replaces with a scalar or a list. */
export class MergeError extends Error {}

const mergeValue = (destination: unknown, lastApplied: unknown, desired: unknown): unknown => {
  if (isRecord(destination) && isRecord(desired)) return mergeObject(destination, isRecord(lastApplied) ? lastApplied : {}, desired);
  if (isRecord(destination) && isRecord(lastApplied) && desired !== undefined) {
    throw new MergeError(`expecting map, got ${Array.isArray(desired) ? 'a list' : typeof desired} ${JSON.stringify(desired)}`);
  }
  if (Array.isArray(destination) && Array.isArray(desired)) {
    const last = Array.isArray(lastApplied) ? lastApplied : [];
    const key = listMapKey([destination, last, desired]);
    return key === undefined ? deepCopy(desired) : mergeListMap(destination, last, desired, key);
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
