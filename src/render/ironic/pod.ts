/**
 * The Ironic pod template, folded from the feature records: containers, init containers, volumes,
 * annotations and pod fields, then the user's overrides.
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { childLabels, ironicImages, ironicScheduling, selectorLabels, type IronicImages } from './facts.js';
import { featuresOf, type ContainerAdditions, type ContainerBuilder, type IronicFeature, type PodSpecFields } from './feature.js';
import type { IronicRenderInput } from './input.js';
import { scratchVolume, scratchVolumeName, sharedVolume } from './volumes.js';

/** Replaces items with the same name, appends the others; whole objects, no field is lost (upstream drops some). */
export const mergeByName = <T extends { name: string }>(base: readonly T[], overrides: readonly T[]): T[] => {
  if (overrides.length === 0) return [...base];
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const replaced = base.map((b) => byName.get(b.name) ?? b);
  const baseNames = new Set(base.map((b) => b.name));
  return [...replaced, ...overrides.filter((o) => !baseNames.has(o.name))];
};

/** What the features add to one container, in feature order. */
const additionsFor = <T>(additions: readonly ContainerAdditions<T>[], container: string): T[] => additions.flatMap((a) => a[container] ?? []);

/**
 * The mounts the features add to one container, each once: two features may need the same mount (dnsmasq's own
 * feature and iPXE over TLS both give it the shared volume). Different mounts on one path are kept, so that
 * the API server's refusal names the conflict.
 */
const mountsFor = (additions: readonly ContainerAdditions<IVolumeMount>[], container: string): IVolumeMount[] => {
  const seen = new Set<string>();
  return additionsFor(additions, container).filter((m) => {
    const key = JSON.stringify([m.name, m.mountPath, m.subPath, m.readOnly]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** The containers (or init containers) of the features, each built with what the others add to it. */
const buildAll = (
  input: IronicRenderInput,
  images: IronicImages,
  features: readonly IronicFeature[],
  pick: (f: IronicFeature) => readonly ContainerBuilder[] | undefined,
): IContainer[] => {
  const env: ContainerAdditions<IEnvVar>[] = features.flatMap((f) => (f.env ? [f.env(input)] : []));
  const mounts: ContainerAdditions<IVolumeMount>[] = features.flatMap((f) => (f.mounts ? [f.mounts(input)] : []));
  return features
    .flatMap((f) => pick(f) ?? [])
    .map((c) => c.build(input, { images, env: additionsFor(env, c.name), mounts: mountsFor(mounts, c.name) }))
    .filter((c) => c !== undefined);
};

/** Our volumes: the shared emptyDir, one scratch emptyDir per container that mounts its own, then the features'. */
const buildVolumes = (input: IronicRenderInput, features: readonly IronicFeature[], containers: readonly IContainer[]): IVolume[] => [
  sharedVolume,
  // A scratch volume for each container that mounts its own (override containers may not).
  ...containers.filter((c) => (c.volumeMounts ?? []).some((m) => m.name === scratchVolumeName(c.name))).map((c) => scratchVolume(c.name)),
  ...features.flatMap((f) => f.volumes?.(input) ?? []),
];

/** Pod annotations: a hash per referenced content, so a rotated password or certificate rolls the pods. */
export const restartAnnotations = (input: IronicRenderInput, features: readonly IronicFeature[]): Record<string, string> =>
  features.reduce<Record<string, string>>((annotations, f) => ({ ...annotations, ...f.annotations?.(input) }), {});

/** The pod fields of the features, merged in order. */
const podSpecFields = (input: IronicRenderInput, features: readonly IronicFeature[]): PodSpecFields =>
  features.reduce<PodSpecFields>((fields, f) => ({ ...fields, ...f.podSpec?.(input) }), {});

/**
 * The complete pod template. User labels and annotations come first so that ours win on conflict;
 * user containers, init containers and volumes replace ours by name.
 */
export const buildPodTemplate = (input: IronicRenderInput, all: readonly IronicFeature[]): IPodTemplateSpec => {
  const features = featuresOf(all, input.model);
  const images = ironicImages(input);
  const { overrides, networking } = input.model;
  const host = networking.hostNetwork;
  const initContainers = mergeByName(
    buildAll(input, images, features, (f) => f.initContainers),
    overrides.initContainers,
  );
  const containers = mergeByName(
    buildAll(input, images, features, (f) => f.containers),
    overrides.containers,
  );
  const { securityContext, affinity, terminationGracePeriodSeconds } = podSpecFields(input, features);
  return {
    metadata: {
      labels: { ...overrides.labels, ...selectorLabels(input), ...childLabels(input) },
      annotations: { ...overrides.annotations, ...restartAnnotations(input, features) },
    },
    spec: {
      hostNetwork: host,
      dnsPolicy: host ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
      // NOTE: Ironic never talks to the Kubernetes API (upstream meant this too but lost it in a merge).
      automountServiceAccountToken: false,
      // Service links would add variables such as IRONIC_PORT next to the ones the image reads.
      enableServiceLinks: false,
      ...(securityContext !== undefined && { securityContext }),
      ...(terminationGracePeriodSeconds !== undefined && { terminationGracePeriodSeconds }),
      ...ironicScheduling(input),
      ...(affinity !== undefined && { affinity }),
      ...podPullSecrets(input.model.scheduling.imagePullSecrets, input.config, [...initContainers, ...containers]),
      ...(initContainers.length > 0 && { initContainers }),
      containers,
      volumes: mergeByName(buildVolumes(input, features, [...containers, ...initContainers]), overrides.volumes),
    },
  };
};
