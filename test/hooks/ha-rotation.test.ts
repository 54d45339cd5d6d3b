/** The CA rotation driven through the sync hook: stage, roll, promote, roll. */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { fakeSecrets, ironic, testServer, type Obj } from '../helpers/hooks.js';
import { observeAll } from '../helpers/k8s.js';
import { generateRpcCA } from '../../src/crypto/rpc-ca.js';

type Response = { status: Obj; children: Obj[] };
const spec = { highAvailability: true, database: { host: 'db', name: 'ironic', credentialsName: 'db' } };
const installed = { status: { installedVersion: '38.0', requestedVersion: '38.0' } };

const readyDaemonSet = (o: Obj): Obj | undefined =>
  o['kind'] === 'DaemonSet'
    ? { observedGeneration: (o['metadata'] as Obj)['generation'], desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberUnavailable: 0, numberAvailable: 3 }
    : undefined;

const caSecret = (r: Response): Record<string, string> => {
  const secret = r.children.find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-rpc-ca-')) as Obj;
  return Object.fromEntries(Object.entries(secret['data'] as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
};

const sync = async (app: FastifyInstance, children: Record<string, Record<string, Obj>>): Promise<Response> =>
  (await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec, installed), children, related: {} } })).json() as Response;

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
  const firstCA = first.children.find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-rpc-ca-')) as Obj;
  const staged = await sync(late, observed);
  const names = staged.children.map((c) => String((c['metadata'] as Obj)['name'])).filter((n) => n.startsWith('ironic-rpc-ca-'));
  t.equal(names.length, 2, 'the old and the staged CA Secrets are both in the response');
  t.ok(names.includes(String((firstCA['metadata'] as Obj)['name'])), 'the old one is kept while pods use it');

  // Both observed, DaemonSet still on the old one: the staged one is current, nothing is promoted or re-generated.
  const both = observeAll(staged.children, observed, (o) => (o['kind'] === 'DaemonSet' ? { observedGeneration: 0 } : undefined));
  const again = await sync(late, both);
  t.same(
    again.children.filter((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-rpc-ca-')).map((c) => (c['metadata'] as Obj)['name']).sort(),
    [...names].sort(),
    'stable while the roll is in progress',
  );
});

t.test('a Secret the young workload uses but the cache has not shown yet makes the sync wait', async (t) => {
  const app = testServer(fakeSecrets(), '2026-01-01T00:01:00Z');
  t.teardown(() => app.close());
  const first = await sync(app, {});
  const observed = observeAll(first.children, {}, readyDaemonSet);
  const daemonSet = Object.values(observed['DaemonSet.apps/v1'] ?? {})[0] as Obj;
  (daemonSet['metadata'] as Obj)['creationTimestamp'] = '2026-01-01T00:00:30Z';
  const secrets = { ...(observed['Secret.v1'] ?? {}) };
  const htpasswd = Object.keys(secrets).find((k) => k.includes('htpasswd'));
  if (htpasswd !== undefined) delete secrets[htpasswd];
  const r = (await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec, installed), children: { ...observed, 'Secret.v1': secrets }, related: {} } })).json() as Obj;
  t.equal(r['resyncAfterSeconds'], 5, 'waits for the cache');
  t.match(String((((r['status'] as Obj)['conditions'] as Obj[])[0] as Obj)['message']), /waiting for the Secrets/);
});
