/**
 * The `related` map of a sync request, resolved from customize rules the way Metacontroller's customize
 * manager selects objects (pkg/controller/common/customize/manager.go): `names` (in `namespace`, or in
 * every namespace; an empty list is no list), else `labelSelector` (in `namespace`, or everywhere), else every object of the type
 * in `namespace`, or everywhere. Keys are v2 keys (`namespace/name`).
 */
import type { RelatedResourceRule } from '../api/shared/hook.js';
import { PARENT_KINDS } from '../kinds/index.js';
import {
  CONFIG_MAPS,
  CRON_JOBS,
  DAEMON_SETS,
  DEPLOYMENTS,
  INGRESSES,
  JOBS,
  MARIADB_RESTORES,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  POD_DISRUPTION_BUDGETS,
  SECRETS,
  SERVICES,
  STATEFUL_SETS,
  type ResourceType,
} from '../api/shared/resource-types.js';
import { groupKeyOf, isRecord, objectKeyOf, type KubeResource } from './objects.js';

/** Plural resource names the hooks may ask for (every parent kind among them), and their kinds. */
const RESOURCES: ReadonlyMap<string, ResourceType> = new Map(
  [
    SECRETS,
    CONFIG_MAPS,
    SERVICES,
    DEPLOYMENTS,
    DAEMON_SETS,
    STATEFUL_SETS,
    JOBS,
    CRON_JOBS,
    PERSISTENT_VOLUME_CLAIMS,
    PODS,
    INGRESSES,
    POD_DISRUPTION_BUDGETS,
    MARIADB_RESTORES,
    ...PARENT_KINDS.map(({ apiVersion, kind, plural }) => ({ apiVersion, kind, resource: plural })),
  ].map((type) => [type.resource, type]),
);

export class RelatedRuleError extends Error {}

type Requirement = { readonly key: string; readonly operator: string; readonly values?: readonly string[] };

const requirementsOf = (selector: unknown): Requirement[] => {
  if (!isRecord(selector)) return [];
  const labels = isRecord(selector['matchLabels']) ? selector['matchLabels'] : {};
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].filter(isRecord) : [];
  return [
    ...Object.entries(labels).map(([key, value]) => ({ key, operator: 'In', values: [String(value)] })),
    ...expressions.map((e) => ({
      key: String(e['key']),
      operator: String(e['operator']),
      ...(Array.isArray(e['values']) && { values: e['values'].map(String) }),
    })),
  ];
};

const matches = (requirement: Requirement, labels: Readonly<Record<string, string>>): boolean => {
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && (requirement.values ?? []).includes(value);
    case 'NotIn':
      return value === undefined || !(requirement.values ?? []).includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      throw new RelatedRuleError(`unknown label selector operator "${requirement.operator}"`);
  }
};

/** Whether labels satisfy a metav1.LabelSelector (an empty selector matches everything). */
export const selectorMatches = (selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean =>
  requirementsOf(selector).every((r) => matches(r, labels ?? {}));

/** The group key a rule selects, or an error for a resource the cluster does not know. */
export const groupKeyOfRule = (rule: RelatedResourceRule): string => {
  const resource = RESOURCES.get(rule.resource);
  if (resource?.apiVersion !== rule.apiVersion) {
    throw new RelatedRuleError(`customize asked for ${rule.resource} (${rule.apiVersion}), which this cluster does not serve`);
  }
  return groupKeyOf(resource);
};

const selects = (rule: RelatedResourceRule, object: KubeResource): boolean => {
  if (rule.namespace !== undefined && rule.namespace !== '' && object.metadata.namespace !== rule.namespace) return false;
  // An empty names list selects nothing in particular: every object (of the namespace), as Metacontroller reads it.
  if (rule.names !== undefined && rule.names.length > 0) return rule.names.includes(object.metadata.name);
  return rule.labelSelector === undefined || selectorMatches(rule.labelSelector, object.metadata.labels);
};

/**
 * The related map for some rules over the given objects. Every rule's group is present, even when it
 * selects nothing, as Metacontroller initialises it.
 */
export const resolveRelated = (rules: readonly RelatedResourceRule[], objects: readonly KubeResource[]): Record<string, Record<string, KubeResource>> => {
  const out: Record<string, Record<string, KubeResource>> = {};
  for (const rule of rules) {
    if (rule.names !== undefined && rule.names.length > 0 && rule.labelSelector !== undefined)
      throw new RelatedRuleError('a related rule cannot have both names and labelSelector');
    const group = groupKeyOfRule(rule);
    const selected = (out[group] ??= {});
    for (const object of objects) if (groupKeyOf(object) === group && selects(rule, object)) selected[objectKeyOf(object)] = object;
  }
  return out;
};
