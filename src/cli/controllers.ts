/**
 * The CompositeControllers, one per parent kind (src/kinds), as deploy/ declares them (a test keeps the
 * two in step): parent type, hook paths, child types with their update strategies, and the finalize
 * hook. All use generateSelector. The child types include those of the deploy overlays (the
 * ServiceMonitor of the servicemonitor overlay), so the render shows every child.
 */
import { groupKeyOfType } from '../api/shared/resource-types.js';
import { IRONIC } from '../kinds/ironic.js';
import { IRONIC_DATABASE } from '../kinds/ironic-database.js';
import { inSyncOrder, PARENT_KINDS, type ParentKind, type UpdateStrategy } from '../kinds/index.js';

export type { UpdateStrategy } from '../kinds/index.js';

export type ChildType = { readonly group: string; readonly strategy: UpdateStrategy };

export type ControllerSpec = {
  /** metadata.name of the CompositeController; the finalizer is `metacontroller.io/compositecontroller-<name>`. */
  readonly name: string;
  /** Group key of the parent, e.g. `Ironic.ironic.metal3.io/v1alpha1`. */
  readonly parentGroup: string;
  /** Hook paths: `<hookPath>/customize`, `<hookPath>/sync`, `<hookPath>/finalize`. */
  readonly hookPath: string;
  readonly childTypes: readonly ChildType[];
  /** Whether a finalize hook is declared (and so Metacontroller's finalizer is put on every parent). */
  readonly finalize: boolean;
};

/** The CompositeController of a parent kind, overlay child types included. */
export const controllerOf = (kind: ParentKind): ControllerSpec => ({
  name: kind.controllerName,
  parentGroup: kind.groupKey,
  hookPath: `/${kind.hookPath}`,
  childTypes: kind.childTypes.map((child) => ({ group: groupKeyOfType(child.type), strategy: child.strategy })),
  finalize: true,
});

export const IRONIC_CONTROLLER: ControllerSpec = controllerOf(IRONIC);

export const IRONIC_DATABASE_CONTROLLER: ControllerSpec = controllerOf(IRONIC_DATABASE);

/** Every CompositeController, in sync order (databases first: an Ironic reads the status its IronicDatabase got in the same round). */
export const CONTROLLERS: readonly ControllerSpec[] = inSyncOrder(PARENT_KINDS).map(controllerOf);

export const finalizerOf = (controller: ControllerSpec): string => `metacontroller.io/compositecontroller-${controller.name}`;
