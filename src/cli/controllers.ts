/**
 * The two CompositeControllers as deploy/metacontroller declares them (a test keeps the two in step):
 * parent type, hook paths, child types with their update strategies, and the finalize hook. Both use
 * generateSelector.
 */
import { GROUP_KEYS } from '../api/hook.js';

/** Metacontroller's child update methods (the Rolling ones are not used here). */
export type UpdateStrategy = 'OnDelete' | 'Recreate' | 'InPlace';

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

/**
 * Generated Secrets are OnDelete (a sync that missed the live object can never overwrite a password in
 * use); Jobs are OnDelete (their pod template is immutable); everything else is updated in place.
 */
const ON_DELETE = new Set<string>([GROUP_KEYS.secret, GROUP_KEYS.job]);

const children = (...groups: string[]): ChildType[] => groups.map((group) => ({ group, strategy: ON_DELETE.has(group) ? 'OnDelete' : 'InPlace' }));

export const IRONIC_CONTROLLER: ControllerSpec = {
  name: 'ironic',
  parentGroup: GROUP_KEYS.ironic,
  hookPath: '/ironic',
  // ServiceMonitor: declared by the deploy/overlays/servicemonitor overlay; an empty group otherwise.
  childTypes: children(GROUP_KEYS.secret, GROUP_KEYS.service, GROUP_KEYS.deployment, GROUP_KEYS.daemonSet, GROUP_KEYS.job, GROUP_KEYS.ingress, GROUP_KEYS.serviceMonitor),
  finalize: true,
};

export const IRONIC_DATABASE_CONTROLLER: ControllerSpec = {
  name: 'ironicdatabase',
  parentGroup: GROUP_KEYS.ironicDatabase,
  hookPath: '/ironicdatabase',
  childTypes: children(GROUP_KEYS.secret, GROUP_KEYS.configMap, GROUP_KEYS.statefulSet, GROUP_KEYS.service),
  finalize: true,
};

/** Databases first: an Ironic reads the status its IronicDatabase got in the same round. */
export const CONTROLLERS: readonly ControllerSpec[] = [IRONIC_DATABASE_CONTROLLER, IRONIC_CONTROLLER];

export const finalizerOf = (controller: ControllerSpec): string => `metacontroller.io/compositecontroller-${controller.name}`;
