/**
 * Defect 6: an htpasswd line at another bcrypt cost than the one this server writes is stale. It is
 * replaced by a line hashed here without bcrypt ever running on it (at cost 16 that took seconds of CPU on
 * every sync, at 17 and more past Metacontroller's 10 s timeout). Counted through the injected bcrypt.
 */
import t from 'tap';
import bcrypt from 'bcryptjs';
import type { SyncRequest } from '../../src/api/shared/hook.js';
import { syncIronic } from '../../src/hooks/ironic.js';
import { bcryptSecrets, isServerCostHash, type Bcrypt, type Secrets } from '../../src/hooks/materialize.js';
import { FIXED_NOW, fakeSecrets, ironic, testConfig, type Obj } from '../helpers/hooks.js';

const UID = '7f1e4c7e-0000-4000-8000-000000000001';
const b64 = (v: string): string => Buffer.from(v).toString('base64');
const PASSWORD = 'the-password';

/** bcryptjs, counting its calls. */
const counting = (): Bcrypt & { readonly calls: { hash: number; compare: number } } => {
  const calls = { hash: 0, compare: 0 };
  return {
    calls,
    hash: async (password, rounds) => {
      calls.hash += 1;
      return bcrypt.hash(password, rounds);
    },
    compare: async (password, hash) => {
      calls.compare += 1;
      return bcrypt.compare(password, hash);
    },
  };
};

const owned = { ownerReferences: [{ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', name: 'ironic', uid: UID, controller: true }] };

/** A sync of an Ironic whose generated credentials and htpasswd Secrets (one per line) are observed. */
const request = (lines: readonly string[]): SyncRequest => {
  const credentials = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ironic-api-credentials', namespace: 'metal3', ...owned },
    data: { username: b64('ironic'), password: b64(PASSWORD) },
  };
  const htpasswd = lines.map((line, i) => {
    const name = `ironic-htpasswd-${String(i).repeat(10)}`;
    return [
      `metal3/${name}`,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: 'metal3', labels: { 'ironic.metal3.io/component': 'htpasswd' }, ...owned },
        data: { htpasswd: b64(line) },
      },
    ] as const;
  });
  const children = { 'Secret.v1': { 'metal3/ironic-api-credentials': credentials, ...Object.fromEntries(htpasswd) } };
  return { parent: ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } }), children, related: {} } as unknown as SyncRequest;
};

/** The htpasswd line the sync returns, with these lines observed. */
const htpasswdOf = async (line: string | readonly string[], secrets: Secrets): Promise<string | undefined> => {
  const response = await syncIronic(request(typeof line === 'string' ? [line] : line), { config: testConfig().render, secrets, now: () => FIXED_NOW });
  const child = (response.children as Obj[]).find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-htpasswd-'));
  const data = child?.['data'] as Obj | undefined;
  return typeof data?.['htpasswd'] === 'string' ? Buffer.from(data['htpasswd'], 'base64').toString('utf8') : undefined;
};

t.test('a matching line at another cost is replaced without running bcrypt on it', async (t) => {
  // A real, matching hash at cost 4 (cheap to make here; the server treats 16 the same way).
  const cheap = `ironic:${(await bcrypt.hash(PASSWORD, 4)).replace(/^\$2b\$/, '$2y$')}`;
  for (const line of [
    cheap,
    'ironic:$2y$16$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2',
    'ironic:$2b$31$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2',
  ]) {
    const hasher = counting();
    const secrets = bcryptSecrets(4096, hasher);
    const first = await htpasswdOf(line, secrets);
    t.equal(hasher.calls.compare, 0, `${line.slice(0, 14)}: never compared`);
    t.equal(hasher.calls.hash, 1, 'hashed once, at our cost');
    t.match(first, /^ironic:\$2y\$10\$/);
    t.not(first, line, 'replaced');
    t.ok(await bcrypt.compare(PASSWORD, (first ?? '').slice('ironic:'.length).replace(/^\$2y\$/, '$2b$')), 'and the new line matches the password');
    t.equal(await htpasswdOf([line, first ?? ''], secrets), first, 'the next sync (observing the stale line and the new one) keeps the new one...');
    t.same(hasher.calls, { hash: 1, compare: 0 }, '...from memory: no bcrypt at all');
  }
});

t.test('a line at our cost is still checked (once) and reused', async (t) => {
  const hasher = counting();
  const secrets = bcryptSecrets(4096, hasher);
  const line = `ironic:${(await bcrypt.hash(PASSWORD, 10)).replace(/^\$2b\$/, '$2y$')}`;
  t.equal(await htpasswdOf(line, secrets), line);
  t.equal(await htpasswdOf(line, secrets), line);
  t.same(hasher.calls, { hash: 0, compare: 1 }, 'compared once, then remembered');
});

t.test('the injected secrets are not asked to verify a line at another cost', async (t) => {
  const fake = fakeSecrets();
  let verifies = 0;
  const secrets: Secrets = { ...fake, verify: async (password, hash) => ((verifies += 1), fake.verify(password, hash)) };
  await htpasswdOf('ironic:$2y$16$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2', secrets);
  t.equal(verifies, 0);
  t.equal(fake.hashes(), 1);
});

t.test('isServerCostHash: the cost this server writes, in any of the bcrypt prefixes', async (t) => {
  t.same(['$2y$10$x', '$2b$10$x', '$2a$10$x', '$2y$09$x', '$2y$11$x', '$2y$16$x', '$2x$10$x', '$2y$1$x', 'ironic'].map(isServerCostHash), [
    true,
    true,
    true,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  t.equal(await bcryptSecrets(4096, counting()).verify(PASSWORD, await bcrypt.hash(PASSWORD, 4)), false, 'bcryptSecrets.verify refuses another cost too');
});
