/** The CA rotation driven through the sync hook: stage, roll, promote, roll. */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { conditionsOf, fakeSecrets, hookResponse, ironic, testServer, type HookResponse, type Obj } from '../helpers/hooks.js';
import { observeAll } from '../helpers/k8s.js';
import { generateRpcCA } from '../../src/crypto/rpc-ca.js';
import { Type } from '@sinclair/typebox';
import { firstObserved } from '../helpers/children.js';
import { checked } from '../helpers/json.js';
import { objAt, present } from '../support/paths.js';

type Response = HookResponse;
const spec = { highAvailability: true, database: { host: 'db', name: 'ironic', credentialsName: 'db' } };
const installed = { status: { installedVersion: '38.0', requestedVersion: '38.0' } };

const readyDaemonSet = (o: Obj): Obj | undefined =>
  o['kind'] === 'DaemonSet'
    ? { observedGeneration: objAt(o, 'metadata')['generation'], desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberUnavailable: 0, numberAvailable: 3 }
    : undefined;

const caSecret = (r: Response): Record<string, string> => {
  const secret = present(r.children.find((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-rpc-ca-')));
  return Object.fromEntries(
    Object.entries(checked(Type.Record(Type.String(), Type.String()), secret['data'], 'Secret data')).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
};

const sync = async (app: FastifyInstance, children: Record<string, Record<string, Obj>>): Promise<Response> =>
  hookResponse(await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec, installed), children, related: {} } }));

t.test('a CA in its renewal window is staged, then promoted once the DaemonSet rolled out', async (t) => {
  const early = testServer(fakeSecrets(), '2026-01-01T00:00:00Z');
  const secrets = { ...fakeSecrets(), rpcCA: (cn: string, at: Date) => generateRpcCA(cn, at) };
  const late = testServer(secrets, '2035-06-01T00:00:00Z');
  t.teardown(async () => {
    await early.close();
    await late.close();
  });
  const first = await sync(early, {});
  let observed = observeAll(first.children, {}, readyDaemonSet);
  const original = caSecret(first);
  t.notOk('next.crt' in original);

  const staged = await sync(late, observed);
  const stagedCA = caSecret(staged);
  t.equal(stagedCA['tls.crt'], original['tls.crt'], 'the old CA still signs');
  t.ok(stagedCA['next.crt'], 'the next CA is staged');
  t.equal((stagedCA['ca.crt'] ?? '').match(/BEGIN CERTIFICATE/g)?.length, 2, 'both are trusted');

  // The DaemonSet has not rolled out with the staged Secret yet: nothing moves.
  observed = observeAll(staged.children, observed, (o) => (o['kind'] === 'DaemonSet' ? { observedGeneration: 0 } : undefined));
  t.same(caSecret(await sync(late, observed)), stagedCA, 'no promotion during the roll');

  // Rolled out: promote.
  observed = observeAll(staged.children, observed, readyDaemonSet);
  const promoted = caSecret(await sync(late, observed));
  t.equal(promoted['tls.crt'], stagedCA['next.crt'], 'the next CA signs');
  t.notOk('next.crt' in promoted);
  t.equal((promoted['ca.crt'] ?? '').match(/BEGIN CERTIFICATE/g)?.length, 2, 'the old CA is still trusted');
});

t.test('the CA Secret the replicas run with stays until they rolled onto its successor', async (t) => {
  const early = testServer(fakeSecrets(), '2026-01-01T00:00:00Z');
  const late = testServer({ ...fakeSecrets(), rpcCA: (cn: string, at: Date) => generateRpcCA(cn, at) }, '2035-06-01T00:00:00Z');
  t.teardown(async () => {
    await early.close();
    await late.close();
  });
  const first = await sync(early, {});
  const observed = observeAll(first.children, {}, readyDaemonSet);
  const firstCA = present(first.children.find((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-rpc-ca-')));
  const staged = await sync(late, observed);
  const names = staged.children.map((c) => String(objAt(c, 'metadata')['name'])).filter((n) => n.startsWith('ironic-rpc-ca-'));
  t.equal(names.length, 2, 'the old and the staged CA Secrets are both in the response');
  t.ok(names.includes(String(objAt(firstCA, 'metadata')['name'])), 'the old one is kept while pods use it');

  // Both observed, DaemonSet still on the old one: the staged one is current, nothing is promoted or re-generated.
  const both = observeAll(staged.children, observed, (o) => (o['kind'] === 'DaemonSet' ? { observedGeneration: 0 } : undefined));
  const again = await sync(late, both);
  t.same(
    again.children
      .filter((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-rpc-ca-'))
      .map((c) => objAt(c, 'metadata')['name'])
      .sort(),
    [...names].sort(),
    'stable while the roll is in progress',
  );
});

t.test('a Secret the young workload uses but the cache has not shown yet makes the sync wait', async (t) => {
  const app = testServer(fakeSecrets(), '2026-01-01T00:01:00Z');
  t.teardown(() => app.close());
  const first = await sync(app, {});
  const observed = observeAll(first.children, {}, readyDaemonSet);
  const daemonSet = firstObserved(observed, 'DaemonSet.apps/v1');
  objAt(daemonSet, 'metadata')['creationTimestamp'] = '2026-01-01T00:00:30Z';
  const observedSecrets = observed['Secret.v1'] ?? {};
  const htpasswd = Object.keys(observedSecrets).find((k) => k.includes('htpasswd'));
  const secrets = Object.fromEntries(Object.entries(observedSecrets).filter(([k]) => k !== htpasswd));
  const r = hookResponse(
    await app.inject({
      method: 'POST',
      url: '/ironic/sync',
      payload: { parent: ironic(spec, installed), children: { ...observed, 'Secret.v1': secrets }, related: {} },
    }),
  );
  t.equal(r.resyncAfterSeconds, 5, 'waits for the cache');
  t.match(String(conditionsOf(r.status)[0]?.['message']), /waiting for the Secrets/);
});
