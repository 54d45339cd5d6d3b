/**
 * Plain Kubernetes objects as the in-memory cluster keeps them: typed access to the few metadata fields
 * it needs, the v2 map keys, and canonical JSON (Go's json.Marshal sorts map keys, so Metacontroller's
 * last-applied annotation does not depend on key order).
 */
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '../render/meta.js';

export type Json = Record<string, unknown>;

export type Metadata = {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly resourceVersion?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
  readonly deletionTimestamp?: string;
  readonly [key: string]: unknown;
};

export type OwnerReference = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
};

/** Metadata only the API server writes: applied again it would conflict (uid, resourceVersion) or be ignored. */
export const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'] as const;

/** An object with apiVersion, kind and metadata.name; everything else is kept as it is. */
export type KubeResource = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: Metadata;
  readonly [key: string]: unknown;
};

/** The controller ownerReference to a parent, as controllers write it (controller and blockOwnerDeletion set). */
export const controllerRef = (parent: KubeResource): OwnerReference => ({
  apiVersion: parent.apiVersion,
  kind: parent.kind,
  name: parent.metadata.name,
  uid: parent.metadata.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});

import { isRecord } from '../api/shared/problems.js';

export { isRecord };

/** True when the value has the minimum shape of a Kubernetes object. */
export const isResource = (value: unknown): value is KubeResource =>
  isRecord(value) &&
  typeof value['apiVersion'] === 'string' &&
  value['apiVersion'] !== '' &&
  typeof value['kind'] === 'string' &&
  value['kind'] !== '' &&
  isRecord(value['metadata']) &&
  typeof value['metadata']['name'] === 'string' &&
  value['metadata']['name'] !== '';

/** The outer key of Metacontroller's object maps: `Kind.version` (core group) or `Kind.group/version`. */
export const groupKeyOf = (object: { readonly apiVersion: string; readonly kind: string }): string => `${object.kind}.${object.apiVersion}`;

/** The inner key of a v2 object map: `namespace/name`, or `name` for cluster-scoped objects. */
export const objectKeyOf = (object: KubeResource): string =>
  object.metadata.namespace !== undefined && object.metadata.namespace !== '' ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name;

/** `Kind namespace/name`, for messages. */
export const describe = (object: KubeResource): string => `${object.kind} ${objectKeyOf(object)}`;

export const deepCopy = <T>(value: T): T => structuredClone(value);

export const deepEqual = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

/** JSON with sorted keys, as Go writes a map. */
export const sortedJson = (value: unknown): string => canonicalJson(value);

/** A copy without `null` values at any depth: what the API server stores for an object that contained them. */
export const withoutNulls = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (isRecord(value)) {
    const out: Json = {};
    for (const [key, item] of Object.entries(value)) if (item !== null && item !== undefined) out[key] = withoutNulls(item);
    return out as T;
  }
  return value;
};
