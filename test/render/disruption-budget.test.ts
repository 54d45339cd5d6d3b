/**
 * The PodDisruptionBudget of a high-availability Ironic: evictions take its DaemonSet's pods one node at a
 * time; a single-replica Ironic has none. customize asks for its name, so that an object in the way is seen.
 */
import t from 'tap';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { customizeIronic } from '../../src/hooks/ironic.js';
import { IRONIC } from '../../src/kinds/ironic.js';
import { customizeRequest, ironic } from '../helpers/hooks.js';
import { childOf, syncFor } from '../helpers/render.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { validateK8s } from '../helpers/k8s.js';
import { objAt } from '../support/paths.js';

const DB_SECRET = secret('db-creds', { username: 'u', password: 'p' });
const HA = { highAvailability: true, database: { host: 'mariadb', name: 'ironic', credentialsName: 'db-creds' } };

const budgetsOf = (children: readonly unknown[]): IPodDisruptionBudget[] =>
  children.filter((c): c is IPodDisruptionBudget => objAt(c)['kind'] === 'PodDisruptionBudget');

t.test('an HA Ironic gets a budget of one unavailable pod over exactly its DaemonSet pods', async (t) => {
  const { children } = await syncFor(HA, [DB_SECRET]);
  const budgets = budgetsOf(children);
  t.equal(budgets.length, 1);
  const budget = budgets[0];
  const daemonSet = childOf(children, 'DaemonSet', 'ironic-service');
  t.ok(daemonSet, 'the DaemonSet is rendered');
  t.equal(budget?.metadata?.name, 'ironic-service');
  t.equal(budget?.metadata?.namespace, 'metal3');
  t.equal(budget?.spec?.maxUnavailable, 1, 'one node at a time, like the rolling update');
  t.equal(budget?.spec?.minAvailable, undefined, 'no minimum: a budget may not set both');
  t.equal(daemonSet?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable, 1, 'the same pace as the DaemonSet rollout');
  t.same(budget?.spec?.selector, daemonSet?.spec?.selector, "the DaemonSet's own selector");
  const podLabels = daemonSet?.spec?.template.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(budget?.spec?.selector?.matchLabels ?? {})) t.equal(podLabels[key], value, `the pods carry ${key}`);
  t.equal(budget?.spec?.unhealthyPodEvictionPolicy, 'AlwaysAllow', 'a pod that is not ready never holds a drain');
  t.doesNotThrow(() => validateK8s(objAt(budget)), 'a valid policy/v1 PodDisruptionBudget');
});

t.test('a single-replica Ironic has no budget (it could only block every drain or allow all)', async (t) => {
  const { children } = await syncFor({});
  t.same(budgetsOf(children), []);
  t.ok(childOf(children, 'Deployment', 'ironic-service'), 'the Deployment is rendered');
});

t.test('customize asks for the name of the budget only in HA; the Ironic controller declares the child type', async (t) => {
  const rules = (spec: unknown) =>
    customizeIronic(customizeRequest({ parent: { ...ironic({}), spec }, related: related(DB_SECRET) })).relatedResources.filter(
      (r) => r.resource === 'poddisruptionbudgets',
    );
  t.same(rules(HA), [{ apiVersion: 'policy/v1', resource: 'poddisruptionbudgets', namespace: 'metal3', names: ['ironic-service'] }]);
  t.same(rules({}), []);
  t.ok(
    IRONIC.childTypes.some((c) => c.type.resource === 'poddisruptionbudgets' && c.type.apiVersion === 'policy/v1' && c.strategy === 'InPlace'),
    'policy/v1 poddisruptionbudgets, InPlace',
  );
});
