/**
 * Validation of `spec.resources` of an Ironic or an IronicImageCache: known container names, quantities that parse and are not
 * negative, and no request above its limit (the API server would refuse the pod on every sync).
 */
import { IRONIC_CONTAINER_NAMES } from './ironic/schema.js';
import type { ContainerResources } from './shared/resources.js';
import { describeValue, fieldPath, problem, type Problem } from './shared/problems.js';
import { compareQuantities, parseQuantity } from './shared/quantity.js';
import { patternMessage, QUANTITY_PATTERN } from './shared/schema-messages.js';

type QuantityMap = Readonly<Record<string, string | number>>;

/** The containers whose resources a kind's spec.resources sets, and how messages name the kind. */
export type ContainerSet = { readonly names: readonly string[]; readonly owner: string };

const IRONIC_CONTAINERS: ContainerSet = { names: IRONIC_CONTAINER_NAMES, owner: 'Ironic' };

/** Quantities that do not parse or are negative, under `base` (`spec.resources.ironic.requests`). */
export const quantityProblems = (base: string, quantities: QuantityMap): Problem[] =>
  Object.keys(quantities)
    .sort()
    .flatMap((resource) => {
      const value = quantities[resource];
      const parsed = value === undefined ? undefined : parseQuantity(value);
      const path = fieldPath(base, resource);
      if (parsed === undefined) return [problem(path, patternMessage({ pattern: QUANTITY_PATTERN }, value))];
      return parsed.numerator < 0n ? [problem(path, `${describeValue(value)} is negative: use a quantity of zero or more, for example 500m or 1Gi`)] : [];
    });

/** Requests above their limit (pairs that both parse; quantityProblems reports the others), under `base`. */
export const requestsAboveLimits = (base: string, resources: { readonly requests?: QuantityMap; readonly limits?: QuantityMap }): Problem[] => {
  const { requests = {}, limits = {} } = resources;
  return Object.keys(requests)
    .sort()
    .flatMap((resource) => {
      const [request, limit] = [requests[resource], limits[resource]];
      if (request === undefined || limit === undefined) return [];
      const [requested, limited] = [parseQuantity(request), parseQuantity(limit)];
      if (requested === undefined || limited === undefined || compareQuantities(requested, limited) <= 0) return [];
      return [
        problem(
          fieldPath(`${base}.requests`, resource),
          `the ${describeValue(resource)} request ${describeValue(request)} is more than its limit ${describeValue(limit)}: lower the request or raise the limit`,
        ),
      ];
    });
};

const containerProblems = (containers: ContainerSet, name: string, resources: ContainerResources): Problem[] => {
  const base = fieldPath('spec.resources', name);
  if (!containers.names.includes(name)) {
    return [problem(base, `${describeValue(name)} is not a container of ${containers.owner}: set resources for ${containers.names.join(', ')}`)];
  }
  return [
    ...quantityProblems(`${base}.requests`, resources.requests ?? {}),
    ...quantityProblems(`${base}.limits`, resources.limits ?? {}),
    ...requestsAboveLimits(base, resources),
  ];
};

/** Every problem of spec.resources (of an Ironic unless `containers` says otherwise), container by container in name order. */
export const resourcesProblems = (
  resources: Readonly<Record<string, ContainerResources>> | undefined,
  containers: ContainerSet = IRONIC_CONTAINERS,
): Problem[] =>
  Object.keys(resources ?? {})
    .sort()
    .flatMap((name) => {
      const entry = resources?.[name];
      return entry === undefined ? [] : containerProblems(containers, name, entry);
    });
