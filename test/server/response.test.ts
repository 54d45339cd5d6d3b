import t from 'tap';
import { checkCustomizeResponse, checkSyncResponse, ResponseShapeError } from '../../src/server/response.js';
import { PARENT_KINDS, type ParentKind } from '../../src/kinds/index.js';
import { fakeSecrets, ironic, syncRequest as syncRequestOf, testContext, type Obj } from '../helpers/hooks.js';
import { observedChildren, scenarios, syncRequest } from '../../src/bench/payloads.js';
import { syncedChildren } from '../fixtures/ironic-scenarios.js';
import { server } from './support.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
/** The smallest parent of a kind: an empty spec. */
const smallest = (kind: ParentKind): Obj => ({
  apiVersion: kind.apiVersion,
  kind: kind.kind,
  metadata: { name: 'smallest', namespace: 'metal3', generation: 1 },
  spec: {},
});
const SYNC_KEYS = ['children', 'finalized', 'resyncAfterSeconds', 'status'];

t.test('every hook answers with exactly the keys Metacontroller v2 accepts', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const deleting = { metadata: { name: 'ironic', namespace: 'metal3', deletionTimestamp: '2026-01-01T00:00:00Z' } };
  const calls: { url: string; payload: Obj }[] = [
    { url: '/ironic/sync', payload: { parent: ironic({ networking: provisioning }), children, related: {} } },
    { url: '/ironic/sync', payload: { parent: ironic({ networking: { interface: 'eth1', ipAddress: 'nope' } }), children, related: {} } },
    { url: '/ironic/sync', payload: { parent: ironic({ networking: provisioning }, deleting), children, related: {}, finalizing: true } },
    { url: '/ironic/finalize', payload: { parent: ironic({ networking: provisioning }, deleting), children: {}, related: {}, finalizing: true } },
    // Every parent kind, its smallest parent.
    ...PARENT_KINDS.flatMap((kind) => [
      { url: `/${kind.hookPath}/sync`, payload: { parent: smallest(kind), children: {}, related: {} } },
      { url: `/${kind.hookPath}/finalize`, payload: { parent: smallest(kind), children: {}, related: {}, finalizing: true } },
    ]),
  ];
  for (const call of calls) {
    const response = await app.inject({ method: 'POST', url: call.url, payload: call.payload });
    t.equal(response.statusCode, 200, call.url);
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8', `${call.url}: a JSON answer says so`);
    const body = response.json<Obj>();
    t.ok(
      Object.keys(body).every((k) => SYNC_KEYS.includes(k)),
      `${call.url}: only ${SYNC_KEYS.join(', ')} (got ${Object.keys(body).join(', ')})`,
    );
    t.ok(
      Object.values(body).every((v) => v !== null),
      'no top-level null',
    );
    t.doesNotThrow(() => checkSyncResponse(body));
  }
  const customizeCalls = [
    { url: '/ironic/customize', parent: ironic({ apiCredentialsName: 'creds' }) },
    ...PARENT_KINDS.map((kind) => ({ url: `/${kind.hookPath}/customize`, parent: smallest(kind) })),
  ];
  for (const { url, parent } of customizeCalls) {
    const body = (await app.inject({ method: 'POST', url, payload: { parent } })).json<Obj>();
    t.same(Object.keys(body), ['relatedResources'], url);
  }
});

t.test('a response Metacontroller would reject is refused before it is sent', async (t) => {
  const child = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };
  const good = [
    { status: {}, children: [] },
    { status: { a: 1 }, children: [child], resyncAfterSeconds: 1.5, finalized: false },
  ];
  for (const response of good) t.doesNotThrow(() => checkSyncResponse(response), JSON.stringify(response));
  const bad: [unknown, RegExp][] = [
    [{ status: {}, children: [], message: 'extra' }, /message/],
    [{ status: null, children: [] }, /response\/status/],
    [{ children: [] }, /response\/status/],
    [{ status: {}, children: {} }, /response\/children/],
    [{ status: {}, children: [], resyncAfterSeconds: null }, /resyncAfterSeconds/],
    [{ status: {}, children: [], resyncAfterSeconds: -1 }, /resyncAfterSeconds/],
    [{ status: {}, children: [], finalized: 'yes' }, /finalized/],
    [{ status: {}, children: [{ ...child, kind: '' }] }, /children\/0\/kind/],
    [{ status: {}, children: [child, { apiVersion: 'v1', kind: 'Secret', metadata: {} }] }, /children\/1\/metadata\/name/],
    [{ status: {}, children: [null] }, /children\/0/],
  ];
  for (const [response, where] of bad) {
    t.throws(() => checkSyncResponse(response), { name: 'ResponseShapeError', message: where }, JSON.stringify(response));
  }
  t.doesNotThrow(() => checkCustomizeResponse({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', names: ['a'] }] }));
  t.throws(() => checkCustomizeResponse({ relatedResources: [], extra: 1 }), { name: 'ResponseShapeError', message: /extra/ });
  t.throws(() => checkCustomizeResponse({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', selector: {} }] }), {
    name: 'ResponseShapeError',
    message: /selector/,
  });
  t.ok(new ResponseShapeError('x') instanceof Error);
});

t.test('a sync is sent as the text JSON.stringify writes of the hook answer, kept children included', async (t) => {
  const secrets = fakeSecrets();
  const app = server({}, { secrets });
  t.teardown(() => app.close());
  for (const scenario of scenarios()) {
    const path = `/${scenario.kind.hookPath}/sync`;
    const first = (await app.inject({ method: 'POST', url: path, payload: syncRequest(scenario, {}, undefined) })).json<Obj>();
    const steady = syncRequest(scenario, observedChildren(first['children'] as Obj[]), first['status'] as Obj);
    // The second and third answers come from kept renders, whose text was recorded when they were kept.
    for (const call of ['second', 'third']) {
      const sent = await app.inject({ method: 'POST', url: path, payload: steady });
      const answer = await scenario.kind.hooks.sync(syncRequestOf(steady), testContext(secrets));
      t.equal(sent.body, JSON.stringify(answer), `${scenario.name}, ${call} call`);
      t.equal(sent.headers['content-type'], 'application/json; charset=utf-8', `${scenario.name}, ${call} call: a JSON answer says so`);
    }
  }
});
