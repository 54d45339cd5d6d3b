/**
 * The real bcrypt secrets: a hash that cannot be checked never crashes a sync; it does not match, so the
 * credentials are hashed anew (and the pods roll once), as for any mismatch. Hashes made or verified are
 * remembered (a bounded set), so a sync fed its own output never runs bcrypt again.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { bcryptSecrets, type Bcrypt } from '../../src/hooks/materialize.js';
import { syncIronic } from '../../src/hooks/ironic.js';
import { FIXED_NOW, ironic, syncRequest, testConfig } from '../helpers/hooks.js';
import { objAt, objsAt, valueAt } from '../support/paths.js';
import type { SyncRequest } from '../../src/api/shared/hook.js';
import type { Obj } from '../helpers/hooks.js';
import { observeAll } from '../helpers/k8s.js';

const MALFORMED = [
  '$2y$99$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2',
  '$2b$03$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2',
  '$2b$10$short',
  'not-a-hash',
];

t.test('verify answers false for a hash bcrypt cannot read', async (t) => {
  const secrets = bcryptSecrets();
  for (const hash of MALFORMED) t.equal(await secrets.verify('password', hash), false, hash);
  const good = await secrets.hash('password');
  t.equal(await secrets.verify('password', good), true, 'a real hash still matches');
});

t.test('a malformed hash in our observed htpasswd Secret is replaced, not a 500', async (t) => {
  const b64 = (v: string): string => Buffer.from(v).toString('base64');
  for (const hash of MALFORMED) {
    const children = {
      'Secret.v1': {
        'metal3/ironic-api-credentials': {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'ironic-api-credentials', namespace: 'metal3' },
          data: { username: b64('ironic'), password: b64('pw') },
        },
        'metal3/ironic-htpasswd-0123456789': {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'ironic-htpasswd-0123456789', namespace: 'metal3', labels: { 'ironic.metal3.io/component': 'htpasswd' } },
          data: { htpasswd: b64(`ironic:${hash}`) },
        },
      },
    };
    const request = syncRequest({ parent: ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } }), children, related: {} });
    const response = await syncIronic(request, { config: testConfig().render, secrets: bcryptSecrets(), now: () => FIXED_NOW });
    const htpasswd = objsAt(response, 'children').filter((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-htpasswd-'));
    t.equal(htpasswd.length, 1, `${hash}: one htpasswd Secret`);
    t.not(valueAt(htpasswd[0], 'metadata', 'name'), 'ironic-htpasswd-0123456789', `${hash}: a new one, with a hash that works`);
  }
});

/** A bcrypt stand-in that counts its calls (a digest behind bcryptjs's `$2b$10$` prefix). */
const countingBcrypt = (): { readonly hasher: Bcrypt; readonly calls: { hash: number; compare: number } } => {
  const calls = { hash: 0, compare: 0 };
  const made = (password: string): string => `$2b$10$${createHash('sha256').update(password).digest('base64').slice(0, 43)}`;
  return {
    calls,
    hasher: {
      hash: async (password) => {
        calls.hash += 1;
        return made(password);
      },
      compare: async (password, hash) => {
        calls.compare += 1;
        return hash === made(password);
      },
    },
  };
};

t.test('a sync fed its own output runs bcrypt once, to hash, and never to verify', async (t) => {
  const { hasher, calls } = countingBcrypt();
  const ctx = { config: testConfig().render, secrets: bcryptSecrets(4096, hasher), now: () => FIXED_NOW };
  const parent = ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } });
  const first = await syncIronic({ parent, children: {}, related: {} } as unknown as SyncRequest, ctx);
  t.same(calls, { hash: 1, compare: 0 }, 'the first sync hashes the new password');
  const again = { parent, children: observeAll(first.children as Obj[]), related: {} } as unknown as SyncRequest;
  const second = await syncIronic(again, ctx);
  const third = await syncIronic(again, ctx);
  t.same(calls, { hash: 1, compare: 0 }, 'its own htpasswd is known to match');
  t.same(second.children, first.children, 'the same children');
  t.same(third.children, first.children, 'and again');
});

t.test('remembered hashes are bounded: the oldest is forgotten and checked again, with the same answer', async (t) => {
  const { hasher, calls } = countingBcrypt();
  const secrets = bcryptSecrets(2, hasher);
  const hashes = [await secrets.hash('one'), await secrets.hash('two'), await secrets.hash('three')];
  t.ok(
    hashes.every((h) => h.startsWith('$2y$')),
    'the $2y$ prefix httpd reads',
  );
  t.equal(await secrets.verify('three', hashes[2] ?? ''), true);
  t.equal(await secrets.verify('two', hashes[1] ?? ''), true);
  t.equal(calls.compare, 0, 'the two newest are remembered');
  t.equal(await secrets.verify('one', hashes[0] ?? ''), true, 'the oldest still matches');
  t.equal(calls.compare, 1, 'but is checked by bcrypt again');
  t.equal(await secrets.verify('two', hashes[0] ?? ''), false, 'a wrong password does not match');
  t.equal(calls.compare, 2);
});
