/**
 * The ServiceMonitor of the Prometheus exporter, rendered only where the Prometheus Operator exists
 * (the hook server is told so by its SERVICE_MONITORS setting, set by the deploy overlay that also
 * declares the child type), when the exporter is enabled and the ServiceMonitor not disabled.
 */
import { LABELS, labelValue } from '../names.js';
import type { KubeChild } from '../child.js';
import type { IronicRenderInput } from './input.js';
import { PORT_NAMES, childLabels } from './facts.js';

export const renderServiceMonitor = (input: IronicRenderInput): KubeChild | undefined => {
  const exporter = input.model.exporter;
  if (input.config.serviceMonitors !== true || exporter?.serviceMonitor !== true) return undefined;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: input.names.serviceMonitor, namespace: input.namespace, labels: childLabels(input) },
    spec: {
      selector: { matchLabels: { [LABELS.ironic]: labelValue(input.name) } },
      endpoints: [{ port: PORT_NAMES.metrics, path: '/metrics', interval: `${exporter.sensorCollectionInterval}s` }],
    },
  };
};
