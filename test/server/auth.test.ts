import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { ConfigError, type AuthConfig } from '../../src/config.js';
import { authenticator } from '../../src/server/auth.js';
import { ironic } from '../helpers/hooks.js';
import { server, thrownBy } from './support.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const tempDir = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'hooks-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const call = (app: FastifyInstance, authorization?: string) =>
  app.inject({ method: 'POST', url: '/ironic/customize', headers: authorization === undefined ? {} : { authorization }, payload: { parent: ironic({}) } });

const withAuth = (t: Test, auth: AuthConfig, reloadIntervalMs = 10_000): FastifyInstance => {
  const app = server({ auth, reloadIntervalMs });
  t.teardown(() => app.close());
  return app;
};

/** Polls until `ok` holds (at most 5 s). */
const until = async (ok: () => Promise<boolean>): Promise<boolean> => {
  for (let i = 0; i < 250; i += 1) {
    if (await ok()) return true;
    await sleep(20);
  }
  return false;
};

t.test('without auth settings every hook call is served', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  t.equal((await call(app)).statusCode, 200);
  t.equal((await call(app, 'Bearer whatever')).statusCode, 200);
});

t.test('bearer token: Metacontroller sends "Authorization: Bearer <token>"', async (t) => {
  const dir = tempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 's3cret-token\n');
  const app = withAuth(t, { kind: 'bearer', tokenFile });
  t.equal((await call(app, 'Bearer s3cret-token')).statusCode, 200, 'the token (the trailing newline of the file is ignored)');
  t.equal((await call(app, 'bearer s3cret-token')).statusCode, 200, 'the scheme is case-insensitive');
  for (const header of [
    undefined,
    '',
    'Bearer',
    'Bearer s3cret-toke',
    'Bearer s3cret-token2',
    'Bearer  ',
    'Basic s3cret-token',
    `Basic ${b64('x:s3cret-token')}`,
    's3cret-token',
  ]) {
    const response = await call(app, header);
    t.equal(response.statusCode, 401, `refused: ${String(header)}`);
    t.equal(response.headers['www-authenticate'], 'Bearer realm="ironic-hooks"');
    t.match(response.json(), { error: 'Unauthorized', statusCode: 401, message: /Authorization: Bearer/ });
    t.notMatch(response.body, /s3cret/, 'the answer does not echo anything');
  }
  for (const url of ['/healthz', '/readyz', '/metrics']) t.equal((await app.inject({ method: 'GET', url })).statusCode, 200, `${url} stays open`);
  t.equal((await app.inject({ method: 'POST', url: '/ironic/nothing', payload: {} })).statusCode, 401, 'unknown routes are not public');
  t.equal((await app.inject({ method: 'POST', url: '/ironic/nothing', headers: { authorization: 'Bearer s3cret-token' }, payload: {} })).statusCode, 404);
});

t.test('basic auth: Metacontroller sends "Authorization: Basic base64(user:password)"', async (t) => {
  const dir = tempDir(t);
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, 'pa:ss word');
  const app = withAuth(t, { kind: 'basic', username: 'metacontroller', passwordFile });
  t.equal((await call(app, `Basic ${b64('metacontroller:pa:ss word')}`)).statusCode, 200);
  for (const credentials of ['metacontroller:pa:ss', 'metacontroller2:pa:ss word', 'other:pa:ss word', ':pa:ss word', 'metacontroller']) {
    const response = await call(app, `Basic ${b64(credentials)}`);
    t.equal(response.statusCode, 401, credentials);
    t.equal(response.headers['www-authenticate'], 'Basic realm="ironic-hooks", charset="UTF-8"');
  }
  t.equal((await call(app, `Bearer ${b64('metacontroller:pa:ss word')}`)).statusCode, 401, 'another scheme');
  t.equal((await call(app)).statusCode, 401);
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
});

t.test('a changed secret file is picked up without a restart; an emptied one is ignored', async (t) => {
  const dir = tempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'first');
  const app = withAuth(t, { kind: 'bearer', tokenFile, rotationGraceMs: 0 }, 20);
  t.equal((await call(app, 'Bearer first')).statusCode, 200);
  writeFileSync(tokenFile, 'second\n');
  t.ok(await until(async () => (await call(app, 'Bearer second')).statusCode === 200), 'the new token is accepted');
  t.equal((await call(app, 'Bearer first')).statusCode, 401, 'the old one is not, without a grace window');
  writeFileSync(tokenFile, '');
  await sleep(100);
  t.equal((await call(app, 'Bearer second')).statusCode, 200, 'an empty file does not lock everyone out');
});

t.test('an unreadable or empty secret file stops the start with the variable named', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'empty'), '\n');
  const cases: [AuthConfig, RegExp][] = [
    [{ kind: 'bearer', tokenFile: join(dir, 'missing') }, /^AUTH_BEARER_TOKEN_FILE: cannot read .*missing \(ENOENT\)/],
    [{ kind: 'bearer', tokenFile: join(dir, 'empty') }, /^AUTH_BEARER_TOKEN_FILE: .*empty is empty/],
    [{ kind: 'basic', username: 'u', passwordFile: join(dir, 'missing') }, /^AUTH_BASIC_PASSWORD_FILE: cannot read/],
  ];
  for (const [auth, message] of cases) {
    const error = thrownBy(() => server({ auth }));
    t.ok(error instanceof ConfigError, 'a ConfigError (exit code 2)');
    t.match(error, { message }, message.source);
  }
});

/** An app with only the authenticator, on a clock the test moves. */
const clocked = (t: Test, auth: AuthConfig): { app: FastifyInstance; advance: (ms: number) => void } => {
  let time = 1_000_000;
  const app = Fastify({ logger: false });
  const guard = authenticator(
    auth,
    (request) => request.url === '/open',
    20,
    app.log,
    () => time,
  );
  app.addHook('onRequest', guard.onRequest);
  app.post('/hook', async () => ({ ok: true }));
  t.teardown(async () => {
    guard.close();
    await app.close();
  });
  return { app, advance: (ms) => void (time += ms) };
};
const post = async (app: FastifyInstance, authorization: string): Promise<number> =>
  (await app.inject({ method: 'POST', url: '/hook', headers: { authorization }, payload: {} })).statusCode;

t.test('rotation: the previous token is accepted for the grace window after a change, then refused', async (t) => {
  const dir = tempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'old-token\n');
  const { app, advance } = clocked(t, { kind: 'bearer', tokenFile, rotationGraceMs: 60_000 });
  advance(3_600_000);
  t.equal(await post(app, 'Bearer old-token'), 200);
  writeFileSync(tokenFile, 'new-token\n');
  t.ok(await until(async () => (await post(app, 'Bearer new-token')) === 200), 'the new token is accepted once the file is read');
  t.equal(await post(app, 'Bearer old-token'), 200, 'Metacontroller, not restarted yet, still gets through');
  advance(59_999);
  t.equal(await post(app, 'Bearer old-token'), 200, 'until the window closes');
  t.equal(await post(app, 'Bearer other'), 401, 'a wrong token is still refused');
  advance(1);
  t.equal(await post(app, 'Bearer old-token'), 401, 'then the previous token is refused');
  t.equal(await post(app, 'Bearer new-token'), 200);
});

t.test('rotation: only the last previous value is kept, and an unchanged value opens no window', async (t) => {
  const dir = tempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'a');
  const { app, advance } = clocked(t, { kind: 'bearer', tokenFile, rotationGraceMs: 60_000 });
  writeFileSync(tokenFile, 'b');
  t.ok(await until(async () => (await post(app, 'Bearer b')) === 200));
  writeFileSync(tokenFile, 'c');
  t.ok(await until(async () => (await post(app, 'Bearer c')) === 200));
  t.equal(await post(app, 'Bearer b'), 200, 'the value just replaced');
  t.equal(await post(app, 'Bearer a'), 401, 'not the one before it');
  advance(60_000);
  writeFileSync(tokenFile, 'c\n');
  await sleep(100);
  t.equal(await post(app, 'Bearer b'), 401, 'a trailing newline is not a rotation: b stays expired');
  t.equal(await post(app, 'Bearer c'), 200);
});

t.test('rotation of a basic auth password, and the default window through the server', async (t) => {
  const dir = tempDir(t);
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, 'old');
  const { app, advance } = clocked(t, { kind: 'basic', username: 'mc', passwordFile, rotationGraceMs: 1_000 });
  writeFileSync(passwordFile, 'new');
  t.ok(await until(async () => (await post(app, `Basic ${b64('mc:new')}`)) === 200));
  t.equal(await post(app, `Basic ${b64('mc:old')}`), 200);
  advance(1_000);
  t.equal(await post(app, `Basic ${b64('mc:old')}`), 401);

  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'first');
  const served = withAuth(t, { kind: 'bearer', tokenFile }, 20);
  writeFileSync(tokenFile, 'second');
  t.ok(await until(async () => (await call(served, 'Bearer second')).statusCode === 200));
  t.equal((await call(served, 'Bearer first')).statusCode, 200, 'without rotationGraceMs the default window (15 minutes) applies');
});
