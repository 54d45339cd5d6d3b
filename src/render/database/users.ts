/**
 * The database user of a Galera IronicDatabase (engine MariaDBOperator) across a change of user name.
 * mariadb-operator never renames a user: its webhook refuses a new `User.spec.name` or `Grant.spec.username`.
 * So another user gets a User and Grant of its own, and the previous ones (with the Secret of their
 * password) stay as they are until the new ones are ready; then the previous User is set to `cleanupPolicy:
 * Delete` and, once that is observed, left out: Metacontroller deletes it and mariadb-operator drops the
 * account (its Grant goes with it).
 * Everything is decided from the observed children, so a sync fed its own output decides the same.
 */
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import { keepObserved, type KubeChild } from '../child.js';
import { databaseNames } from '../names.js';
import { objectsOf, pathOf, textOf } from '../observed.js';
import type { ParentView } from '../parent.js';

const live = (object: KubeObject): boolean => object.metadata.deletionTimestamp === undefined;

const userNameOf = (user: KubeObject): string => textOf(pathOf(user, 'spec', 'name')) ?? user.metadata.name;

/**
 * The name of the User and Grant of `username`: those of the observed User of that user name, else the
 * MariaDB's name unless a User or Grant holds it, else a name of that user's own.
 */
export const userObjectName = (view: ParentView, username: string): string => {
  const users = objectsOf(view.children, GROUP_KEYS.mariadbUser);
  const current = users.find((u) => live(u) && userNameOf(u) === username);
  if (current !== undefined) return current.metadata.name;
  const names = databaseNames(view.name);
  const taken = [...users, ...objectsOf(view.children, GROUP_KEYS.mariadbGrant)].some((o) => o.metadata.name === names.mariadb);
  return taken ? names.otherUser(username) : names.mariadb;
};

/** What becomes of the User and Grant objects of previous users in this sync. */
export type PreviousUsers = {
  /** The objects to return: kept as observed, or the User set to be dropped. */
  readonly children: readonly KubeChild[];
  /** The previous user names while the new user is not ready yet. */
  readonly switchingFrom: readonly string[];
  /** The previous user names being dropped (their User set to cleanupPolicy Delete, not yet observed so). */
  readonly dropping: readonly string[];
};

const dropped = (user: KubeObject): KubeChild => {
  const kept = keepObserved(user);
  return { ...kept, spec: { ...(kept['spec'] as Record<string, unknown> | undefined), cleanupPolicy: 'Delete' } };
};

/** The observed Secrets of ours (children) the Users read their passwords from. */
const passwordSecrets = (view: ParentView, users: readonly KubeObject[]): KubeObject[] => {
  const names = new Set(users.map((u) => textOf(pathOf(u, 'spec', 'passwordSecretKeyRef', 'name'))));
  return objectsOf(view.children, GROUP_KEYS.secret).filter((s) => live(s) && names.has(s.metadata.name));
};

/**
 * The previous users' objects (every live User and Grant not named `name`, and the Secrets of ours with
 * their passwords): kept as they are while the new user is not ready; then each User is set to be dropped,
 * and left out with its Grant and Secret once it is.
 */
export const previousUsers = (view: ParentView, name: string, newUserReady: boolean): PreviousUsers => {
  const users = objectsOf(view.children, GROUP_KEYS.mariadbUser).filter((u) => live(u) && u.metadata.name !== name);
  const grants = objectsOf(view.children, GROUP_KEYS.mariadbGrant).filter((g) => live(g) && g.metadata.name !== name);
  if (!newUserReady)
    return { children: [...passwordSecrets(view, users), ...users, ...grants].map(keepObserved), switchingFrom: users.map(userNameOf), dropping: [] };
  const remaining = users.filter((u) => pathOf(u, 'spec', 'cleanupPolicy') !== 'Delete');
  const kept = new Set(remaining.map((u) => u.metadata.name));
  return {
    children: [
      ...passwordSecrets(view, remaining).map(keepObserved),
      ...remaining.map(dropped),
      ...grants.filter((g) => kept.has(g.metadata.name)).map(keepObserved),
    ],
    switchingFrom: [],
    dropping: remaining.map(userNameOf),
  };
};
