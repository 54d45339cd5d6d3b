/**
 * A 37.0 → 38.0 upgrade with a database, walked step by step through simulated observed Job and
 * Deployment states, plus a failed pre-upgrade Job and a refused downgrade.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { ironic, syncBody, testServer, type Obj, type SyncBody } from '../helpers/hooks.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { objAt, objsAt, present } from '../support/paths.js';

type Response = SyncBody;
type Observed = Record<string, Record<string, Obj>>;

const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };
const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };

const sync = async (app: FastifyInstance, parent: Obj, children: Observed): Promise<Response> => {
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children, related: {} } });
  t.equal(response.statusCode, 200);
  return syncBody(response);
};

const names = (r: Response, kind: string): string[] => r.children.filter((c) => c['kind'] === kind).map((c) => String(objAt(c, 'metadata')['name']));
const image = (r: Response): string => {
  const d = present(r.children.find((c) => c['kind'] === 'Deployment'));
  const containers = objsAt(d, 'spec', 'template', 'spec', 'containers');
  return String(containers[0]?.['image']);
};
const ready = (r: Response): Obj => present(r.status.conditions[0], 'the Ready condition');

/** Applies a response; Jobs and the Deployment get the states the test chooses. */
const apply = (r: Response, previous: Observed, states: { deployment?: boolean; jobs?: Record<string, 'Complete' | 'Failed' | 'Running'> }): Observed =>
  observeAll(r.children, previous, (o) => {
    const name = String(objAt(o, 'metadata')['name']);
    if (o['kind'] === 'Deployment') return states.deployment === true ? availableDeployment(o) : { observedGeneration: 0 };
    if (o['kind'] === 'Job') {
      const state = states.jobs?.[name] ?? 'Running';
      return state === 'Running'
        ? { active: 1 }
        : { conditions: [{ type: state, status: 'True', message: state === 'Failed' ? 'BackoffLimitExceeded' : undefined }] };
    }
    return undefined;
  });

const installedAt = async (app: FastifyInstance, version: string): Promise<{ parent: Obj; children: Observed }> => {
  const status = {
    requestedVersion: version,
    installedVersion: version,
    conditions: [{ type: 'Ready', status: 'True', reason: 'DeploymentAvailable', message: 'ok', lastTransitionTime: '2025-12-01T00:00:00Z' }],
  };
  const parent = ironic({ networking: provisioning, database, version }, { status });
  const first = await sync(app, parent, {});
  return { parent, children: apply(first, {}, { deployment: true }) };
};

t.test('37.0 → 38.0 with a database, step by step', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const start = await installedAt(app, '37.0');
  const steady = await sync(app, start.parent, start.children);
  t.same(names(steady, 'Job'), [], 'no Job once installed');
  t.equal(ready(steady)['status'], 'True');

  let parent: Obj = {
    ...start.parent,
    spec: { ...objAt(start.parent, 'spec'), version: '38.0' },
    metadata: { ...objAt(start.parent, 'metadata'), generation: 2 },
  };
  // 1. The pre-upgrade Job is created; the Deployment stays on 37.0.
  let r = await sync(app, parent, start.children);
  t.same(names(r, 'Job'), ['ironic-pre-37.0-to-38.0']);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0', 'the workload does not move before the schema');
  t.equal(ready(r)['status'], 'False');
  t.equal(r.status['requestedVersion'], '38.0');
  t.equal(r.status['installedVersion'], '37.0');
  parent = { ...parent, status: r.status };
  let observed = apply(r, start.children, { deployment: true });

  // 2. The Job runs: nothing else moves.
  r = await sync(app, parent, observed);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');
  t.match(String(ready(r)['message']), /pre-upgrade job ironic-pre-37.0-to-38.0 is not complete/);

  // 3. The Job completes: the Deployment moves to 38.0; the Job stays in the response.
  observed = apply(r, observed, { deployment: true, jobs: { 'ironic-pre-37.0-to-38.0': 'Complete' } });
  r = await sync(app, parent, observed);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-38.0');
  t.same(names(r, 'Job'), ['ironic-pre-37.0-to-38.0']);
  t.equal(ready(r)['status'], 'False');
  observed = apply(r, observed, { deployment: false, jobs: { 'ironic-pre-37.0-to-38.0': 'Complete' } });
  r = await sync(app, { ...parent, status: r.status }, observed);
  t.match(String(ready(r)['message']), /deployment ironic-service/, 'waits for the rollout');
  t.same(names(r, 'Job'), ['ironic-pre-37.0-to-38.0'], 'no post-upgrade Job before the rollout');

  // 4. The Deployment is available on 38.0: the post-upgrade Job runs while it serves.
  observed = apply(r, observed, { deployment: true, jobs: { 'ironic-pre-37.0-to-38.0': 'Complete' } });
  r = await sync(app, { ...parent, status: r.status }, observed);
  t.same(names(r, 'Job'), ['ironic-pre-37.0-to-38.0', 'ironic-post-37.0-to-38.0']);
  t.equal(ready(r)['status'], 'False');
  t.equal(r.status['installedVersion'], '37.0', 'installedVersion moves only with Ready=True');

  // 5. The post-upgrade Job completes: Ready, installedVersion 38.0.
  observed = apply(r, observed, { deployment: true, jobs: { 'ironic-pre-37.0-to-38.0': 'Complete', 'ironic-post-37.0-to-38.0': 'Complete' } });
  r = await sync(app, { ...parent, status: r.status }, observed);
  t.equal(ready(r)['status'], 'True');
  t.equal(r.status['installedVersion'], '38.0');
  t.equal(r.status['requestedVersion'], '38.0');

  // 6. Installed: the Jobs leave the response (Metacontroller deletes them) and nothing else changes.
  const done = await sync(app, { ...parent, status: r.status }, observed);
  t.same(names(done, 'Job'), []);
  t.equal(ready(done)['status'], 'True');
  t.equal(image(done), 'quay.io/metal3-io/ironic:release-38.0');
});

t.test('the first install with a database runs the upgrade Jobs from none', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const r = await sync(app, ironic({ networking: provisioning, database }), {});
  t.same(names(r, 'Job'), ['ironic-pre-none-to-38.0']);
  t.same(names(r, 'Deployment'), [], 'no workload before the schema exists');
  t.match(names(r, 'Secret').sort(), ['ironic-api-credentials', 'ironic-clouds', /^ironic-htpasswd-[0-9a-f]{10}$/], 'credentials are created right away');
});

t.test('a failed pre-upgrade Job is reported and holds the workload back', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const start = await installedAt(app, '37.0');
  const parent = { ...start.parent, spec: { ...objAt(start.parent, 'spec'), version: '38.0' } };
  const r1 = await sync(app, parent, start.children);
  const observed = apply(r1, start.children, { deployment: true, jobs: { 'ironic-pre-37.0-to-38.0': 'Failed' } });
  const r = await sync(app, { ...parent, status: r1.status }, observed);
  t.equal(ready(r)['reason'], 'DeploymentFailed');
  t.match(String(ready(r)['message']), /pre-upgrade job ironic-pre-37.0-to-38.0 failed: BackoffLimitExceeded; fix the cause, then delete the job/);
  t.same(names(r, 'Job'), ['ironic-pre-37.0-to-38.0'], 'the failed Job is kept for its logs');
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');
  t.equal(r.status['installedVersion'], '37.0');
});

t.test('a downgrade with a database is refused and changes nothing', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const start = await installedAt(app, '38.0');
  const parent = { ...start.parent, spec: { ...objAt(start.parent, 'spec'), version: '37.0' } };
  const r = await sync(app, parent, start.children);
  t.equal(ready(r)['status'], 'False');
  t.equal(ready(r)['reason'], 'DeploymentFailed');
  t.match(String(ready(r)['message']), /cannot be downgraded to 37.0 with a database/);
  t.equal(r.status['requestedVersion'], '38.0', 'requestedVersion unchanged');
  t.equal(r.status['installedVersion'], '38.0');
  t.same(names(r, 'Job'), []);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-38.0');
});

t.test('without a database a downgrade is allowed and no Job runs', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const status = { requestedVersion: '38.0', installedVersion: '38.0' };
  const r = await sync(app, ironic({ networking: provisioning, version: '37.0' }, { status }), {});
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');
  t.same(names(r, 'Job'), []);
});

t.test('latest → 38.0 is not a downgrade', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const start = await installedAt(app, 'latest');
  const r = await sync(app, { ...start.parent, spec: { ...objAt(start.parent, 'spec'), version: '38.0' } }, start.children);
  t.same(names(r, 'Job'), ['ironic-pre-latest-to-38.0']);
});
