/**
 * What a change did in the emulated cluster, read from the objects before it and after each round of
 * Metacontroller's loop: the children changed in place (and where), replaced, created and deleted, the workloads
 * that rolled (and which part of their pod template changed), the Jobs that ran, what was kept for a while, and
 * the parents' Ready condition on the way. Pure: `ironic-render preview` (preview.ts) runs the rounds.
 */
import { SPEC_HASH_ANNOTATION } from '../render/child.js';
import { parentKindOf } from './admission.js';
import { readyOf, type Ready } from './session.js';
import { deepEqual, describe, groupKeyOf, isRecord, objectKeyOf, SERVER_METADATA, type Json, type KubeResource } from './objects.js';

/** The objects of the store at one moment, by `<group> <namespace>/<name>`. */
export type Snapshot = ReadonlyMap<string, KubeResource>;

export const keyOf = (object: KubeResource): string => `${groupKeyOf(object)} ${objectKeyOf(object)}`;

export const snapshotOf = (objects: readonly KubeResource[]): Snapshot => new Map(objects.map((o) => [keyOf(o), o]));

export type ParentLine = { readonly parent: string; readonly first?: Ready; readonly last?: Ready };

export type Plan = {
  /** Children changed in place: `Kind ns/name` and the changed paths (at most a few). */
  readonly changed: readonly { readonly object: string; readonly paths: readonly string[] }[];
  /** Children deleted and created again under the same name (an immutable field changed). */
  readonly recreated: readonly string[];
  /** A child replaced by another of the same kind and role: the old one, the new one, and the round the old one went. */
  readonly replaced: readonly { readonly old: string; readonly by: string; readonly goneInRound: number }[];
  readonly created: readonly string[];
  readonly deleted: readonly { readonly object: string; readonly round: number }[];
  /** Workloads whose pod template changed: how many times, and what changed in it. */
  readonly rolls: readonly { readonly workload: string; readonly times: number; readonly why: readonly string[] }[];
  /** Jobs the change started (not those of a CronJob's schedule). */
  readonly jobs: readonly string[];
  readonly parents: readonly ParentLine[];
};

const WORKLOAD_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);
/** Metadata the API server writes, never a change of anyone's. */
const SERVER_FIELDS = new Set<string>([...SERVER_METADATA, 'deletionTimestamp']);
const MAX_PATHS = 6;

/** Annotations that record an apply (and the workloads' stamp of it), not a change of the object. */
const APPLY_RECORDS = ['metacontroller.k8s.io/last-applied-configuration', 'kubectl.kubernetes.io/last-applied-configuration', SPEC_HASH_ANNOTATION];

/** A child of a parent: owned by an Ironic, IronicDatabase or IronicImageCache (not pods, nor a CronJob's Jobs). */
const isHooksChild = (object: KubeResource): boolean => (object.metadata.ownerReferences ?? []).some((r) => parentKindOf(r) !== undefined);

const statusOf = (object: KubeResource | undefined): Json | undefined => (isRecord(object?.['status']) ? object['status'] : undefined);

/** An element's name inside a list of named things (containers, env, volumes), for readable paths. */
const nameOf = (value: unknown): string | undefined => (isRecord(value) && typeof value['name'] === 'string' ? value['name'] : undefined);

/** The paths at which two values differ, with named list items by name: `spec.template.spec.containers[ironic].env[X]`. */
export const changedPaths = (before: unknown, after: unknown, path = ''): string[] => {
  if (deepEqual(before, after)) return [];
  const items: unknown[] = Array.isArray(before) && Array.isArray(after) ? [...(before as unknown[]), ...(after as unknown[])] : [];
  if (Array.isArray(before) && Array.isArray(after) && items.every((v) => nameOf(v) !== undefined)) {
    const names = [...new Set(items.map((v) => nameOf(v) ?? ''))];
    return names.flatMap((name) =>
      changedPaths(
        before.find((v) => nameOf(v) === name),
        after.find((v) => nameOf(v) === name),
        `${path}[${name}]`,
      ),
    );
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedPaths(before[key], after[key], path === '' ? key : `${path}.${key}`));
  }
  return [path];
};

/** What of an object a change is about: everything but status and the server's metadata. */
const content = (object: KubeResource): Json => {
  const { status: _status, metadata, ...rest } = object;
  const annotations = Object.fromEntries(Object.entries(metadata.annotations ?? {}).filter(([k]) => !APPLY_RECORDS.includes(k)));
  const kept = Object.fromEntries(Object.entries(metadata).filter(([k]) => !SERVER_FIELDS.has(k) && k !== 'annotations'));
  return { ...rest, metadata: { ...kept, ...(Object.keys(annotations).length > 0 && { annotations }) } };
};

const templateOf = (object: KubeResource | undefined): unknown => (isRecord(object?.['spec']) ? object['spec']['template'] : undefined);

/** A name without a trailing `-<hash>`: the role of a child whose name carries its content's hash. */
const roleOf = (object: KubeResource): string => `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name.replace(/-[0-9a-z]{5,16}$/, '')}`;

const limited = (paths: readonly string[]): string[] =>
  paths.length > MAX_PATHS ? [...paths.slice(0, MAX_PATHS), `and ${paths.length - MAX_PATHS} more`] : [...paths];

type Lifecycle = { readonly object: KubeResource; readonly createdIn?: number; readonly deletedIn?: number };

/** When each object that came or went did so (round numbers from 1), over the snapshots after each round. */
const lifecycles = (before: Snapshot, rounds: readonly Snapshot[]): Map<string, Lifecycle> => {
  const seen = new Map<string, Lifecycle>();
  let previous = before;
  rounds.forEach((snapshot, index) => {
    for (const [key, object] of snapshot) {
      const known = seen.get(key);
      const uidChanged = previous.get(key) !== undefined && previous.get(key)?.metadata.uid !== object.metadata.uid;
      if (!previous.has(key) || uidChanged)
        seen.set(key, { ...known, object, createdIn: known?.createdIn ?? index + 1, ...(uidChanged && { deletedIn: index + 1 }) });
    }
    for (const [key, object] of previous) if (!snapshot.has(key)) seen.set(key, { ...(seen.get(key) ?? { object }), deletedIn: index + 1 });
    previous = snapshot;
  });
  return seen;
};

/** How many distinct pod templates a workload went through after the first, and what changed from first to last. */
const rollOf = (key: string, before: Snapshot, rounds: readonly Snapshot[]): { times: number; why: string[] } | undefined => {
  const templates = [before.get(key), ...rounds.map((s) => s.get(key))].filter((o) => o !== undefined).map(templateOf);
  let times = 0;
  for (let i = 1; i < templates.length; i += 1) if (!deepEqual(templates[i], templates[i - 1])) times += 1;
  if (times === 0 || before.get(key) === undefined) return undefined;
  return { times, why: limited(changedPaths(templates[0], templates[templates.length - 1], 'template')) };
};

/** The first Ready that differs from the one before the change (the change's own), and the last. */
const parentLine = (parent: KubeResource, before: Snapshot, rounds: readonly Snapshot[]): ParentLine => {
  const key = keyOf(parent);
  const start = readyOf(statusOf(before.get(key)));
  const seen = rounds.map((s) => readyOf(statusOf(s.get(key)))).filter((r) => r !== undefined);
  const first = seen.find((r) => !deepEqual(r, start)) ?? seen[0];
  const last = seen[seen.length - 1];
  return { parent: describe(parent), ...(first !== undefined && { first }), ...(last !== undefined && { last }) };
};

/**
 * The plan of a change: `before` the objects when it was made, `rounds` after each round, `parents` the ones to
 * report on; `given` the keys of the objects the change itself wrote (a rotated Secret is the user's, not a child's).
 */
export const planOf = (before: Snapshot, rounds: readonly Snapshot[], parents: readonly KubeResource[], given: ReadonlySet<string> = new Set()): Plan => {
  const after = rounds[rounds.length - 1] ?? before;
  const isChild = (object: KubeResource): boolean => isHooksChild(object) && !given.has(keyOf(object));
  const came = [...lifecycles(before, rounds).values()].filter((l) => isChild(l.object));
  const recreated = came.filter((l) => l.createdIn !== undefined && l.deletedIn !== undefined && after.has(keyOf(l.object))).map((l) => describe(l.object));
  const gone = came.filter((l) => l.deletedIn !== undefined && !after.has(keyOf(l.object)));
  const fresh = came.filter((l) => l.createdIn !== undefined && !recreated.includes(describe(l.object)) && after.has(keyOf(l.object)));
  const replaced = gone.flatMap((old) => {
    const by = fresh.find((f) => roleOf(f.object) === roleOf(old.object) && before.has(keyOf(old.object)));
    return by === undefined ? [] : [{ old: describe(old.object), by: describe(by.object), goneInRound: old.deletedIn ?? 0 }];
  });
  const replacing = new Set(replaced.flatMap((r) => [r.old, r.by]));
  const changed = [...after.values()]
    .filter((o) => isChild(o) && before.has(keyOf(o)) && !recreated.includes(describe(o)))
    .map((o) => ({ object: describe(o), paths: limited(changedPaths(content(present(before.get(keyOf(o)))), content(o))) }))
    .filter((c) => c.paths.length > 0);
  const rolls = [...after.values()]
    .filter((o) => WORKLOAD_KINDS.has(o.kind))
    .flatMap((o) => {
      const roll = rollOf(keyOf(o), before, rounds);
      return roll === undefined ? [] : [{ workload: describe(o), ...roll }];
    });
  return {
    changed,
    recreated,
    replaced,
    created: fresh.map((l) => describe(l.object)).filter((d) => !replacing.has(d)),
    // What the change made and removed again (its Jobs) is not a deletion of something live.
    deleted: gone
      .filter((l) => !replacing.has(describe(l.object)) && before.has(keyOf(l.object)))
      .map((l) => ({ object: describe(l.object), round: l.deletedIn ?? 0 })),
    rolls,
    jobs: came.filter((l) => l.object.kind === 'Job' && l.createdIn !== undefined).map((l) => describe(l.object)),
    parents: parents.map((p) => parentLine(p, before, rounds)),
  };
};

const present = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error('an object of the snapshot is missing');
  return value;
};
