/**
 * The Ironic workload: a single-replica Deployment (the HA DaemonSet has its own module).
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { renderIronicDaemonSet } from './ha.js';
import type { IronicRenderInput } from './input.js';
import { childLabels, selectorLabels } from './facts.js';
import { buildPodTemplate } from './pod.js';

/**
 * `<name>-service`: one replica, and `Recreate` so that two Ironic conductors never run at the same
 * time on the same database or provisioning network.
 */
export const renderIronicWorkload = (input: IronicRenderInput): IDeployment | IDaemonSet =>
  input.model.highAvailability ? renderIronicDaemonSet(input, buildPodTemplate(input), selectorLabels(input)) : renderIronicDeployment(input);

export const renderIronicDeployment = (input: IronicRenderInput): IDeployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: input.names.workload,
    namespace: input.namespace,
    labels: childLabels(input),
  },
  spec: {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: selectorLabels(input) },
    template: buildPodTemplate(input),
  },
});
