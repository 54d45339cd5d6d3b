/**
 * What a production install sets on every pod an Ironic runs: the Ironic workload (Deployment or
 * DaemonSet), the upgrade Jobs and the networking service.
 */
import t from 'tap';
import { syncIronic } from '../../src/hooks/ironic.js';
import type { SyncRequest } from '../../src/api/hook.js';
import { ironic, testContext, type Obj } from '../helpers/hooks.js';
import { syncFor, type PodSpec } from '../helpers/render.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };

/** Every pod template of the children, by `<kind> <name>`. */
const podsOf = (children: readonly unknown[]): Record<string, PodSpec> =>
  Object.fromEntries(
    (children as Obj[]).flatMap((c) => {
      const template = (c['spec'] as Obj | undefined)?.['template'] as Obj | undefined;
      return template === undefined ? [] : [[`${String(c['kind'])} ${String((c['metadata'] as Obj)['name'])}`, template['spec'] as PodSpec]];
    }),
  );

/** A first install with a database: the pre-upgrade Job is rendered. */
const firstInstall = async (spec: Obj) => syncIronic({ parent: ironic(spec), children: {}, related: {} } as SyncRequest, testContext());

t.test('priorityClassName reaches every pod: workload, networking service, upgrade Jobs', async (t) => {
  const cases: { name: string; pods: Record<string, PodSpec>; expected: string[] }[] = [
    {
      name: 'Deployment and networking',
      pods: podsOf((await syncFor({ networking: provisioning, networkingService: { enabled: true }, priorityClassName: 'ironic-critical' })).children),
      expected: ['Deployment ironic-service', 'Deployment ironic-networking'],
    },
    {
      name: 'DaemonSet',
      pods: podsOf((await syncFor({ highAvailability: true, database, priorityClassName: 'ironic-critical' })).children),
      expected: ['DaemonSet ironic-service'],
    },
    { name: 'upgrade Job', pods: podsOf((await firstInstall({ networking: provisioning, database, priorityClassName: 'ironic-critical' })).children), expected: ['Job ironic-pre-none-to-38.0'] },
  ];
  for (const c of cases) {
    t.same(Object.keys(c.pods).sort(), [...c.expected].sort(), `${c.name}: the pods rendered`);
    for (const [name, pod] of Object.entries(c.pods)) t.equal(pod['priorityClassName'], 'ironic-critical', `${c.name}: ${name}`);
  }
  const none = podsOf((await syncFor({ networking: provisioning, priorityClassName: '' })).children);
  t.notOk('priorityClassName' in (none['Deployment ironic-service'] ?? {}), 'an empty priorityClassName is unset');
});
