/**
 * The Service `<name>` that clients (baremetal-operator) use, and the optional Ingress.
 */
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IHTTPIngressPath } from 'kubernetes-models/networking.k8s.io/v1/HTTPIngressPath';
import { SERVICE_PORTS } from '../../../api/shared/constants.js';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { PORT_NAMES, childLabels, selectorLabels } from '../facts.js';
import type { IronicNames } from '../../names.js';

/** The Ingress, named like the parent. */
export const ingressName = (names: IronicNames): string => names.featureObject('');
/** The Secret of the Ingress's certificate, which the user or an ingress controller fills. */
export const ingressTLSName = (names: IronicNames): string => names.featureObject('-ingress-tls');

/** The image server port the Service and Ingress expose: TLS unless virtual media TLS is off. */
export const imageServerPortName = (input: IronicRenderInput): string => (input.model.tls.virtualMedia ? PORT_NAMES.imageServerTLS : PORT_NAMES.imageServer);

const servicePorts = (input: IronicRenderInput): IServicePort[] => {
  const { tls, highAvailability, exporter, networking } = input.model;
  const imagePort = imageServerPortName(input);
  const imageServicePort = tls.virtualMedia ? SERVICE_PORTS.imageServerTLS : SERVICE_PORTS.imageServer;
  return [
    { name: PORT_NAMES.api, port: tls.enabled ? SERVICE_PORTS.apiTLS : SERVICE_PORTS.api, targetPort: PORT_NAMES.api, protocol: 'TCP' },
    // NOTE: upstream points at image-svc-tls even when virtual media TLS is disabled; no container has it then.
    ...(!highAvailability ? [{ name: imagePort, port: imageServicePort, targetPort: imagePort, protocol: 'TCP' as const }] : []),
    ...(exporter !== undefined
      ? [{ name: PORT_NAMES.metrics, port: networking.prometheusExporterPort, targetPort: PORT_NAMES.metrics, protocol: 'TCP' as const }]
      : []),
  ];
};

export const renderIronicService = (input: IronicRenderInput): IService => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: input.names.service, namespace: input.namespace, labels: childLabels(input) },
  spec: { type: 'ClusterIP', selector: selectorLabels(input), ports: servicePorts(input) },
});

const ingressPath = (input: IronicRenderInput, path: string, port: string): IHTTPIngressPath => ({
  path,
  pathType: 'ImplementationSpecific',
  backend: { service: { name: input.names.service, port: { name: port } } },
});

/**
 * ingress-nginx's setting for an HTTPS backend: with TLS, httpd serves every port the Ingress points at
 * over HTTPS, and without it the controller speaks plain HTTP to them and gets 400 for every request.
 * Other controllers have their own (Traefik: a ServersTransport; HAProxy: `haproxy.org/server-ssl`), which
 * the user adds through spec.networking.ingress.annotations.
 */
export const NGINX_BACKEND_PROTOCOL = 'nginx.ingress.kubernetes.io/backend-protocol';

/** Our annotations, then the user's (theirs win), sorted. */
const ingressAnnotations = (input: IronicRenderInput, user: Readonly<Record<string, string>>): Record<string, string> => {
  const merged: Record<string, string> = { ...(input.model.tls.enabled && { [NGINX_BACKEND_PROTOCOL]: 'HTTPS' }), ...user };
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k] ?? '']),
  );
};

/** The Ingress, when spec.networking.ingress is set: the API on `/`, images and Redfish media on the image server. */
export const renderIronicIngress = (input: IronicRenderInput): IIngress | undefined => {
  const ingress = input.model.networking.ingress;
  if (ingress === undefined) return undefined;
  const { names } = input;
  const host = ingress.host;
  const image = imageServerPortName(input);
  const annotations = ingressAnnotations(input, ingress.annotations);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: ingressName(names),
      namespace: input.namespace,
      labels: childLabels(input),
      ...(Object.keys(annotations).length > 0 && { annotations }),
    },
    spec: {
      ...(ingress.className !== undefined && { ingressClassName: ingress.className }),
      ...(host !== undefined && { tls: [{ hosts: [host], secretName: ingressTLSName(names) }] }),
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

export const API_SERVICE: IronicFeature = {
  name: 'api-service',
  order: 180,
  applies: () => true,
  children: (input) => [renderIronicService(input), renderIronicIngress(input)],
  // The Ingress's certificate is the user's or an ingress controller's to fill.
  takesSecret: (names, secret) => secret === ingressTLSName(names),
  wanted: (model, names) => [
    { group: GROUP_KEYS.service, name: names.service },
    ...(model.networking.ingress !== undefined ? [{ group: GROUP_KEYS.ingress, name: ingressName(names) }] : []),
  ],
};
