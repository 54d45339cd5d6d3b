/**
 * The Ironic workload `<name>-service`: a single-replica Deployment, or in high availability a DaemonSet
 * (one Ironic per selected node), around the pod template the features fold into.
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { stamped } from '../child.js';
import { childLabels, selectorLabels } from './facts.js';
import { featuresOf, type IronicFeature } from './feature.js';
import type { IronicRenderInput } from './input.js';
import { buildPodTemplate } from './pod.js';

/**
 * One replica, and `Recreate` so that two Ironic conductors never run at the same time on the same
 * database or provisioning network.
 */
const renderIronicDeployment = (input: IronicRenderInput, template: IPodTemplateSpec, annotations: Record<string, string>): IDeployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: input.names.workload, namespace: input.namespace, labels: childLabels(input), ...(Object.keys(annotations).length > 0 && { annotations }) },
  spec: {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: selectorLabels(input) },
    template,
  },
});

/** A DaemonSet, one node at a time (no surge: the pods use host ports). */
const renderIronicDaemonSet = (input: IronicRenderInput, template: IPodTemplateSpec, annotations: Record<string, string>): IDaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: input.names.workload, namespace: input.namespace, labels: childLabels(input), ...(Object.keys(annotations).length > 0 && { annotations }) },
  spec: {
    selector: { matchLabels: selectorLabels(input) },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    template,
  },
});

export const renderIronicWorkload = (input: IronicRenderInput, features: readonly IronicFeature[]): IDeployment | IDaemonSet => {
  const template = buildPodTemplate(input, features);
  const annotations = featuresOf(features, input.model).reduce<Record<string, string>>((all, f) => ({ ...all, ...f.workloadAnnotations?.(input) }), {});
  return input.model.highAvailability
    ? stamped(renderIronicDaemonSet(input, template, annotations))
    : stamped(renderIronicDeployment(input, template, annotations));
};
