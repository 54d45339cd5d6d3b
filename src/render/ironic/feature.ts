/**
 * The feature record: one part of an Ironic (a container, a sidecar, a certificate issuer, the networking
 * service, ...) and everything it contributes, in one place. The pod, the children, the plan and customize
 * fold over one list of records: every file of features/ holds one, and the hook server loads them all and
 * puts them in `order` (feature-list.ts), so a new part is one file plus its tests.
 *
 * A feature never imports another feature nor an assembler (pod.ts, children.ts, plan.ts): what several
 * features share lives on the floor below (facts.ts, volumes.ts, common-env.ts, probes.ts, subjects.ts) or
 * in src/render/shared.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { ObjectReference } from '../../api/shared/references.js';
import type { ClientAccess } from '../../api/ironic/schema.js';
import type { KubeObject } from '../../api/shared/hook.js';
import type { IronicModel } from '../../api/ironic/model.js';
import type { Rendered } from '../child.js';
import type { IronicNames } from '../names.js';
import type { Wanted } from '../ownership.js';
import type { FeatureImage } from '../config.js';
import type { IronicImages } from './facts.js';
import type { IronicRenderInput, SecretRead } from './input.js';

/** What features add to the containers of other features, by container name. */
export type ContainerAdditions<T> = Readonly<Record<string, readonly T[]>>;

/**
 * What a container builder receives besides the input: the images, and what the other features add to this
 * container (variables go before the user's proxy and extraConfig, so that those still win).
 */
export type ContainerContext = {
  readonly images: IronicImages;
  readonly env: readonly IEnvVar[];
  readonly mounts: readonly IVolumeMount[];
};

/** A container of the pod, built with what the other features add to it (nothing when the input lacks what it needs). */
export type ContainerBuilder = { readonly name: string; readonly build: (input: IronicRenderInput, context: ContainerContext) => IContainer | undefined };

/** The pod-level fields a feature may set (placement, the pod's security context, the time it has to stop). */
export type PodSpecFields = Pick<IPodSpec, 'affinity' | 'securityContext' | 'terminationGracePeriodSeconds'>;

/**
 * One feature. Every member is optional but `name`, `order` and `applies`; a member that a feature does not
 * have contributes nothing. The order of the list is the order of containers, init containers, volumes,
 * added variables and mounts, and children.
 */
export type IronicFeature = {
  /** A short name, unique in the list (tests and errors name features by it). */
  readonly name: string;
  /**
   * Where the feature goes in the list, ascending and unique: its containers, init containers (which run in
   * this order), volumes and children go among the others' by it. The features use multiples of 10, so a
   * new one takes a number in between.
   */
  readonly order: number;
  /** Whether this Ironic has the feature. Nothing else of the record is called when it does not. */
  readonly applies: (model: IronicModel) => boolean;
  /** Containers of the Ironic pod, in order. */
  readonly containers?: readonly ContainerBuilder[];
  /** The images its containers run besides Ironic's (each with its spec.images field and hook-server setting). */
  readonly images?: readonly FeatureImage[];
  /** Init containers of the Ironic pod, in order (they run in the list's order). */
  readonly initContainers?: readonly ContainerBuilder[];
  /** Volumes of the Ironic pod. */
  readonly volumes?: (input: IronicRenderInput) => IVolume[];
  /** Variables for containers of other features, by container name. */
  readonly env?: (input: IronicRenderInput) => ContainerAdditions<IEnvVar>;
  /** Mounts for containers of other features, by container name. */
  readonly mounts?: (input: IronicRenderInput) => ContainerAdditions<IVolumeMount>;
  /** Pod-template annotations: a hash of content whose change must roll the pods. */
  readonly annotations?: (input: IronicRenderInput) => Readonly<Record<string, string>>;
  /** Annotations of the workload object itself (not of its pods, so they roll nothing): facts the plan reads back. */
  readonly workloadAnnotations?: (input: IronicRenderInput) => Readonly<Record<string, string>>;
  /** Pod-level fields (merged in list order; a later feature's field wins). */
  readonly podSpec?: (input: IronicRenderInput) => PodSpecFields;
  /** Children of the Ironic this feature renders (Secrets, ConfigMaps, Services, a Deployment, ...). */
  readonly children?: (input: IronicRenderInput) => readonly (Rendered | undefined)[];
  /** Children whose names are fixed by the parent's name: one held by another object is a conflict. */
  readonly wanted?: (model: IronicModel, names: IronicNames) => readonly Wanted[];
  /** Whether a Secret name is one this feature renders (a missing one means Metacontroller's cache lags). */
  readonly ownsSecret?: (names: IronicNames, secretName: string) => boolean;
  /**
   * Secret names this feature takes without rendering them (filled by another operator or the user for it):
   * like its own, no other Secret of the spec may have them.
   */
  readonly takesSecret?: (names: IronicNames, secretName: string) => boolean;
  /** Keys of Secrets the spec names that this feature renders with (customize fetches them; the sync checks them). */
  readonly readsSecrets?: (model: IronicModel) => readonly SecretRead[];
  /** Objects customize must fetch besides those the spec names (e.g. a Secret another operator fills). */
  readonly references?: (model: IronicModel, names: IronicNames) => readonly ObjectReference[];
  /** Whether the sync must wait for something outside the hooks before it renders (the first feature's wait wins). */
  readonly waitFor?: (input: IronicRenderInput, observed: ObservedChild) => FeatureWait | undefined;
  /** Secrets of this feature replaced (deleted, then created) rather than updated when their content changes. */
  readonly replacedOnChange?: (model: IronicModel, names: IronicNames) => readonly string[];
  /** What clients need to reach this Ironic, for status.access (the first feature that tells wins). */
  readonly access?: (input: IronicRenderInput) => ClientAccess;
};

/**
 * A feature that waits for something outside the hooks (cert-manager issuing a certificate): every other child
 * is kept as observed, the feature's own children of `kinds` are rendered meanwhile, and the parent says why.
 */
export type FeatureWait = {
  readonly message: string;
  readonly kinds: readonly string[];
  readonly children: readonly Rendered[];
  readonly resyncAfterSeconds: number;
};

/** An observed child of the Ironic, by group key (`Certificate.cert-manager.io/v1`) and name. */
export type ObservedChild = (group: string, name: string) => KubeObject | undefined;

/** The features an Ironic has, in list order. */
export const featuresOf = (features: readonly IronicFeature[], model: IronicModel): IronicFeature[] => features.filter((f) => f.applies(model));
