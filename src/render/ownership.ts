/**
 * Objects in the way: a child we would create whose name is already taken by an object this parent does
 * not own (a pre-created Secret, an orphan left by `kubectl delete --cascade=orphan`). Metacontroller
 * never adopts such an object and its create fails with AlreadyExists, which it ignores: without this
 * check a generated password would be made anew on every sync. customize asks for these names, so they
 * arrive in `related`.
 */
import type { KubeObject } from '../api/shared/hook.js';
import { findObject, isRecord, pathOf } from './observed.js';
import type { ParentView } from './parent.js';

/** A child we intend to create: its group key (`Kind.apiVersion`) and name. */
export type Wanted = { readonly group: string; readonly name: string };

/** Whether this parent is the object's controller (its controller ownerReference has the parent's uid). */
export const ownedBy = (object: KubeObject, uid: string | undefined): boolean => {
  const references = pathOf(object, 'metadata', 'ownerReferences');
  return Array.isArray(references) && references.some((r) => isRecord(r) && r['controller'] === true && uid !== undefined && r['uid'] === uid);
};

/** The objects that hold a wanted name without belonging to this parent, in the order asked. */
export const objectsInTheWay = (view: ParentView, wanted: readonly Wanted[]): KubeObject[] =>
  wanted.flatMap(({ group, name }) => {
    if (findObject(view.children, group, view.namespace, name) !== undefined) return [];
    const existing = findObject(view.related, group, view.namespace, name);
    return existing !== undefined && !ownedBy(existing, view.uid) ? [existing] : [];
  });

/** `Kind namespace/name` of an object, for messages. */
export const describeObject = (object: KubeObject, namespace: string): string =>
  `${object.kind} ${object.metadata.namespace ?? namespace}/${object.metadata.name}`;

/** The credentials Secret a parent generates, and the spec field that adopts it as the user's instead. */
export type CredentialsAdoption = { readonly secretName: string; readonly field: string; readonly what: string };

/**
 * What to do about each object in the way: delete it (its replacement is created at once) or rename the
 * parent; the generated credentials Secret can also be named in the spec and used as the user's.
 */
export const conflictMessage = (objects: readonly KubeObject[], namespace: string, parentKind: string, credentials?: CredentialsAdoption): string =>
  objects
    .map((o) => {
      const what = `${describeObject(o, namespace)} already exists and does not belong to this ${parentKind}`;
      return credentials !== undefined && o.kind === 'Secret' && o.metadata.name === credentials.secretName
        ? `${what}: set ${credentials.field} to ${o.metadata.name} to use it as the ${credentials.what}, or delete it to have credentials generated`
        : `${what}: delete it (its replacement is created at once), or rename this ${parentKind}`;
    })
    .join('; ');
