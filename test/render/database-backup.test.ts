/**
 * The backup and restore scripts of a Builtin IronicDatabase, run against a real MariaDB server (Debian's
 * mariadb-server, which .ci/run installs): Ironic-like tables and rows are dumped by the rendered backup script as
 * Ironic's user over TCP, the database is dropped, and the restore script brings the rows back. A backup killed
 * midway leaves nothing with a backup's name; a corrupt or truncated file fails the restore with the data untouched.
 */
import t from 'tap';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, chmodSync, readFileSync, statSync } from 'node:fs';
import { gzipSync, gunzipSync } from 'node:zlib';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BACKUP_FILE_PATTERN, BACKUP_SCRIPT, RESTORE_SCRIPT } from '../../src/render/database/backup.js';
import { syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { syncRequest, testContext } from '../helpers/hooks.js';
import { ironicDatabase } from '../fixtures/database-scenarios.js';
import { childOf } from '../helpers/render.js';
import { present, objAt, listAt } from '../support/paths.js';
import { freePort, ownTmpdir, stopProcess } from '../support/processes.js';

const run = promisify(execFile);
// mariadbd cleans its temporary directory when it starts: not the one of another test's server.
ownTmpdir();
const have = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
const MISSING = ['mariadbd', 'mariadb', 'mariadb-dump', 'mariadb-install-db'].filter((p) => !have(p) && !existsSync(`/usr/sbin/${p}`));
const MARIADBD = have('mariadbd') ? 'mariadbd' : '/usr/sbin/mariadbd';

type Scene = {
  readonly dir: string;
  readonly data: string;
  readonly credentials: string;
  readonly backups: string;
  readonly socket: string;
  readonly port: number;
};

const startServer = async (s: Scene): Promise<ChildProcess> => {
  const server = spawn(
    MARIADBD,
    [
      '--no-defaults',
      `--datadir=${s.data}`,
      `--socket=${s.socket}`,
      `--pid-file=${join(s.dir, 'mysqld.pid')}`,
      `--port=${s.port}`,
      '--bind-address=127.0.0.1',
      `--user=${userInfo().username}`,
      '--skip-name-resolve',
      '--skip-log-bin',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  for (let i = 0; i < 150; i += 1) {
    if (server.exitCode !== null) throw new Error(`mariadbd exited (${server.exitCode})`);
    if (spawnSync('mariadb', ['--no-defaults', `--socket=${s.socket}`, '-uroot', '-e', 'SELECT 1'], { stdio: 'ignore' }).status === 0) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('timed out waiting for mariadbd');
};

/** SQL as root over the socket; the rows as tab-separated text. */
const asRoot = async (s: Scene, sql: string): Promise<string> =>
  (await run('mariadb', ['--no-defaults', `--socket=${s.socket}`, '-uroot', '--batch', '--skip-column-names', '-e', sql])).stdout;

type Result = { readonly code: number | null; readonly stdout: string; readonly stderr: string };

/** Runs a rendered script as its container would, with the scene's paths and server. */
const runScript = (s: Scene, script: string, env: Record<string, string> = {}, path?: string): Promise<Result> =>
  new Promise((resolve) => {
    const child = spawn('bash', ['-c', script, 'script'], {
      env: {
        PATH: path ?? process.env['PATH'] ?? '/usr/bin:/bin',
        CREDENTIALS_DIR: s.credentials,
        BACKUP_DIR: s.backups,
        DATABASE_HOST: '127.0.0.1',
        DATABASE_PORT: String(s.port),
        TMPDIR: s.dir,
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

const backupsIn = (s: Scene): string[] =>
  readdirSync(s.backups)
    .filter((f) => BACKUP_FILE_PATTERN.test(f))
    .sort();

const IRONIC_SCHEMA = `
CREATE DATABASE IF NOT EXISTS ironic;
CREATE TABLE ironic.nodes (id INT PRIMARY KEY AUTO_INCREMENT, uuid VARCHAR(36) UNIQUE, name VARCHAR(255), provision_state VARCHAR(15),
  driver_info MEDIUMTEXT, properties TEXT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3;
CREATE TABLE ironic.ports (id INT PRIMARY KEY AUTO_INCREMENT, uuid VARCHAR(36) UNIQUE, address VARCHAR(18), node_id INT,
  extra BLOB, FOREIGN KEY (node_id) REFERENCES ironic.nodes(id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3;
INSERT INTO ironic.nodes (uuid, name, provision_state, driver_info, properties) VALUES
  ('6f8c1c1e-0000-4000-8000-000000000001', 'worker-0', 'active', '{"redfish_address": "https://10.0.0.1", "redfish_password": "it''s \\\\secret"}', '{"cpus": 64}'),
  ('6f8c1c1e-0000-4000-8000-000000000002', 'worker-1', 'available', '{"ipmi_address": "10.0.0.2"}', '{}');
INSERT INTO ironic.ports (uuid, address, node_id, extra) VALUES
  ('7f8c1c1e-0000-4000-8000-000000000001', '52:54:00:00:00:01', 1, X'00FF10'),
  ('7f8c1c1e-0000-4000-8000-000000000002', '52:54:00:00:00:02', 2, NULL);
`;
const ROWS =
  'SELECT n.name, n.provision_state, n.driver_info, p.address, HEX(p.extra) FROM ironic.nodes n JOIN ironic.ports p ON p.node_id = n.id ORDER BY p.id';

t.test('the rendered CronJob runs the backup script as the database user, with the claim and the credentials files', async (t) => {
  const response = syncIronicDatabase(
    syncRequest({ parent: ironicDatabase({ backup: { schedule: '30 2 * * *', retention: { count: 3 } } }), children: {}, related: {} }),
    testContext(),
  );
  const cronJob = present(childOf(response.children, 'CronJob'));
  const pod = objAt(cronJob, 'spec', 'jobTemplate', 'spec', 'template', 'spec');
  const container = objAt(listAt(pod, 'containers')[0]);
  t.same(container['command'], ['bash', '-c', BACKUP_SCRIPT, 'backup-database']);
  t.notOk(JSON.stringify(container['env']).includes('password'), 'no credentials in the environment');
  t.match(container['env'], [
    { name: 'DATABASE_HOST', value: 'ironic-db-database.metal3.svc' },
    { name: 'DATABASE_PORT', value: '3306' },
    { name: 'RETENTION_COUNT', value: '3' },
  ]);
  t.match(container['volumeMounts'], [
    { name: 'credentials', mountPath: '/auth/mariadb' },
    { name: 'backups', mountPath: '/backups' },
  ]);
  t.ok(BACKUP_SCRIPT.includes('CREDENTIALS_DIR:-/auth/mariadb}') && BACKUP_SCRIPT.includes('BACKUP_DIR:-/backups}'), 'the defaults are the mount paths');
  t.match(childOf(response.children, 'PersistentVolumeClaim'), {
    metadata: { name: 'ironic-db-database-backups' },
    spec: { resources: { requests: { storage: '10Gi' } } },
  });
  t.match(objAt(cronJob, 'spec'), { concurrencyPolicy: 'Forbid', timeZone: 'Etc/UTC', schedule: '30 2 * * *' });

  const observedClaim = present(childOf(response.children, 'PersistentVolumeClaim'));
  const without = syncIronicDatabase(
    syncRequest({
      parent: ironicDatabase({}),
      children: {
        'PersistentVolumeClaim.v1': { 'ironic-db-database-backups': { ...observedClaim, metadata: { ...observedClaim.metadata, namespace: 'metal3' } } },
      },
      related: {},
    }),
    testContext(),
  );
  t.equal(childOf(without.children, 'CronJob'), undefined, 'removing spec.backup stops the backups');
  t.ok(childOf(without.children, 'PersistentVolumeClaim'), 'but keeps the backups taken');
});

t.test('back up, drop, restore, with a real MariaDB; interrupted backups and corrupt files', async (t) => {
  t.same(MISSING, [], 'mariadb-server is installed (apt-get install mariadb-server; .ci/run does it)');
  if (MISSING.length > 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'ironic-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const s: Scene = {
    dir,
    data: join(dir, 'data'),
    credentials: join(dir, 'credentials'),
    backups: join(dir, 'backups'),
    socket: join(dir, 'mysqld.sock'),
    port: await freePort(),
  };
  for (const d of [s.data, s.credentials, s.backups]) mkdirSync(d, { recursive: true });
  await run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${s.data}`,
    `--user=${userInfo().username}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ]);
  const server = await startServer(s);
  t.teardown(() => stopProcess(server));
  await asRoot(s, `${IRONIC_SCHEMA} CREATE USER 'ironic'@'%' IDENTIFIED BY 'Very_Secret-1'; GRANT ALL ON \`ironic\`.* TO 'ironic'@'%';`);
  // As a Secret volume shows them: the values as they are.
  writeFileSync(join(s.credentials, 'username'), 'ironic');
  writeFileSync(join(s.credentials, 'password'), 'Very_Secret-1');
  const rows = await asRoot(s, ROWS);
  t.match(rows, /worker-0\tactive\t.*\t52:54:00:00:00:01\t00FF10/);

  // Older backups for the retention: two by name, one by age.
  const old = ['ironic-20200101T000000Z.sql.gz', 'ironic-20200102T000000Z.sql.gz', 'ironic-20200103T000000Z.sql.gz'];
  for (const name of old) writeFileSync(join(s.backups, name), gzipSync('-- Dump completed\n'));
  const longAgo = new Date(Date.now() - 3 * 3600 * 1000);
  utimesSync(join(s.backups, old[2] ?? ''), longAgo, longAgo);
  writeFileSync(join(s.backups, 'notes.txt'), 'not a backup');

  const terminationLog = join(dir, 'termination-log');
  writeFileSync(terminationLog, '');
  const backup = await runScript(s, BACKUP_SCRIPT, { RETENTION_COUNT: '3', RETENTION_MAX_AGE_MINUTES: '60', TERMINATION_LOG: terminationLog });
  t.equal(backup.code, 0, `the backup succeeds: ${backup.stderr}`);
  const taken = backupsIn(s).filter((f) => !old.includes(f));
  t.equal(taken.length, 1, 'one new backup, named by its UTC time');
  const name = taken[0] ?? '';
  t.match(backup.stdout, new RegExp(`backup ${name.replace(/\./g, '\\.')} written \\([0-9]+ bytes\\)`));
  t.same(backupsIn(s), [old[1], name].sort(), 'the count keeps the newest 3 (the oldest pruned), then the age prunes the one older than an hour');
  t.ok(existsSync(join(s.backups, 'notes.txt')), 'other files are left alone');
  t.equal(
    readFileSync(terminationLog, 'utf8'),
    `${name} ${statSync(join(s.backups, name)).size}`,
    "the file's name and size are the pod's termination message, for the status",
  );
  const dump = gunzipSync(readFileSync(join(s.backups, name))).toString();
  t.match(dump, /CREATE TABLE `nodes`/);
  t.match(dump, /-- Dump completed/);
  t.notMatch(dump, /CREATE DATABASE/, 'the schema only: it restores into any database named ironic');
  t.notMatch(dump, /LOCK TABLES/, 'no LOCK TABLES, which Galera does not support: mariadb-operator can replay it into a Galera cluster');

  // A lost database.
  await asRoot(s, 'DROP DATABASE ironic');
  writeFileSync(terminationLog, '');
  const restore = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: 'latest', TERMINATION_LOG: terminationLog });
  t.equal(restore.code, 0, `the restore succeeds: ${restore.stderr}`);
  t.match(restore.stdout, `restored ${name}`);
  t.equal(readFileSync(terminationLog, 'utf8'), name, 'the file latest was is the termination message, for status.restoredFrom');
  t.equal(await asRoot(s, ROWS), rows, 'every row is back, binary and escaped values included');
  const again = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: name });
  t.equal(again.code, 0, 'restoring by name, twice, gives the same rows');
  t.equal(await asRoot(s, ROWS), rows);

  // Into a Galera cluster (README, Backups and restore): mariadb-operator's Restore with `database: ironic` replays
  // the decompressed file with `mariadb --one-database ironic` into the schema its Database object made.
  await asRoot(s, 'DROP DATABASE ironic; CREATE DATABASE ironic');
  const decompressed = join(dir, 'restore.sql');
  writeFileSync(decompressed, dump);
  const operatorRestore = spawnSync('sh', ['-c', `mariadb --no-defaults --socket="$1" -uroot --one-database ironic < "$2"`, 'restore', s.socket, decompressed]);
  t.equal(operatorRestore.status, 0, `mariadb-operator's restore command succeeds: ${operatorRestore.stderr.toString()}`);
  t.equal(await asRoot(s, ROWS), rows, 'every row is back');
  rmSync(decompressed);

  // A corrupt file and a truncated dump: a clear failure, nothing changed.
  await asRoot(s, "UPDATE ironic.nodes SET provision_state = 'deploying' WHERE name = 'worker-1'");
  const changed = await asRoot(s, ROWS);
  const corrupt = 'ironic-20990101T000000Z.sql.gz';
  const full = readFileSync(join(s.backups, name));
  writeFileSync(join(s.backups, corrupt), Buffer.concat([full.subarray(0, full.length / 2), Buffer.from('garbage')]));
  const bad = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: corrupt });
  t.not(bad.code, 0, 'the restore of a corrupt file fails');
  t.match(bad.stderr, `restore failed: ${corrupt} is corrupt (not a complete gzip file); nothing was changed`);
  t.equal(await asRoot(s, ROWS), changed, 'the data is untouched');
  const truncated = 'ironic-20990102T000000Z.sql.gz';
  writeFileSync(join(s.backups, truncated), gzipSync(dump.slice(0, dump.indexOf('INSERT INTO `ports`'))));
  const cut = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: truncated });
  t.not(cut.code, 0);
  t.match(cut.stderr, `restore failed: ${truncated} is not a complete mariadb-dump`);
  t.equal(await asRoot(s, ROWS), changed, 'the data is untouched');
  const missing = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: 'ironic-20000101T000000Z.sql.gz' });
  t.match(missing, { code: 1, stderr: /there is no backup ironic-20000101T000000Z\.sql\.gz/ });
  rmSync(join(s.backups, corrupt));
  rmSync(join(s.backups, truncated));

  // A failed dump (a wrong password) is a failed run, and leaves no file.
  const before = readdirSync(s.backups).sort();
  writeFileSync(join(s.credentials, 'password'), 'wrong');
  const failed = await runScript(s, BACKUP_SCRIPT, { RETENTION_COUNT: '3' });
  t.not(failed.code, 0, 'the failed dump fails the Job');
  t.match(failed.stderr, /Access denied/);
  t.same(readdirSync(s.backups).sort(), before, 'no partial or empty backup is left');
  writeFileSync(join(s.credentials, 'password'), 'Very_Secret-1');

  // A backup killed midway (the node lost, the pod evicted): a hidden partial file at most, never a backup's name.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mariadb-dump'), '#!/bin/sh\nprintf -- "-- MariaDB dump\\nCREATE TABLE `nodes` (\\n"\nexec sleep 60\n');
  chmodSync(join(bin, 'mariadb-dump'), 0o755);
  const killed = spawn('bash', ['-c', BACKUP_SCRIPT, 'script'], {
    env: {
      PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      CREDENTIALS_DIR: s.credentials,
      BACKUP_DIR: s.backups,
      DATABASE_HOST: '127.0.0.1',
      DATABASE_PORT: String(s.port),
      TMPDIR: dir,
    },
    detached: true,
    stdio: 'ignore',
  });
  for (let i = 0; i < 100 && !readdirSync(s.backups).some((f) => f.endsWith('.partial')); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  process.kill(-(killed.pid ?? 0), 'SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const leftovers = readdirSync(s.backups).filter((f) => !before.includes(f));
  t.match(leftovers, [/^\.ironic-[0-9]{8}T[0-9]{6}Z\.sql\.gz\.partial$/], 'only a hidden partial file is left');
  t.same(
    backupsIn(s),
    before.filter((f) => BACKUP_FILE_PATTERN.test(f)),
    'no new backup is listed',
  );
  const latest = await runScript(s, RESTORE_SCRIPT, { RESTORE_FROM: 'latest' });
  t.match(latest.stdout, `restoring ${name}`, 'latest is still the last complete backup');
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const next = await runScript(s, BACKUP_SCRIPT, { RETENTION_COUNT: '5' });
  t.equal(next.code, 0);
  t.same(
    readdirSync(s.backups).filter((f) => f.endsWith('.partial')),
    [],
    'the next run deletes the partial file',
  );
});
