/**
 * spec.tlsProfile of an IronicDatabase: the rendered MariaDB settings (both engines read them), and a real mariadbd
 * (Debian's mariadb-server, which .ci/run installs) started with the rendered configuration file, probed with
 * `openssl s_client -starttls mysql`: what the profile refuses is refused by the server.
 */
import t from 'tap';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { validateIronicDatabase } from '../../src/api/ironic-database/validate.js';
import { DB_TLS, ironicDatabase } from '../fixtures/database-scenarios.js';
import { related } from '../fixtures/ironic-scenarios.js';
import { TEST_LEAF } from '../fixtures/tls.js';
import { syncRequest, testContext, type Obj } from '../helpers/hooks.js';
import { childOf } from '../helpers/render.js';
import { present } from '../support/paths.js';
import { freePort, ownTmpdir, stopProcess } from '../support/processes.js';

const run = promisify(execFile);
// mariadbd cleans its temporary directory when it starts: not the one of another test's server.
ownTmpdir();

/** The rendered MariaDB configuration file of a Builtin database with this spec. */
const configOf = (spec: Obj): string => {
  const response = syncIronicDatabase(syncRequest({ parent: ironicDatabase(spec), children: {}, related: related(DB_TLS) }), testContext());
  const config = present(childOf(response.children, 'ConfigMap'));
  return present(Object.values(config.data ?? {})[0]);
};

const settings = (config: string): string[] => config.split('\n').filter((line) => /^(tls_version|ssl_cipher) =/.test(line));

t.test('the profile becomes tls_version and ssl_cipher, only with TLS', async (t) => {
  const tls = { tlsCertificateName: 'db-tls' };
  t.same(settings(configOf(tls)), [], 'no profile: MariaDB defaults');
  t.same(settings(configOf({ tlsProfile: { type: 'Modern' } })), [], 'no TLS: nothing');
  t.same(settings(configOf({ ...tls, tlsProfile: { type: 'Modern' } })), ['tls_version = TLSv1.3']);
  const intermediate = settings(configOf({ ...tls, tlsProfile: { type: 'Intermediate' } }));
  t.equal(intermediate[0], 'tls_version = TLSv1.2,TLSv1.3');
  t.match(intermediate[1], /^ssl_cipher = ECDHE-ECDSA-AES128-GCM-SHA256:/);
  t.same(settings(configOf({ ...tls, tlsProfile: { type: 'Custom', minTLSVersion: 'VersionTLS12', ciphers: ['ECDHE-RSA-AES256-GCM-SHA384'] } })), [
    'tls_version = TLSv1.2,TLSv1.3',
    'ssl_cipher = ECDHE-RSA-AES256-GCM-SHA384',
  ]);
  t.match(
    validateIronicDatabase({ ...tls, tlsProfile: { type: 'Modern', ciphers: ['AES128-SHA'] } }),
    [{ path: 'spec.tlsProfile' }],
    'the profile rules apply',
  );
});

const MARIADBD = '/usr/sbin/mariadbd';

/** Whether a TLS handshake with these openssl options succeeds against the server. */
const handshake = (port: number, options: readonly string[]): boolean =>
  spawnSync('openssl', ['s_client', '-starttls', 'mysql', '-connect', `127.0.0.1:${String(port)}`, ...options], { input: '', timeout: 10_000 }).status === 0;

const serve = async (dir: string, config: string): Promise<{ server: ChildProcess; port: number }> => {
  writeFileSync(join(dir, 'tls.crt'), TEST_LEAF.certPem);
  writeFileSync(join(dir, 'tls.key'), TEST_LEAF.keyPem);
  // The rendered file, with the mount path of the Secret moved to the test's directory.
  writeFileSync(join(dir, 'server.cnf'), config.replaceAll('/certs/mariadb/', `${dir}/`));
  const data = join(dir, 'data');
  await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, `--user=${userInfo().username}`, '--skip-test-db']);
  const port = await freePort();
  const server = spawn(
    MARIADBD,
    [
      `--defaults-file=${join(dir, 'server.cnf')}`,
      `--datadir=${data}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--port=${String(port)}`,
      '--bind-address=127.0.0.1',
      `--user=${userInfo().username}`,
      '--skip-log-bin',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  for (let i = 0; i < 150 && !handshake(port, ['-tls1_3']); i += 1) {
    if (server.exitCode !== null) throw new Error(`mariadbd exited (${String(server.exitCode)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { server, port };
};

t.test('a real mariadbd with the rendered settings refuses what the profile refuses', async (t) => {
  t.ok(existsSync(MARIADBD), 'mariadb-server is installed (apt-get install mariadb-server; .ci/run does it)');
  if (!existsSync(MARIADBD)) return;
  for (const c of [
    // The control: without a profile, MariaDB takes what the profiles below refuse.
    { profile: undefined, accepted: [['-tls1_2', '-cipher', 'AES128-SHA'], ['-tls1_2']], refused: [] },
    {
      profile: 'Intermediate',
      accepted: [['-tls1_3'], ['-tls1_2', '-cipher', 'ECDHE-RSA-AES128-GCM-SHA256']],
      refused: [['-tls1_2', '-cipher', 'AES128-SHA']],
    },
    { profile: 'Modern', accepted: [['-tls1_3']], refused: [['-tls1_2']] },
  ]) {
    const dir = mkdtempSync(join(tmpdir(), 'ironic-db-tls-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const { server, port } = await serve(dir, configOf({ tlsCertificateName: 'db-tls', ...(c.profile !== undefined && { tlsProfile: { type: c.profile } }) }));
    const name = c.profile ?? 'no profile';
    for (const options of c.accepted) t.ok(handshake(port, options), `${name}: ${options.join(' ')} is accepted`);
    for (const options of c.refused) t.notOk(handshake(port, options), `${name}: ${options.join(' ')} is refused`);
    await stopProcess(server);
  }
});
