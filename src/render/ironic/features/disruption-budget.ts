/**
 * The PodDisruptionBudget `<name>-service` of a high-availability Ironic: evictions (node drains, the cluster
 * autoscaler, a descheduler) take its DaemonSet's pods one node at a time, like its own rolling updates, so
 * the other conductors keep taking over the nodes of the one that goes. A single-replica Deployment gets
 * none: a budget there could only block every drain or allow everything.
 */
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { childLabels, selectorLabels } from '../facts.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';

export const renderDisruptionBudget = (input: IronicRenderInput): IPodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: input.names.workload, namespace: input.namespace, labels: childLabels(input) },
  spec: {
    maxUnavailable: 1,
    selector: { matchLabels: selectorLabels(input) },
    // A pod that is not ready (a broken node, a crash loop) may always be evicted: it serves nothing, and
    // with the default policy it would hold every drain of the cluster while it counts against the budget.
    unhealthyPodEvictionPolicy: 'AlwaysAllow',
  },
});

export const DISRUPTION_BUDGET: IronicFeature = {
  name: 'disruption-budget',
  order: 190,
  applies: (model) => model.highAvailability,
  children: (input) => [renderDisruptionBudget(input)],
  wanted: (_model, names) => [{ group: GROUP_KEYS.podDisruptionBudget, name: names.workload }],
};
