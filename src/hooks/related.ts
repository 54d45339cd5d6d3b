/** Building the related-resource rules of customize responses. */
import type { RelatedResourceRule } from '../api/shared/hook.js';
import { GROUP_KEYS } from '../api/shared/hook.js';
import type { Wanted } from '../render/ownership.js';

/**
 * A rule selecting objects by name, or no rule at all when no name is given. NOTE: never send a rule
 * without names: Metacontroller would select every object of the type.
 */
export const namesRule = (apiVersion: string, resource: string, namespace: string, names: readonly (string | undefined)[]): RelatedResourceRule[] => {
  const unique = [...new Set(names.filter((n): n is string => n !== undefined))].sort();
  return unique.length === 0 ? [] : [{ apiVersion, resource, namespace, names: unique }];
};

/** The API resource of each child type a parent may want to create. */
const RESOURCES: Readonly<Record<string, { readonly apiVersion: string; readonly resource: string }>> = {
  [GROUP_KEYS.secret]: { apiVersion: 'v1', resource: 'secrets' },
  [GROUP_KEYS.configMap]: { apiVersion: 'v1', resource: 'configmaps' },
  [GROUP_KEYS.service]: { apiVersion: 'v1', resource: 'services' },
  [GROUP_KEYS.deployment]: { apiVersion: 'apps/v1', resource: 'deployments' },
  [GROUP_KEYS.daemonSet]: { apiVersion: 'apps/v1', resource: 'daemonsets' },
  [GROUP_KEYS.statefulSet]: { apiVersion: 'apps/v1', resource: 'statefulsets' },
  [GROUP_KEYS.ingress]: { apiVersion: 'networking.k8s.io/v1', resource: 'ingresses' },
  [GROUP_KEYS.podDisruptionBudget]: { apiVersion: 'policy/v1', resource: 'poddisruptionbudgets' },
  [GROUP_KEYS.cronJob]: { apiVersion: 'batch/v1', resource: 'cronjobs' },
  [GROUP_KEYS.job]: { apiVersion: 'batch/v1', resource: 'jobs' },
  [GROUP_KEYS.persistentVolumeClaim]: { apiVersion: 'v1', resource: 'persistentvolumeclaims' },
};

/**
 * Rules asking for the objects that hold the names of the children we intend to create (one rule per
 * type, merged with any names already asked for), so an object in the way shows up in `related`.
 */
export const withWanted = (rules: readonly RelatedResourceRule[], wanted: readonly Wanted[], namespace: string): RelatedResourceRule[] => {
  const byResource = new Map(rules.map((r) => [`${r.apiVersion}/${r.resource}`, r]));
  for (const { group, name } of wanted) {
    const type = RESOURCES[group];
    if (type === undefined) continue;
    const key = `${type.apiVersion}/${type.resource}`;
    const existing = byResource.get(key);
    byResource.set(key, namesRule(type.apiVersion, type.resource, namespace, [...(existing?.names ?? []), name])[0] ?? { ...type, namespace, names: [name] });
  }
  return [...byResource.values()];
};
