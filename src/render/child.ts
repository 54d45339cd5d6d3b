/**
 * The shape of a desired child in a sync response, and how observed children are kept unchanged.
 */
import type { KubeObject, ObjectMap } from '../api/shared/hook.js';
import { compact, contentHash } from './meta.js';
import { isRecord } from './observed.js';

/** A desired child: apiVersion, kind and metadata.name are always set. */
export type KubeChild = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
};

/** A rendered Kubernetes object (typed with kubernetes-models, where metadata is optional). */
export type Rendered = { readonly apiVersion: string; readonly kind: string; readonly metadata?: { readonly name?: string | undefined } };

/**
 * A rendered object as a desired child. Every renderer names its object; a nameless one is a bug of
 * ours, reported as such rather than sent to Metacontroller.
 */
export const toChild = (object: Rendered): KubeChild => {
  const name = object.metadata?.name;
  if (name === undefined) throw new Error(`internal error: a rendered ${object.kind} has no metadata.name`);
  return { ...object, metadata: { ...object.metadata, name } };
};

/**
 * A workload's stamp: a hash of the spec rendered for it, in the workload's own metadata (not its pods', so
 * nothing rolls for it). Whether a change has reached the cluster is told by comparing the stamp of this
 * render with the one the observed workload carries: two strings, whatever order the live object comes in.
 */
export const SPEC_HASH_ANNOTATION = 'ironic.metal3.io/spec-hash';

/** A rendered workload with its stamp. */
export const stamped = <
  T extends {
    readonly metadata?: { readonly name?: string | undefined; readonly annotations?: Readonly<Record<string, string>> | undefined };
    readonly spec?: unknown;
  },
>(
  workload: T,
): T => ({
  ...workload,
  metadata: { ...workload.metadata, annotations: { ...workload.metadata?.annotations, [SPEC_HASH_ANNOTATION]: contentHash(workload.spec).slice(0, 16) } },
});

/** The stamp an object carries, if any. */
export const stampOf = (object: { readonly metadata: Readonly<Record<string, unknown>> }): string | undefined => {
  const annotations = object.metadata['annotations'];
  const stamp = isRecord(annotations) ? annotations[SPEC_HASH_ANNOTATION] : undefined;
  return typeof stamp === 'string' ? stamp : undefined;
};

/** Where Metacontroller's dynamic apply records what we returned last time. */
export const LAST_APPLIED_ANNOTATION = 'metacontroller.k8s.io/last-applied-configuration';

/**
 * Metadata the API server owns, which Metacontroller's dynamic apply reverts to the observed values after its
 * merge (pkg/dynamic/apply), so they never cause a diff.
 */
export const READ_ONLY_METADATA = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
  'managedFields',
] as const;

/** Metadata never part of a desired object: the read-only fields, and the ownerReferences Metacontroller adds. */
const SERVER_METADATA: readonly string[] = [...READ_ONLY_METADATA, 'ownerReferences'];

const lastApplied = (object: KubeObject): KubeChild | undefined => {
  const text = object.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && typeof parsed['apiVersion'] === 'string' && typeof parsed['kind'] === 'string' && isRecord(parsed['metadata'])
      ? (parsed as KubeChild)
      : undefined;
  } catch {
    return undefined;
  }
};

/** Annotations written by others: Metacontroller's record, and the Deployment controller's revision. */
const FOREIGN_ANNOTATIONS = new Set([LAST_APPLIED_ANNOTATION, 'deployment.kubernetes.io/revision']);

const withoutServerFields = (object: KubeObject): KubeChild => {
  const { status: _status, ...rest } = object;
  // Field by field, in their order: server-owned fields go, foreign annotations go (and an emptied map).
  const fields = Object.entries(object.metadata).flatMap(([key, value]): [string, unknown][] => {
    if (SERVER_METADATA.includes(key)) return [];
    if (key !== 'annotations' || !isRecord(value)) return [[key, value]];
    const kept = Object.entries(value).filter(([annotation]) => !FOREIGN_ANNOTATIONS.has(annotation));
    return kept.length > 0 ? [[key, Object.fromEntries(kept)]] : [];
  });
  return { ...rest, metadata: { ...Object.fromEntries(fields), name: object.metadata.name } };
};

/**
 * The observed children as desired children, unchanged: what Metacontroller last applied when it
 * recorded it, otherwise the live object without server-owned fields. Used when a spec is invalid or a
 * reference is missing, because any child left out of a response is deleted.
 */
export const keepObserved = (object: KubeObject): KubeChild => lastApplied(object) ?? compact(withoutServerFields(object));

export const keepObservedChildren = (children: ObjectMap | null | undefined): KubeChild[] => {
  if (children === null || children === undefined) return [];
  const out: KubeChild[] = [];
  for (const group of Object.keys(children).sort()) {
    const objects = children[group];
    if (objects === null || objects === undefined) continue;
    for (const key of Object.keys(objects).sort()) {
      const object = objects[key];
      if (object !== undefined) out.push(keepObserved(object));
    }
  }
  return out;
};
