/** Building the related-resource rules of customize responses. */
import type { RelatedResourceRule } from '../api/shared/hook.js';
import type { ObjectReference } from '../api/shared/references.js';
import {
  CONFIG_MAPS,
  CRON_JOBS,
  DAEMON_SETS,
  DEPLOYMENTS,
  groupKeyOfType,
  INGRESSES,
  JOBS,
  PERSISTENT_VOLUME_CLAIMS,
  POD_DISRUPTION_BUDGETS,
  relatedRank,
  SECRETS,
  SERVICES,
  STATEFUL_SETS,
  type ResourceType,
} from '../api/shared/resource-types.js';
import type { Wanted } from '../render/ownership.js';

/**
 * A rule selecting objects by name, or no rule at all when no name is given. NOTE: never send a rule
 * without names: Metacontroller would select every object of the type.
 */
export const namesRule = (
  { apiVersion, resource }: Pick<ResourceType, 'apiVersion' | 'resource'>,
  namespace: string,
  names: readonly (string | undefined)[],
): RelatedResourceRule[] => {
  const unique = [...new Set(names.filter((n): n is string => n !== undefined))].sort();
  return unique.length === 0 ? [] : [{ apiVersion, resource, namespace, names: unique }];
};

/** The API resource of each child type a parent may want to create (where an object in the way is looked for). */
const RESOURCES: ReadonlyMap<string, ResourceType> = new Map(
  [SECRETS, CONFIG_MAPS, SERVICES, DEPLOYMENTS, DAEMON_SETS, STATEFUL_SETS, INGRESSES, POD_DISRUPTION_BUDGETS, CRON_JOBS, JOBS, PERSISTENT_VOLUME_CLAIMS].map(
    (type) => [groupKeyOfType(type), type],
  ),
);

/**
 * Rules asking for the objects that hold the names of the children we intend to create (one rule per
 * type, merged with any names already asked for), so an object in the way shows up in `related`.
 */
export const withWanted = (rules: readonly RelatedResourceRule[], wanted: readonly Wanted[], namespace: string): RelatedResourceRule[] => {
  const byResource = new Map(rules.map((r) => [`${r.apiVersion}/${r.resource}`, r]));
  for (const { group, name } of wanted) {
    const type = RESOURCES.get(group);
    if (type === undefined) continue;
    const key = `${type.apiVersion}/${type.resource}`;
    const existing = byResource.get(key);
    const [rule] = namesRule(type, namespace, [...(existing?.names ?? []), name]);
    if (rule !== undefined) byResource.set(key, rule);
  }
  return [...byResource.values()];
};

/** Customize's order of rules, for a referenced object's type. */
const ruleRank = (r: ObjectReference): number => relatedRank((type) => type.apiVersion === r.apiVersion && type.resource === r.resource);

/** One rule per resource type, asking for the referenced names of that type. */
export const referenceRules = (references: readonly ObjectReference[], namespace: string): RelatedResourceRule[] => {
  const byType = new Map<string, { apiVersion: string; resource: string; names: string[] }>();
  for (const r of [...references].sort((a, b) => ruleRank(a) - ruleRank(b))) {
    const key = `${r.apiVersion}/${r.resource}`;
    const entry = byType.get(key) ?? { apiVersion: r.apiVersion, resource: r.resource, names: [] };
    entry.names.push(r.name);
    byType.set(key, entry);
  }
  return [...byType.values()].flatMap((t) => namesRule(t, namespace, t.names));
};
