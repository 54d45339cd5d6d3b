/**
 * Convergence: each sync's children are applied the way Metacontroller applies them and fed back as the
 * observed children, its status written back to the parent. After the workload is available, the next
 * response must be byte-for-byte the same: children and status, no new password, hash or timestamp.
 */
import { present } from '../support/paths.js';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { ironicScenarios } from '../fixtures/ironic-scenarios.js';
import { fakeSecrets, testServer, type Obj } from '../helpers/hooks.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { readyStatefulSet } from '../fixtures/database-scenarios.js';
import { scenariosOf } from '../fixtures/scenarios.js';
import { bcryptSecrets } from '../../src/hooks/materialize.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { IRONIC } from '../../src/kinds/ironic.js';

type Response = { status: Obj; children: Obj[] };

const sync = async (app: FastifyInstance, request: Obj): Promise<Response> => {
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: request });
  if (response.statusCode !== 200) throw new Error(`sync answered ${response.statusCode}: ${response.body}`);
  return response.json<Response>();
};

/**
 * Syncs a parent until the response repeats, feeding back its status and its children as observed (each with
 * the status `status` gives it, if any); returns how many rounds differed (6 or more: never stable).
 */
const roundsUntilStable = async (app: FastifyInstance, url: string, first: Obj, status: (o: Obj) => Obj | undefined): Promise<number> => {
  let request = first;
  let previous = '';
  let rounds = 0;
  for (; rounds < 6; rounds += 1) {
    const response = await app.inject({ method: 'POST', url, payload: request });
    const body = response.json<Response>();
    const text = JSON.stringify(body);
    if (text === previous) break;
    previous = text;
    const children = observeAll(body.children, (request['children'] ?? {}) as Record<string, Record<string, Obj>>, status);
    request = { ...request, parent: { ...(request['parent'] as Obj), status: body.status }, children };
  }
  return rounds;
};

/** Runs rounds until the response repeats; returns the number of rounds and the last response. */
const converge = async (app: FastifyInstance, first: Obj, maxRounds = 6): Promise<{ rounds: number; last: Response; stable: boolean }> => {
  let request = first;
  let previous: string | undefined;
  let last: Response | undefined;
  for (let round = 1; round <= maxRounds; round += 1) {
    last = await sync(app, request);
    const text = JSON.stringify(last);
    if (text === previous) return { rounds: round, last, stable: true };
    previous = text;
    const children = observeAll(last.children, (request['children'] ?? {}) as Record<string, Record<string, Obj>>, (o) =>
      o['kind'] === 'Deployment' ? availableDeployment(o) : undefined,
    );
    request = { ...request, parent: { ...(request['parent'] as Obj), status: last.status }, children };
  }
  return { rounds: maxRounds, last: present(last, 'a response'), stable: false };
};

for (const scenario of ironicScenarios) {
  t.test(`ironic/${scenario.name} converges`, async (t) => {
    const secrets = fakeSecrets();
    const app = testServer(secrets, '2026-01-01T00:00:00Z');
    t.teardown(() => app.close());
    const request = await scenario.request(app);
    const hashesBefore = secrets.hashes();
    const passwordsBefore = secrets.passwords();
    const result = await converge(app, request);
    t.ok(result.stable, `stable after ${result.rounds} rounds`);
    t.ok(result.rounds <= 4, 'within four rounds');
    t.ok(secrets.hashes() - hashesBefore <= 1, 'the htpasswd is hashed at most once');
    t.ok(secrets.passwords() - passwordsBefore <= 1, 'a password is generated at most once');
    const caSecrets = result.last.children.filter((c) =>
      ['rpc-ca', 'tls-ca'].includes(String(((c['metadata'] as Obj)['labels'] as Obj | undefined)?.['ironic.metal3.io/component'])),
    ).length;
    t.ok(secrets.cas() <= caSecrets, 'each CA (JSON-RPC, generated certificates) is generated at most once');
  });
}

t.test('a later clock does not move a settled status', async (t) => {
  const secrets = fakeSecrets();
  const early = testServer(secrets, '2026-01-01T00:00:00Z');
  const late = testServer(secrets, '2027-06-01T00:00:00Z');
  t.teardown(async () => {
    await early.close();
    await late.close();
  });
  const request = await present(ironicScenarios[0]).request(early);
  const settled = await converge(early, request);
  const parent = { ...(request['parent'] as Obj), status: settled.last.status };
  const children = observeAll(settled.last.children, {}, (o) => (o['kind'] === 'Deployment' ? availableDeployment(o) : undefined));
  const again = await sync(late, { ...request, parent, children });
  t.same(again, settled.last);
});

t.test('with real bcrypt, the htpasswd is reused once it matches', async (t) => {
  const app = testServer(bcryptSecrets(), '2026-01-01T00:00:00Z');
  t.teardown(() => app.close());
  const request = await present(ironicScenarios[0]).request(app);
  const result = await converge(app, request);
  t.ok(result.stable, `stable after ${result.rounds} rounds`);
  const htpasswd = result.last.children.find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-htpasswd-'));
  const line = Buffer.from(String((htpasswd?.['data'] as Obj)['htpasswd']), 'base64').toString();
  t.match(line, /^ironic:\$2y\$10\$/, 'httpd-compatible bcrypt');
});

t.test('HA with a real CA: two syncs in a row return the same CA and certificates', async (t) => {
  const app = testServer(bcryptSecrets(), '2026-01-01T00:00:00Z');
  t.teardown(() => app.close());
  const scenario = ironicScenarios.find((s) => s.name === 'ha-minimal');
  const request = await present(scenario).request(app);
  const first = await sync(app, request);
  const children = observeAll(first.children, {}, () => undefined);
  const second = await sync(app, { ...request, parent: { ...(request['parent'] as Obj), status: first.status }, children });
  const ca = (r: Response) => r.children.filter((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-rpc-ca-'));
  t.equal(ca(first).length, 1);
  t.same(ca(second), ca(first), 'the CA Secret is identical');
  t.same(second.children, first.children, 'and so is everything else');
});

/** The status Kubernetes gives a workload a parent renders: Deployments available, StatefulSets ready; none for the rest. */
const workloadReady = (o: Obj): Obj | undefined =>
  o['kind'] === 'Deployment' ? availableDeployment(o) : o['kind'] === 'StatefulSet' ? readyStatefulSet(o) : undefined;

// Ironic's scenarios converge under the stricter checks above; every other kind's here.
for (const kind of PARENT_KINDS.filter((k) => k !== IRONIC)) {
  t.test(`${kind.kind} scenarios converge too`, async (t) => {
    const scenarios = scenariosOf(kind);
    t.ok(scenarios.length > 0, `${kind.kind} has scenarios in test/fixtures/scenarios.ts`);
    for (const scenario of scenarios) {
      const secrets = fakeSecrets();
      const app = testServer(secrets, undefined, scenario.env ?? {});
      const first = await scenario.request(app);
      const rounds = await roundsUntilStable(app, `/${kind.hookPath}/sync`, first, workloadReady);
      t.ok(rounds < 6, `${scenario.name}: stable after ${rounds + 1} rounds`);
      t.ok(secrets.passwords() <= 2, `${scenario.name}: a password is generated at most once per fresh start`);
      await app.close();
    }
  });
}
