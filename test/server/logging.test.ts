import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conditionsOf, fakeSecrets, hookResponse, ironic } from '../helpers/hooks.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { TEST_EXPIRED_LEAF, TEST_LEAF } from '../fixtures/tls.js';
import fc from 'fast-check';
import { pino } from 'pino';
import { createLogger, REDACTED_PATHS } from '../../src/server/logging.js';
import { captureLogs, hookLines, loggingServer } from './support.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');

t.test('exactly one JSON line per hook call, none for probes', async (t) => {
  const { app, logs } = loggingServer('info');
  t.teardown(() => app.close());
  const parent = ironic({ networking: provisioning }, { metadata: { name: 'one', namespace: 'lab', generation: 3 } });
  const sync = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  const reason = conditionsOf(hookResponse(sync).status)[0]?.['reason'];
  await app.inject({ method: 'POST', url: '/ironic/customize', payload: { parent } });
  await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent } });
  await app.inject({ method: 'POST', url: '/ironic/finalize', payload: '{oops', headers: { 'content-type': 'application/json' } });
  for (const url of ['/healthz', '/readyz', '/metrics']) await app.inject({ method: 'GET', url });
  const entries = logs.entries();
  t.equal(entries.length, 4, 'four calls, four lines, nothing else');
  t.notOk(
    entries.some((e) => /incoming request|request completed/.test(String(e['msg']))),
    'no Fastify per-request lines',
  );
  t.match(entries[0], {
    level: 'info',
    msg: 'hook call',
    hook: 'ironic/sync',
    parent: 'lab/one',
    generation: 3,
    outcome: reason,
    statusCode: 200,
    durationMs: Number,
    reqId: String,
    time: String,
  });
  t.type(reason, 'string');
  t.match(entries[1], { level: 'info', hook: 'ironic/customize', parent: 'lab/one', outcome: 'ok', statusCode: 200 });
  t.match(entries[2], {
    level: 'warn',
    msg: 'hook call rejected',
    hook: 'ironicdatabase/sync',
    parent: 'lab/one',
    outcome: 'rejected',
    statusCode: 400,
    reason: /serves IronicDatabase/,
  });
  t.match(entries[3], { level: 'warn', hook: 'ironic/finalize', outcome: 'rejected', statusCode: 400, reason: /not valid JSON/ });
  t.notOk('parent' in (entries[3] ?? {}), 'no parent when the body could not be read');
});

/** A line of the body of a PEM key, to look for in logs and messages. */
const keyLine = (pem: string): string => pem.split(/\r?\n/)[2] ?? pem;

t.test('no secret reaches the logs, whatever happens, at trace level', async (t) => {
  const PASSWORD = 'Corr3ct-Horse-Battery-Staple';
  const TLS_KEY = keyLine(TEST_LEAF.keyPem);
  const WRONG_KEY = keyLine(TEST_EXPIRED_LEAF.keyPem);
  const TOKEN = 'hook-bearer-token-0123456789abcdef';
  const dir = mkdtempSync(join(tmpdir(), 'hooks-logging-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const secrets = fakeSecrets();
  const { app, logs } = loggingServer('trace', { secrets }, { auth: { kind: 'bearer', tokenFile: join(dir, 'token') } });
  t.teardown(() => app.close());
  const auth = { authorization: `Bearer ${TOKEN}` };
  const credentials = secret('creds', { username: 'admin', password: PASSWORD });
  const tls = secret('ironic-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem });
  const spec = { networking: provisioning, apiCredentialsName: 'creds', tls: { certificateName: 'ironic-tls' } };
  const request = { parent: ironic(spec), children: {}, related: related(credentials, tls) };

  const ok = await app.inject({ method: 'POST', url: '/ironic/sync', headers: auth, payload: request });
  t.equal(ok.statusCode, 200);
  t.match(ok.json(), { status: { apiCredentialsName: 'creds' } }, 'the user credentials were used');
  const generated = await app.inject({
    method: 'POST',
    url: '/ironic/sync',
    headers: auth,
    payload: { parent: ironic({ networking: provisioning }), children: {}, related: {} },
  });
  const generatedPassword = 'generated-password-0000000000001';
  t.match(generated.body, b64(generatedPassword), 'a password was generated');
  await app.inject({
    method: 'POST',
    url: '/ironic/sync',
    headers: auth,
    payload: { ...request, children: { 'Secret.v1': { x: { data: { password: b64(PASSWORD) } } } } },
  });
  await app.inject({
    method: 'POST',
    url: '/ironic/sync',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: `{"related": {"password": "${PASSWORD}"`,
  });
  await app.inject({ method: 'POST', url: '/ironic/sync', headers: { ...auth, 'content-type': 'text/plain' }, payload: PASSWORD });
  await app.inject({ method: 'POST', url: '/ironic/sync', headers: { authorization: `Bearer ${PASSWORD}` }, payload: request });
  await app.inject({ method: 'POST', url: '/nope', headers: auth, payload: request });
  const wrongKey = secret('ironic-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_EXPIRED_LEAF.keyPem });
  const refused = await app.inject({ method: 'POST', url: '/ironic/sync', headers: auth, payload: { ...request, related: related(credentials, wrongKey) } });
  t.match(
    refused.json(),
    { status: { conditions: [{ reason: 'InvalidReference', message: /tls\.key is not the private key/ }] } },
    'a broken TLS Secret is refused',
  );
  t.notOk(refused.body.includes(WRONG_KEY), 'without its key in the condition');
  const failing = loggingServer('trace', { secrets: { ...secrets, hash: async (p) => Promise.reject(new Error(`cannot hash ${p.length} characters`)) } });
  t.teardown(() => failing.app.close());
  t.equal((await failing.app.inject({ method: 'POST', url: '/ironic/sync', payload: request })).statusCode, 500);
  // Defence in depth: objects that carry secrets are blanked even when logged by mistake.
  app.log.trace({ body: request, parent: request.parent, related: request.related, secret: credentials, password: PASSWORD, headers: auth }, 'a mistake');
  app.log.trace({ req: { body: request, headers: auth }, object: { spec: { data: { password: PASSWORD } } } }, 'another mistake');

  const all = logs.text() + failing.logs.text();
  t.ok(hookLines(logs).length >= 6, 'the calls were logged');
  t.match(logs.text(), /a mistake/);
  for (const [what, value] of [
    ['the password', PASSWORD],
    ['the base64 password', b64(PASSWORD)],
    ['the TLS key', TLS_KEY],
    ['the base64 TLS key', b64(TLS_KEY).slice(0, 40)],
    ['the key of the broken TLS Secret', WRONG_KEY],
    ['the generated password', generatedPassword],
    ['the base64 generated password', b64(generatedPassword)],
    ['the token', TOKEN],
  ] as const) {
    t.notOk(all.includes(value), `${what} is never logged`);
  }
  const mistake = logs.entries().find((e) => e['msg'] === 'a mistake') ?? {};
  t.match(mistake, { body: '[Redacted]', related: '[Redacted]', password: '[Redacted]', secret: { data: '[Redacted]' }, parent: { spec: '[Redacted]' } });
  t.match(hookLines(logs)[0], { parent: 'metal3/ironic' }, 'the parent of a call line is kept');
});

t.test("a line is written exactly as pino's own redaction writes it, plain values written directly included", async (t) => {
  const settings = { level: 'info', timestamp: false, base: { pid: 1, hostname: 'h' } } as const;
  const ours = captureLogs();
  const stock = captureLogs();
  const logger = createLogger('info', settings, ours.stream);
  const reference = pino(
    { ...settings, formatters: { level: (label: string) => ({ level: label }) }, redact: { paths: REDACTED_PATHS, censor: '[Redacted]' } },
    stock.stream,
  );
  const key = fc.oneof(
    fc.constantFrom(...REDACTED_PATHS.flatMap((path) => path.split('.')).filter((k) => k !== '*'), 'err', 'msg', 'hook', 'reqId'),
    fc.string(),
  );
  const value = fc.oneof(
    fc.anything({ key, maxDepth: 3, withBigInt: true, withNullPrototype: true }),
    fc.constantFrom(Symbol('s'), () => 1, Number.NaN, -0),
  );
  const fields = fc.dictionary(key, value, { maxKeys: 6, noNullPrototype: true });
  fc.assert(
    fc.property(fields, fields, fc.string(), (bindings, line, message) => {
      logger.child(bindings).info(line, message);
      reference.child(bindings).info(line, message);
      logger.info(line);
      reference.info(line);
      return ours.text() === stock.text();
    }),
    { numRuns: 300 },
  );
  t.ok(ours.text().includes('[Redacted]'), 'redaction was exercised');
  t.equal(ours.text(), stock.text());
});
