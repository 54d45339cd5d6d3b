/** Building the related-resource rules of customize responses. */
import type { RelatedResourceRule } from '../api/hook.js';

/**
 * A rule selecting objects by name, or no rule at all when no name is given. NOTE: never send a rule
 * without names: Metacontroller would select every object of the type.
 */
export const namesRule = (apiVersion: string, resource: string, namespace: string, names: readonly (string | undefined)[]): RelatedResourceRule[] => {
  const unique = [...new Set(names.filter((n): n is string => n !== undefined))].sort();
  return unique.length === 0 ? [] : [{ apiVersion, resource, namespace, names: unique }];
};
