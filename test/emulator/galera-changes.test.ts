/**
 * Changes of a Galera IronicDatabase in the emulated cluster, against mariadb-operator's stand-in (its
 * webhooks and its SQL accounts): a change the operator refuses is refused at admission, or reported by
 * the hook with the same message without touching a child; a new user gets a new User and Grant and the
 * old one is dropped; a new password reaches MariaDB. Whenever the database says Ready, the credentials
 * it publishes work: the account exists in MariaDB with that password and its grant.
 */
import t, { type Test } from 'tap';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { present, stringMapAt, valueAt } from '../support/paths.js';

const NS = 'metal3';
const MARIADB = 'db-database';

const credentials = (name: string, username: string, password: string): KubeResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  stringData: { username, password },
});

const galera = (spec: Record<string, unknown> = {}): KubeResource => ({
  apiVersion: 'ironic.metal3.io/v1alpha1',
  kind: 'IronicDatabase',
  metadata: { name: 'db', namespace: NS },
  spec: { engine: 'MariaDBOperator', ...spec },
});

const decoded = (secret: KubeResource | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(stringMapAt(secret, 'data')).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

/** Why the published credentials would not work, or undefined when they would (or the database is not Ready). */
const brokenReady = (emulator: Emulator): string | undefined => {
  if (emulator.ready('IronicDatabase', 'db')?.status !== 'True') return undefined;
  const name = String(emulator.status('IronicDatabase', 'db')['credentialsName']);
  const { username = '', password = '' } = decoded(emulator.get('Secret', name, NS));
  const account = emulator.mariadbOperator.accounts(NS, MARIADB)[`${username}@%`];
  if (account === undefined) return `Ready with ${name}, but MariaDB has no user ${username}`;
  if (account.password !== password) return `Ready with ${name}, but ${username} has another password in MariaDB`;
  return account.grants.includes('ALL PRIVILEGES ON ironic.*') ? undefined : `Ready with ${name}, but ${username} has no grant`;
};

/** Rounds (the operator and the workloads settling before each) until one writes nothing, checking Ready after each. */
const converge = async (t: Test, emulator: Emulator, maxRounds = 12): Promise<string[]> => {
  const errors: string[] = [];
  for (let i = 0; i < maxRounds; i += 1) {
    emulator.settleWorkloads();
    const round = await emulator.round();
    errors.push(...round.syncs.flatMap((s) => (s.error !== undefined ? [s.error] : [])));
    const broken = brokenReady(emulator);
    if (broken !== undefined) t.fail(`round ${round.round}: ${broken}`);
    if (round.writes.length === 0 && round.syncs.every((s) => s.error === undefined)) return errors;
  }
  t.fail(`not stable after ${maxRounds} rounds`);
  return errors;
};

const start = async (t: Test, spec: Record<string, unknown> = {}, secrets: readonly KubeResource[] = []): Promise<Emulator> => {
  const emulator = await startEmulator({ overlay: 'mariadb-operator' });
  t.teardown(() => emulator.close());
  emulator.apply([...secrets, galera(spec)]);
  t.same(await converge(t, emulator), [], 'created without a sync error');
  t.match(emulator.ready('IronicDatabase', 'db'), { status: 'True' });
  return emulator;
};

const users = (emulator: Emulator): string[] =>
  emulator
    .children('IronicDatabase', 'db')
    .filter((c) => c.kind === 'User')
    .map((u) => String(valueAt(u, 'spec', 'name')))
    .sort();

t.test('another user: a new User and Grant, then the old user is dropped; Ready only once the new one works', async (t) => {
  const alice = credentials('alice', 'alice', 'alice_pw');
  const bob = credentials('bob', 'bob', 'bob_pw');
  const emulator = await start(t, { credentialsName: 'alice' }, [alice, bob]);
  t.same(Object.keys(emulator.mariadbOperator.accounts(NS, MARIADB)), ['alice@%']);

  emulator.apply(galera({ credentialsName: 'bob' }));
  t.same(await converge(t, emulator), [], 'no write refused');
  t.match(emulator.ready('IronicDatabase', 'db'), { status: 'True' });
  t.equal(emulator.status('IronicDatabase', 'db')['credentialsName'], 'bob');
  t.same(users(emulator), ['bob'], 'one User left');
  t.same(
    emulator.mariadbOperator.accounts(NS, MARIADB),
    { 'bob@%': { password: 'bob_pw', grants: ['ALL PRIVILEGES ON ironic.*'] } },
    "alice's account is dropped",
  );

  emulator.apply(galera({ credentialsName: 'alice' }));
  t.same(await converge(t, emulator), [], 'and back');
  t.same(users(emulator), ['alice']);
  t.same(Object.keys(emulator.mariadbOperator.accounts(NS, MARIADB)), ['alice@%']);
});

t.test('from the generated credentials to your own, with another user name', async (t) => {
  const emulator = await start(t, {}, [credentials('mine', 'metal3', 'mine_pw')]);
  t.same(Object.keys(emulator.mariadbOperator.accounts(NS, MARIADB)), ['ironic@%']);
  emulator.apply(galera({ credentialsName: 'mine' }));
  t.same(await converge(t, emulator), []);
  t.same(Object.keys(emulator.mariadbOperator.accounts(NS, MARIADB)), ['metal3@%']);
  t.equal(emulator.status('IronicDatabase', 'db')['credentialsName'], 'mine');
});

t.test('a new password in your credentials Secret reaches MariaDB', async (t) => {
  const emulator = await start(t, { credentialsName: 'alice' }, [credentials('alice', 'alice', 'first_pw')]);
  emulator.apply(credentials('alice', 'alice', 'second_pw'));
  t.same(await converge(t, emulator), []);
  t.equal(emulator.mariadbOperator.accounts(NS, MARIADB)['alice@%']?.password, 'second_pw');
});

t.test('a new password in the generated credentials Secret reaches MariaDB', async (t) => {
  const emulator = await start(t);
  const generated = present(emulator.get('Secret', 'db-database-credentials', NS));
  emulator.cluster.put({ ...generated, data: { ...stringMapAt(generated, 'data'), password: Buffer.from('rotated_pw').toString('base64') } });
  t.same(await converge(t, emulator), []);
  t.equal(emulator.mariadbOperator.accounts(NS, MARIADB)['ironic@%']?.password, 'rotated_pw');
});

/** Every child, as `Kind name` → resourceVersion: equal snapshots mean no child was written. */
const snapshot = (emulator: Emulator): Record<string, string> =>
  Object.fromEntries(emulator.children('IronicDatabase', 'db').map((c) => [`${c.kind} ${c.metadata.name}`, c.metadata.resourceVersion ?? '']));

const SHRINK = /storage\.size cannot decrease with engine MariaDBOperator: mariadb-operator never shrinks the volumes of a Galera cluster/;
const NEW_CLASS = /storage\.storageClassName cannot be changed once the database exists/;

for (const c of [
  {
    change: 'a smaller storage.size',
    spec: { storage: { size: '5Gi' } },
    message: SHRINK,
    status: /^the spec is invalid: spec\.storage\.size: .*\(its volumes have 10Gi\)$/,
  },
  {
    change: 'another storageClassName',
    spec: { storage: { storageClassName: 'fast' } },
    message: NEW_CLASS,
    status: /^the spec is invalid: spec\.storage\.storageClassName: .*\(its volumes use the cluster default\)$/,
  },
]) {
  t.test(`${c.change} is refused at admission; past an older CRD, the hook refuses it with the same message and keeps every child`, async (t) => {
    const emulator = await start(t);
    t.throws(() => emulator.apply(galera(c.spec)), c.message);
    const before = snapshot(emulator);
    const stored = present(emulator.get('IronicDatabase', 'db', NS));
    emulator.cluster.store.update({ ...stored, spec: { ...(stored['spec'] as object), ...c.spec } });
    t.same(await converge(t, emulator), [], 'nothing sent that the operator refuses');
    t.match(emulator.ready('IronicDatabase', 'db'), { status: 'False', reason: 'InvalidSpec', message: c.message });
    t.match(emulator.ready('IronicDatabase', 'db')?.message, c.status);
    t.same(snapshot(emulator), before, 'no child written');
  });
}

t.test('a bigger storage.size is applied in place', async (t) => {
  const emulator = await start(t);
  emulator.apply(galera({ storage: { size: '20Gi' } }));
  t.same(await converge(t, emulator), []);
  t.match(emulator.get('MariaDB', MARIADB, NS), { spec: { storage: { size: '20Gi', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } } } });
  t.match(emulator.ready('IronicDatabase', 'db'), { status: 'True' });
});
