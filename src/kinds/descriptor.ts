/**
 * The shape of a parent kind's descriptor: everything the server, the CRD generator, the
 * CompositeController model, the render CLI, the bench and the test emulator need to know about one
 * kind. Each of them iterates the list in src/kinds/index.ts, so adding a kind is adding a descriptor
 * (with its schemas, renderers and hooks).
 */
import type { TSchema } from '@sinclair/typebox';
import type { CustomizeRequest, CustomizeResponse, SyncRequest, SyncResponse } from '../api/shared/hook.js';
import type { UsedBy } from '../api/used-by.js';
import type { CelRule, PrinterColumn } from '../crd/crd.js';
import type { HookContext } from '../hooks/context.js';
import { groupKeyOfType, JOBS, MARIADB_RESTORES, PERSISTENT_VOLUME_CLAIMS, SECRETS, type ResourceType } from '../api/shared/resource-types.js';

/** Metacontroller's child update methods (the Rolling ones are not used here). */
export type UpdateStrategy = 'OnDelete' | 'Recreate' | 'InPlace';

/** A child type of a parent's CompositeController. */
export type ChildResource = {
  readonly type: ResourceType;
  readonly strategy: UpdateStrategy;
  /**
   * The deploy overlay that declares this type (e.g. `servicemonitor`, for clusters with the Prometheus
   * Operator); absent when the base CompositeController declares it.
   */
  readonly overlay?: string;
};

/** The three hooks of a parent kind, with the signatures the routes call them with. */
export type KindHooks = {
  readonly customize: (request: CustomizeRequest) => CustomizeResponse;
  readonly sync: (request: SyncRequest, ctx: HookContext) => Promise<SyncResponse> | SyncResponse;
  readonly finalize: (request: SyncRequest, ctx: HookContext) => Promise<SyncResponse> | SyncResponse;
};

/** What the CRD adds to the spec and status schemas. */
export type CrdExtras = {
  /** The description of the whole object (`kubectl explain <kind>`). */
  readonly description: string;
  readonly columns: readonly PrinterColumn[];
  /** CEL rules on the whole object (e.g. name length limits that children names inherit). */
  readonly rules?: readonly CelRule[];
};

/**
 * One parent kind. `Label` is the kind's metric label, kept literal so that the metrics' label type is
 * the union of the descriptors' labels.
 */
export type ParentKind<Label extends string = string> = {
  /** `kind`, e.g. `Ironic`. */
  readonly kind: string;
  /** `apiVersion` of the objects: `ironic.metal3.io/v1alpha1`. */
  readonly apiVersion: string;
  /** The plural resource name, e.g. `ironics`; also the CRD's file and metadata.name. */
  readonly plural: string;
  /** The path segment of the hook routes: `POST /<hookPath>/{customize,sync,finalize}`. */
  readonly hookPath: string;
  /** The group key of Metacontroller's object maps, `Kind.group/version`. */
  readonly groupKey: string;
  readonly spec: TSchema;
  readonly status: TSchema;
  readonly crd: CrdExtras;
  readonly hooks: KindHooks;
  /** The child types its CompositeController declares, in the manifest's order. */
  readonly childTypes: readonly ChildResource[];
  /** metadata.name of its CompositeController; Metacontroller's finalizer is `metacontroller.io/compositecontroller-<name>`. */
  readonly controllerName: string;
  /** The `kind` label of the hook metrics. */
  readonly metricLabel: Label;
  /** Lower syncs first when a round replays every parent (a database before the Ironic that reads its status). */
  readonly syncOrder: number;
  /**
   * For a kind that Ironics name in their spec: how they name it (src/api/used-by.ts). Its status lists
   * them, its finalize waits for them, and deploy/admission has the policy that refuses deleting an
   * object still in use (src/crd/in-use-policy.ts). Absent for a kind no Ironic names.
   */
  readonly usedBy?: UsedBy;
};

/** The identity fields of a kind of the ironic.metal3.io group: apiVersion and group key from the kind. */
export const parentIdentity = (type: ResourceType): Pick<ParentKind, 'kind' | 'apiVersion' | 'groupKey' | 'plural'> => ({
  kind: type.kind,
  apiVersion: type.apiVersion,
  groupKey: groupKeyOfType(type),
  plural: type.resource,
});

/**
 * NOTE: generated Secrets are OnDelete (a sync that missed the live object can never overwrite a password
 * in use); Jobs are OnDelete (their pod template is immutable); PersistentVolumeClaims are OnDelete (their spec
 * is immutable but for a size that only grows: a claim is never replaced, its data stays); a mariadb-operator
 * Restore is OnDelete (it runs once; its source is immutable); everything else is updated in place.
 */
const ON_DELETE: readonly ResourceType[] = [SECRETS, JOBS, PERSISTENT_VOLUME_CLAIMS, MARIADB_RESTORES];

const strategyOf = (type: ResourceType): UpdateStrategy => (ON_DELETE.some((t) => groupKeyOfType(t) === groupKeyOfType(type)) ? 'OnDelete' : 'InPlace');

/** Child types with the project's update strategies, declared by the base CompositeController. */
export const children = (...types: readonly ResourceType[]): ChildResource[] => types.map((type) => ({ type, strategy: strategyOf(type) }));

/** Child types with the project's update strategies, declared by a deploy overlay only. */
export const overlayChildren = (overlay: string, ...types: readonly ResourceType[]): ChildResource[] =>
  children(...types).map((child) => ({ ...child, overlay }));
