/**
 * The controllers built into ironic-render are the ones deploy/ declares (plus the child types of the
 * deploy overlays, such as the ServiceMonitor of the servicemonitor overlay).
 */
import t from 'tap';
import { CONTROLLERS, finalizerOf } from '../../src/cli/controllers.js';
import { inSyncOrder, PARENT_KINDS } from '../../src/kinds/index.js';
import { groupKeyOfType } from '../../src/api/shared/resource-types.js';
import { deployedControllers } from '../support/controllers.js';

/** Whether only a deploy overlay declares a child type of a parent. */
const overlayOnly = (parentGroup: string, group: string): boolean =>
  PARENT_KINDS.some((k) => k.groupKey === parentGroup && k.childTypes.some((c) => c.overlay !== undefined && groupKeyOfType(c.type) === group));

t.test('the built-in controllers match the deployed CompositeControllers', async (t) => {
  t.ok(overlayOnly('Ironic.ironic.metal3.io/v1alpha1', 'ServiceMonitor.monitoring.coreos.com/v1'), 'the ServiceMonitor is overlay-only');
  t.same(
    CONTROLLERS.map((c) => ({ ...c, childTypes: c.childTypes.filter((ct) => !overlayOnly(c.parentGroup, ct.group)) })),
    deployedControllers(),
  );
  t.same(
    CONTROLLERS.map(finalizerOf),
    inSyncOrder(PARENT_KINDS).map((k) => `metacontroller.io/compositecontroller-${k.controllerName}`),
    "Metacontroller's finalizer of each controller, named after it",
  );
});

t.test('the controllers are in sync order, one per parent kind', async (t) => {
  t.same(
    CONTROLLERS.map((c) => c.parentGroup),
    inSyncOrder(PARENT_KINDS).map((k) => k.groupKey),
  );
  t.same(inSyncOrder([{ syncOrder: 2 }, { syncOrder: 1 }, { syncOrder: 3 }]), [{ syncOrder: 1 }, { syncOrder: 2 }, { syncOrder: 3 }]);
});
