/**
 * The controllers built into ironic-render are the ones deploy/metacontroller declares (plus the
 * ServiceMonitor child type of the servicemonitor overlay).
 */
import t from 'tap';
import { CONTROLLERS, finalizerOf } from '../../src/cli/controllers.js';
import { deployedControllers } from '../support/controllers.js';

t.test('the built-in controllers match the deployed CompositeControllers', async (t) => {
  const deployed = deployedControllers();
  t.same(
    CONTROLLERS.map((c) => ({ ...c, childTypes: c.childTypes.filter((ct) => ct.group !== 'ServiceMonitor.monitoring.coreos.com/v1') })),
    deployed,
  );
  t.same(CONTROLLERS.map(finalizerOf), ['metacontroller.io/compositecontroller-ironicdatabase', 'metacontroller.io/compositecontroller-ironic']);
});
