/**
 * The Ironic workload: a single-replica Deployment (the HA DaemonSet has its own module).
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { renderIronicDaemonSet } from './ha.js';
import { ironicNames } from '../names.js';
import { ironicLabels } from '../meta.js';
import type { IronicRenderInput } from './input.js';
import { buildPodTemplate, selectorLabels } from './pod.js';

/**
 * `<name>-service`: one replica, and `Recreate` so that two Ironic conductors never run at the same
 * time on the same database or provisioning network.
 */
export const renderIronicWorkload = (input: IronicRenderInput): IDeployment | IDaemonSet =>
  input.spec.highAvailability === true ? renderIronicDaemonSet(input, buildPodTemplate(input), selectorLabels(input)) : renderIronicDeployment(input);

export const renderIronicDeployment = (input: IronicRenderInput): IDeployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: ironicNames(input.name).workload,
    namespace: input.namespace,
    labels: ironicLabels(input.name, input.spec.version),
  },
  spec: {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: selectorLabels(input) },
    template: buildPodTemplate(input),
  },
});
