/**
 * Facts derived from the model that every piece of an Ironic reads: images, placement, labels, port
 * names and the environment helpers. The bottom of src/render/ironic: it imports no other piece.
 */
import type { IContainerPort } from 'kubernetes-models/v1/ContainerPort';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import type { IronicContainerName } from '../../api/ironic/model.js';
import { imageTagFor, IRONIC_IMAGE_REPOSITORY } from '../../api/shared/version.js';
import { defaultImage, type FeatureImage } from '../config.js';
import { LABELS, labelValue } from '../names.js';
import { ironicLabels, nodeSelection } from '../meta.js';
import type { IronicRenderInput } from './input.js';

/** Names of the container (and Service) ports. */
export const PORT_NAMES = {
  api: 'ironic-api',
  imageServer: 'image-svc',
  imageServerTLS: 'image-svc-tls',
  metrics: 'metrics',
  rpc: 'json-rpc',
  ipxeTLS: 'ipxe-tls',
} as const;

/** The images every feature may run: Ironic's (the other images are the features' own, see imageOf). */
export type IronicImages = { readonly ironic: string };

/**
 * The Ironic image: spec.images.ironic, else the operator's repository with the tag of the version. Explicit
 * images always win, as upstream.
 */
export const ironicImages = (input: IronicRenderInput): IronicImages => {
  const repository = input.config.images.ironicRepository === '' ? IRONIC_IMAGE_REPOSITORY : input.config.images.ironicRepository;
  return { ironic: input.model.images['ironic'] ?? `${repository}:${imageTagFor(input.model.version) ?? 'latest'}` };
};

/** A feature's own image: spec.images names it, else the hook server's setting, else the feature's default. */
export const imageOf = (input: IronicRenderInput, image: FeatureImage): string => input.model.images[image.field] ?? defaultImage(input.config, image);

/** Labels of every child of this Ironic (its name, version and manager). */
export const childLabels = (input: IronicRenderInput): Record<string, string> => ironicLabels(input.name, input.model.version);

/** Where Ironic pods (and the pods that go with them: networking, upgrade Jobs) may run, and their priority. */
export const ironicScheduling = (
  input: IronicRenderInput,
): { nodeSelector?: Record<string, string>; tolerations?: IToleration[]; priorityClassName?: string } => {
  const { nodeSelector, tolerations, priorityClassName } = input.model.scheduling;
  return {
    ...nodeSelection(nodeSelector),
    ...(tolerations.length > 0 && { tolerations: [...tolerations] }),
    ...(priorityClassName !== undefined && { priorityClassName }),
  };
};

/** The compute resources of one of our containers (defaults with spec.resources applied). */
export const resourcesOf = (input: IronicRenderInput, name: IronicContainerName): { resources: IResourceRequirements } => ({
  resources: input.model.resources[name],
});

/** Labels that select the Ironic pods. */
export const selectorLabels = (input: IronicRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(input.names.workload) });

/** An IPv6 address in brackets, as URLs and `host:port` need it; anything else as it is. */
export const bracketIPv6 = (address: string): string => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);

/** A plain `name=value` variable. */
export const env = (name: string, value: string): IEnvVar => ({ name, value });

/** Only when the value is non-empty: the image treats an empty variable differently from an absent one. */
export const optionalEnv = (name: string, value: string | undefined): IEnvVar[] =>
  value !== undefined && value.trim() !== '' ? [env(name, value.trim())] : [];

/** The values joined by a separator, when there is any. */
export const joinedEnv = (name: string, values: readonly string[], separator: string): IEnvVar[] =>
  values.length > 0 ? [env(name, values.join(separator))] : [];

/** A variable from the pod's own status (downward API). */
export const fieldEnv = (name: string, fieldPath: string): IEnvVar => ({ name, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } });

/**
 * Removes duplicate names: the last value wins, at the position of the first occurrence (so a user's
 * extraConfig may override a variable we set without breaking the order).
 */
export const dedupeEnv = (vars: readonly IEnvVar[]): IEnvVar[] => {
  // One pass: each name's position in the output, where a later variable of that name replaces the earlier.
  const positions = new Map<string, number>();
  const out: IEnvVar[] = [];
  for (const v of vars) {
    const position = positions.get(v.name);
    if (position === undefined) {
      positions.set(v.name, out.length);
      out.push(v);
    } else out[position] = v;
  }
  return out;
};

/**
 * The address this replica of Ironic uses as its own: networking.ipAddress, except with high availability,
 * where ipAddress is the virtual IP (held by one node at a time) and every replica uses its node's.
 */
export const ownIPAddress = (model: IronicRenderInput['model']): string | undefined =>
  model.highAvailability || model.networking.ipAddress === '' ? undefined : model.networking.ipAddress;

/** How the image finds its provisioning address: explicit settings, or the node's (or pod's) IP. */
export const provisioningEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.model.networking;
  const explicit = [
    ...optionalEnv('PROVISIONING_IP', ownIPAddress(input.model)),
    ...optionalEnv('PROVISIONING_INTERFACE', n.interface),
    ...joinedEnv('PROVISIONING_MACS', n.macAddresses, ','),
  ];
  if (explicit.length > 0) return explicit;
  // Without any hint, wait for the IP of the node (or of the pod off the host network).
  return [fieldEnv('PROVISIONING_IP', n.hostNetwork ? 'status.hostIP' : 'status.podIP')];
};

/** A container port; host networking exposes it on the node, so hostPort equals the container port. */
export const containerPort = (input: IronicRenderInput, name: string, port: number): IContainerPort => ({
  name,
  containerPort: port,
  protocol: 'TCP',
  // NOTE: upstream sets hostPort even off the host network, which needlessly reserves node ports.
  ...(input.model.networking.hostNetwork && { hostPort: port }),
});
