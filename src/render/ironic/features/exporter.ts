/**
 * The Prometheus exporter (spec.prometheusExporter): its container, the sensor-data settings of Ironic, and
 * its ServiceMonitor, rendered only where the Prometheus Operator exists (the hook server is told so by its
 * SERVICE_MONITORS setting, set by the deploy overlay that also declares the child type), unless disabled.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ExporterModel } from '../../../api/ironic/model.js';
import { LABELS, labelValue, type IronicNames } from '../../names.js';
import type { KubeChild } from '../../child.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { PORT_NAMES, bracketIPv6, childLabels, env, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { exporterProbe } from '../probes.js';
import { scratchMounts, sharedMount } from '../volumes.js';

/** The ServiceMonitor of the exporter. */
export const serviceMonitorName = (names: IronicNames): string => names.featureObject('-metrics');

export const renderServiceMonitor = (input: IronicRenderInput): KubeChild | undefined => {
  const exporter = input.model.exporter;
  if (input.config.serviceMonitors !== true || exporter?.serviceMonitor !== true) return undefined;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: serviceMonitorName(input.names), namespace: input.namespace, labels: childLabels(input) },
    spec: {
      selector: { matchLabels: { [LABELS.ironic]: labelValue(input.name) } },
      endpoints: [{ port: PORT_NAMES.metrics, path: '/metrics', interval: `${exporter.sensorCollectionInterval}s` }],
    },
  };
};

/** The exporter (gunicorn). */
const buildExporterEnv = (input: IronicRenderInput, bindAddress: string): IEnvVar[] => [
  // gunicorn is started with `-b $FLASK_RUN_HOST:$FLASK_RUN_PORT`: an IPv6 address needs brackets.
  env('FLASK_RUN_HOST', bracketIPv6(bindAddress)),
  env('FLASK_RUN_PORT', String(input.model.networking.prometheusExporterPort)),
];

const buildExporterContainer = (input: IronicRenderInput, exporter: ExporterModel, { images }: ContainerContext): IContainer => {
  const probe = exporterProbe(input, exporter.bindAddress);
  return {
    name: 'ironic-prometheus-exporter',
    image: images.ironic,
    command: ['/bin/runironic-exporter'],
    env: buildExporterEnv(input, exporter.bindAddress),
    ports: [{ name: PORT_NAMES.metrics, containerPort: input.model.networking.prometheusExporterPort, protocol: 'TCP' }],
    volumeMounts: [sharedMount, ...scratchMounts('ironic-prometheus-exporter')],
    ...resourcesOf(input, 'ironic-prometheus-exporter'),
    ...(probe && { readinessProbe: probe }),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

/** Ironic collects sensor data for the exporter. */
const sensorDataEnv = (exporter: ExporterModel): IEnvVar[] => [
  env('SEND_SENSOR_DATA', 'true'),
  env('OS_SENSOR_DATA__INTERVAL', String(exporter.sensorCollectionInterval)),
];

export const EXPORTER: IronicFeature = {
  name: 'prometheus-exporter',
  order: 160,
  applies: (model) => model.exporter !== undefined,
  containers: [
    { name: 'ironic-prometheus-exporter', build: (input, context) => input.model.exporter && buildExporterContainer(input, input.model.exporter, context) },
  ],
  env: (input) => ({ ironic: input.model.exporter !== undefined ? sensorDataEnv(input.model.exporter) : [] }),
  children: (input) => [renderServiceMonitor(input)],
};
