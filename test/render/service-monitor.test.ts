import t from 'tap';
import { syncIronic } from '../../src/hooks/ironic.js';
import type { SyncRequest } from '../../src/api/hook.js';
import { fakeSecrets, ironic, testContext, type Obj } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';

const run = async (spec: Obj, serviceMonitors: boolean) => {
  const base = testContext(fakeSecrets());
  const ctx = { ...base, config: { ...base.config, serviceMonitors } };
  const r = await syncIronic({ parent: ironic(spec), children: {}, related: {} } as unknown as SyncRequest, ctx);
  return r.children.filter((c) => (c as Obj)['kind'] === 'ServiceMonitor') as Obj[];
};

const exporter = { networking: { interface: 'eth1' }, prometheusExporter: { enabled: true, sensorCollectionInterval: 180 } };

t.test('a ServiceMonitor only where the Prometheus Operator is declared, for an enabled exporter', async (t) => {
  const [monitor] = await run(exporter, true);
  t.ok(monitor);
  t.doesNotThrow(() => validateK8s(monitor!));
  t.same((monitor!['spec'] as Obj)['endpoints'], [{ port: 'metrics', path: '/metrics', interval: '180s' }]);
  t.same((monitor!['metadata'] as Obj)['name'], 'ironic-metrics');
  t.same(await run(exporter, false), [], 'not without the Prometheus Operator');
  t.same(await run({ ...exporter, prometheusExporter: { enabled: true, disableServiceMonitor: true } }, true), [], 'not when disabled');
  t.same(await run({ networking: { interface: 'eth1' } }, true), [], 'not without the exporter');
});
