import t from 'tap';
import { syncIronic } from '../../src/hooks/ironic.js';
import { fakeSecrets, ironic, syncRequest, testContext, type Obj } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';
import { objAt, objsAt, present } from '../support/paths.js';

const run = async (spec: Obj, serviceMonitors: boolean) => {
  const base = testContext(fakeSecrets());
  const ctx = { ...base, config: { ...base.config, serviceMonitors } };
  const r = await syncIronic(syncRequest({ parent: ironic(spec), children: {}, related: {} }), ctx);
  return objsAt(r, 'children').filter((c) => c['kind'] === 'ServiceMonitor');
};

const exporter = { networking: { interface: 'eth1' }, prometheusExporter: { enabled: true, sensorCollectionInterval: 180 } };

t.test('a ServiceMonitor only where the Prometheus Operator is declared, for an enabled exporter', async (t) => {
  const [monitor] = await run(exporter, true);
  t.ok(monitor);
  t.doesNotThrow(() => validateK8s(present(monitor)));
  t.same(objAt(monitor, 'spec')['endpoints'], [{ port: 'metrics', path: '/metrics', interval: '180s' }]);
  t.same(objAt(monitor, 'metadata')['name'], 'ironic-metrics');
  t.same(await run(exporter, false), [], 'not without the Prometheus Operator');
  t.same(await run({ ...exporter, prometheusExporter: { enabled: true, disableServiceMonitor: true } }, true), [], 'not when disabled');
  t.same(await run({ networking: { interface: 'eth1' } }, true), [], 'not without the exporter');
});
