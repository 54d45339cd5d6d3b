/**
 * A new password or user name in the credentials Secret of a Builtin IronicDatabase reaches MariaDB: the rendered
 * start script of the mariadb container is run with a real mariadbd (Debian's mariadb-server, which .ci/run
 * installs) on a data directory that already has its system schema, as every start but the first sees it. The
 * official entrypoint is stood in for by a script that runs its arguments, which is what it does on such a
 * directory once its checks pass; the first start (no system schema) is left to the entrypoint untouched.
 */
import t from 'tap';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MARIADB_START_SCRIPT } from '../../src/render/database/render.js';
import { syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { syncRequest, testContext } from '../helpers/hooks.js';
import { ironicDatabase } from '../fixtures/database-scenarios.js';
import { childOf, containerOf, podSpecOf, podTemplateOf } from '../helpers/render.js';
import { present } from '../support/paths.js';
import { freePort, ownTmpdir, stopProcess } from '../support/processes.js';

const run = promisify(execFile);
// mariadbd cleans its temporary directory when it starts: not the one of another test's server.
ownTmpdir();
const have = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
const MISSING = ['mariadbd', 'mariadb', 'mariadb-install-db'].filter((p) => !have(p) && !existsSync(`/usr/sbin/${p}`));

type Scene = { readonly dir: string; readonly data: string; readonly credentials: string; readonly bin: string; readonly sql: string };

const scene = (): Scene => {
  const dir = mkdtempSync(join(tmpdir(), 'ironic-db-'));
  const paths = { dir, data: join(dir, 'data'), credentials: join(dir, 'credentials'), bin: join(dir, 'bin'), sql: join(dir, 'run', 'credentials.sql') };
  for (const d of [paths.data, paths.credentials, paths.bin, join(dir, 'run')]) mkdirSync(d, { recursive: true });
  // The entrypoint on a data directory that exists: it starts the server with the arguments it was given.
  writeFileSync(
    join(paths.bin, 'docker-entrypoint.sh'),
    '#!/bin/sh\nprintf "%s\\n" "$@" > "$ENTRYPOINT_ARGS"\n[ -z "$ENTRYPOINT_DRY" ] || exit 0\nexec "$@"\n',
  );
  chmodSync(join(paths.bin, 'docker-entrypoint.sh'), 0o755);
  return paths;
};

const setCredentials = (s: Scene, username: string, password: string): void => {
  // As a Secret volume shows them: the values as they are, no trailing newline added.
  writeFileSync(join(s.credentials, 'username'), username);
  writeFileSync(join(s.credentials, 'password'), password);
};

/** Runs the rendered start script as the container would, with the paths of the scene. */
const start = (s: Scene, port: number, dry = false): ChildProcess =>
  spawn(
    'bash',
    [
      '-c',
      MARIADB_START_SCRIPT,
      'start-mariadb',
      '/usr/sbin/mariadbd',
      '--no-defaults',
      `--datadir=${s.data}`,
      `--socket=${join(s.dir, 'run', 'mysqld.sock')}`,
      `--pid-file=${join(s.dir, 'run', 'mysqld.pid')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--user=${userInfo().username}`,
      '--skip-log-bin',
    ],
    {
      env: {
        PATH: `${s.bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        DATADIR: s.data,
        TMPDIR: tmpdir(),
        CREDENTIALS_DIR: s.credentials,
        CREDENTIALS_SQL: s.sql,
        ENTRYPOINT_ARGS: join(s.dir, 'entrypoint-args'),
        ...(dry && { ENTRYPOINT_DRY: '1' }),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );

/** Whether `user` logs in over TCP with `password` (and may use the ironic schema). */
const logsIn = async (port: number, user: string, password: string): Promise<boolean> => {
  try {
    await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${port}`, `-u${user}`, '-e', 'CREATE TABLE IF NOT EXISTS ironic.probe (id INT)'], {
      env: { ...process.env, MYSQL_PWD: password },
    });
    return true;
  } catch {
    return false;
  }
};

/** Whether root logs in over the socket with `password` (root@localhost exists on the socket only). */
const logsInAsRoot = async (s: Scene, password: string): Promise<boolean> => {
  try {
    await run('mariadb', ['--no-defaults', `--socket=${join(s.dir, 'run', 'mysqld.sock')}`, '-uroot', '-e', 'SELECT 1'], {
      env: { ...process.env, MYSQL_PWD: password },
    });
    return true;
  } catch {
    return false;
  }
};

const waitUntil = async (check: () => Promise<boolean>, server: ChildProcess, what: string): Promise<void> => {
  for (let i = 0; i < 150; i += 1) {
    if (server.exitCode !== null) throw new Error(`mariadbd exited (${server.exitCode}) before ${what}`);
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting until ${what}`);
};

t.test('the rendered mariadb container starts with the script, and reads the credentials where they are mounted', async (t) => {
  const response = syncIronicDatabase(syncRequest({ parent: ironicDatabase({}), children: {}, related: {} }), testContext());
  const set = present(childOf(response.children, 'StatefulSet'));
  const pod = podSpecOf(podTemplateOf(set)?.spec);
  const container = present(containerOf(pod, 'mariadb'));
  t.same(container.command, ['bash', '-c', MARIADB_START_SCRIPT, 'start-mariadb', 'mariadbd']);
  const mountOf = (name: string): string => present(container.volumeMounts?.find((m) => m.name === name)).mountPath;
  t.ok(MARIADB_START_SCRIPT.includes(`CREDENTIALS_DIR:-${mountOf('credentials')}}`), 'the default is the mount path');
  t.ok(MARIADB_START_SCRIPT.includes(`CREDENTIALS_SQL:-${mountOf('run')}/`), 'the SQL goes to the run emptyDir');
  t.ok(MARIADB_START_SCRIPT.includes(`DATADIR:-${mountOf('data')}}`), 'the data directory');
  const annotations = podTemplateOf(set)?.metadata?.annotations ?? {};
  t.match(annotations['ironic.metal3.io/credentials-version'], /^[0-9a-f]{16}$/, 'a keyed hash of the credentials restarts the pod when they change');
});

t.test('a new password, a new user name, and a first start left to the entrypoint, with a real mariadbd', async (t) => {
  t.same(MISSING, [], 'mariadb-server is installed (apt-get install mariadb-server; .ci/run does it)');
  if (MISSING.length > 0) return;
  const s = scene();
  t.teardown(() => rmSync(s.dir, { recursive: true, force: true }));

  // The first start: no system schema yet, so the entrypoint initializes as it always did, without --init-file.
  setCredentials(s, 'ironic', 'first-password');
  const first = start(s, await freePort(), true);
  await new Promise((resolve) => first.once('exit', resolve));
  t.notOk(readFileSync(join(s.dir, 'entrypoint-args'), 'utf8').includes('--init-file'), 'no --init-file on the first start');
  t.notOk(existsSync(s.sql), 'no SQL written');

  // What the entrypoint's first start leaves: the system schema and the ironic database.
  await run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${s.data}`,
    `--user=${userInfo().username}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ]);
  mkdirSync(join(s.data, 'ironic'));

  const port = await freePort();
  let server = start(s, port);
  t.teardown(() => stopProcess(server));
  await waitUntil(() => logsIn(port, 'ironic', 'first-password'), server, 'ironic logs in with the first password');
  t.ok(readFileSync(join(s.dir, 'entrypoint-args'), 'utf8').includes(`--init-file=${s.sql}`), 'the server is given the SQL');
  await stopProcess(server);

  // A new password with everything an SQL string literal must escape.
  const tricky = `it's a "new"\\pass\nword; DROP USER 'ironic'@'%'; --`;
  setCredentials(s, 'ironic', tricky);
  server = start(s, port);
  await waitUntil(() => logsIn(port, 'ironic', tricky), server, 'ironic logs in with the new password');
  t.notOk(await logsIn(port, 'ironic', 'first-password'), 'the previous password no longer works');
  t.ok(await logsInAsRoot(s, tricky), 'root@localhost (over the socket) has the new password too');
  await stopProcess(server);

  // Another user name in the Secret: the user is created with the grants Ironic needs.
  setCredentials(s, 'bob', 'bobs-password');
  server = start(s, port);
  await waitUntil(() => logsIn(port, 'bob', 'bobs-password'), server, 'bob logs in');
  await stopProcess(server);
});
