/**
 * The Service `<name>` that clients (baremetal-operator) use, and the optional Ingress.
 */
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IHTTPIngressPath } from 'kubernetes-models/networking.k8s.io/v1/HTTPIngressPath';
import { ironicNames } from '../names.js';
import { ironicLabels, sortedMap } from '../meta.js';
import type { IronicRenderInput } from './input.js';
import { PORT_NAMES } from './containers.js';
import { hasTLS, hasVirtualMediaTLS, isHighAvailability } from './env.js';
import { selectorLabels } from './pod.js';

/** The image server port the Service and Ingress expose: TLS unless virtual media TLS is off. */
export const imageServerPortName = (input: IronicRenderInput): string =>
  hasVirtualMediaTLS(input) ? PORT_NAMES.imageServerTLS : PORT_NAMES.imageServer;

const servicePorts = (input: IronicRenderInput): IServicePort[] => {
  const tls = hasTLS(input);
  const imagePort = imageServerPortName(input);
  return [
    { name: PORT_NAMES.api, port: tls ? 443 : 80, targetPort: PORT_NAMES.api, protocol: 'TCP' },
    // NOTE: upstream points at image-svc-tls even when virtual media TLS is disabled; no container has it then.
    ...(!isHighAvailability(input) ? [{ name: imagePort, port: imagePort === PORT_NAMES.imageServerTLS ? 8443 : 8080, targetPort: imagePort, protocol: 'TCP' as const }] : []),
    ...(input.spec.prometheusExporter?.enabled === true
      ? [{ name: PORT_NAMES.metrics, port: input.spec.networking.prometheusExporterPort, targetPort: PORT_NAMES.metrics, protocol: 'TCP' as const }]
      : []),
  ];
};

export const renderIronicService = (input: IronicRenderInput): IService => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: ironicNames(input.name).service, namespace: input.namespace, labels: ironicLabels(input.name, input.spec.version) },
  spec: { type: 'ClusterIP', selector: selectorLabels(input), ports: servicePorts(input) },
});

const ingressPath = (input: IronicRenderInput, path: string, port: string): IHTTPIngressPath => ({
  path,
  pathType: 'ImplementationSpecific',
  backend: { service: { name: ironicNames(input.name).service, port: { name: port } } },
});

/** The Ingress, when spec.networking.ingress is set: the API on `/`, images and Redfish media on the image server. */
export const renderIronicIngress = (input: IronicRenderInput): IIngress | undefined => {
  const ingress = input.spec.networking.ingress;
  if (ingress === undefined) return undefined;
  const names = ironicNames(input.name);
  const host = ingress.host !== undefined && ingress.host !== '' ? ingress.host : undefined;
  const image = imageServerPortName(input);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: names.ingress,
      namespace: input.namespace,
      labels: ironicLabels(input.name, input.spec.version),
      ...(ingress.annotations !== undefined && Object.keys(ingress.annotations).length > 0 && { annotations: sortedMap(ingress.annotations) }),
    },
    spec: {
      ...(ingress.ingressClassName !== undefined && ingress.ingressClassName !== '' && { ingressClassName: ingress.ingressClassName }),
      ...(host !== undefined && { tls: [{ hosts: [host], secretName: names.ingressTLS }] }),
      rules: [
        {
          ...(host !== undefined && { host }),
          http: {
            paths: [ingressPath(input, '/', PORT_NAMES.api), ingressPath(input, '/redfish', image), ingressPath(input, '/images', image)],
          },
        },
      ],
    },
  };
};
