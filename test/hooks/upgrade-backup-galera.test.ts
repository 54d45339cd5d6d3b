/**
 * The backup before an Ironic version upgrade on a Galera IronicDatabase (engine MariaDBOperator): a one-shot
 * mariadb-operator Backup into the claim or bucket of the database's scheduled Backup, checked against
 * mariadb-operator's published CRD schema (test/fixtures/mariadb-operator); the gate that holds the pre-upgrade
 * Job until mariadb-operator reports the Backup complete, walked step by step and through a table of what
 * mariadb-operator reports (pkg/condition/complete.go, SetCompleteWithJob, at 26.6.0); and determinism.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { FIXED_NOW, fakeSecrets, ironic, syncBody, testServer, type Obj, type SyncBody } from '../helpers/hooks.js';
import { availableDeployment, observeAll, validateK8s } from '../helpers/k8s.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { ironicDatabase, WITH_MARIADB_OPERATOR } from '../fixtures/database-scenarios.js';
import { objAt, present } from '../support/paths.js';

type Observed = Record<string, Record<string, Obj>>;
/** What mariadb-operator reports of the one-shot Backup, and the Jobs' states. */
type BackupState = 'Running' | 'Complete' | 'Failed' | 'NoMariaDB' | 'Unreported';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const BACKUP = 'ironic-backup-37.0-to-38.0';
const PRE_JOB = 'ironic-pre-37.0-to-38.0';
const POST_JOB = 'ironic-post-37.0-to-38.0';
const COMPLETED_AT = '2026-01-01T00:05:00Z';
const S3 = { endpoint: 'minio.storage.svc:9000', bucket: 'metal3', prefix: 'ironic/', credentialsSecretName: 's3', caSecretName: 's3-ca' };

/** A ready Galera IronicDatabase `ironic-db` as the Ironic sees it (related), with the given spec.backup. */
const database = (backup: unknown): Obj =>
  ironicDatabase(
    { engine: 'MariaDBOperator', ...(backup !== undefined && { backup }), nodeSelector: { disk: 'ssd' }, priorityClassName: 'db-critical' },
    {
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'DatabaseAvailable', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        host: 'ironic-db-database-primary.metal3.svc',
        port: 3306,
        databaseName: 'ironic',
        credentialsName: 'ironic-db-database-credentials',
      },
    },
  );

const DAILY = { schedule: '30 2 * * *', retention: { maxAge: '14d' } };

const sync = async (app: FastifyInstance, parent: Obj, children: Observed, db: Obj): Promise<SyncBody> => {
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children, related: related(db) } });
  t.equal(response.statusCode, 200);
  return syncBody(response);
};

const named = (r: SyncBody, kind: string): string[] => r.children.filter((c) => c['kind'] === kind).map((c) => String(objAt(c, 'metadata')['name']));
const backupOf = (r: SyncBody): Obj =>
  present(
    r.children.find((c) => c['kind'] === 'Backup'),
    'the Backup',
  );
const ready = (r: SyncBody): Obj => present(r.status.conditions[0], 'the Ready condition');
const image = (r: SyncBody): string => {
  const d = present(r.children.find((c) => c['kind'] === 'Deployment'));
  return String(objAt(d, 'spec', 'template', 'spec', 'containers', 0)['image']);
};
const upgradeBackup = (r: SyncBody): Obj => objAt(r.status, 'upgradeBackup');

/** The status mariadb-operator writes on a one-shot Backup in each state. */
const backupStatus = (state: BackupState): Obj | undefined => {
  const complete = (status: string, reason: string, message: string): Obj => ({
    conditions: [{ type: 'Complete', status, reason, message, lastTransitionTime: COMPLETED_AT }],
  });
  switch (state) {
    case 'Running':
      return complete('False', 'JobRunning', 'Running');
    case 'Complete':
      return complete('True', 'JobComplete', 'Success');
    case 'Failed':
      return complete('True', 'JobFailed', 'Failed');
    case 'NoMariaDB':
      return complete('False', 'Failed', 'MariaDB not found');
    case 'Unreported':
      return undefined;
  }
};

/** Applies a response: the Backup in `backup`'s state, the upgrade Jobs complete when named in `done`, the Deployment available. */
const apply = (r: SyncBody, previous: Observed, backup: BackupState, done: readonly string[] = []): Observed =>
  observeAll(r.children, previous, (o) => {
    const name = String(objAt(o, 'metadata')['name']);
    if (o['kind'] === 'Deployment') return availableDeployment(o);
    if (o['kind'] === 'Backup') return backupStatus(backup);
    if (o['kind'] !== 'Job') return undefined;
    return done.includes(name) ? { completionTime: COMPLETED_AT, conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 };
  });

const installedStatus = (version: string, extra: Obj = {}): Obj => ({
  requestedVersion: version,
  installedVersion: version,
  conditions: [{ type: 'Ready', status: 'True', reason: 'DeploymentAvailable', message: 'ok', lastTransitionTime: '2025-12-01T00:00:00Z' }],
  ...extra,
});

/** An Ironic installed at 37.0 on `db`, its children observed ready, and the same Ironic asking for `version`. */
const upgrading = async (app: FastifyInstance, db: Obj, version = '38.0'): Promise<{ parent: Obj; children: Observed }> => {
  const installed = ironic({ networking: provisioning, databaseName: 'ironic-db', version: '37.0' }, { status: installedStatus('37.0') });
  const first = await sync(app, installed, {}, db);
  const parent = { ...installed, spec: { ...objAt(installed, 'spec'), version }, metadata: { ...objAt(installed, 'metadata'), generation: 2 } };
  return { parent, children: apply(first, {}, 'Unreported') };
};

/** The scheduled Backup the database's own sync renders for the same spec. */
const scheduledBackup = async (app: FastifyInstance, db: Obj, rel: readonly Obj[] = []): Promise<Obj> => {
  const response = await app.inject({
    method: 'POST',
    url: '/ironicdatabase/sync',
    payload: { parent: { ...db, status: {} }, children: {}, related: related(...rel) },
  });
  return present(
    syncBody(response).children.find((c) => c['kind'] === 'Backup'),
    "the database's Backup",
  );
};

const server = (t: { teardown: (fn: () => unknown) => void }): FastifyInstance => {
  const app = testServer(fakeSecrets(), FIXED_NOW, WITH_MARIADB_OPERATOR);
  t.teardown(() => app.close());
  return app;
};

t.test("the one-shot Backup: no schedule, the database's MariaDB, claim and retention, valid for mariadb-operator", async (t) => {
  const app = server(t);
  const db = database(DAILY);
  const start = await upgrading(app, db);
  const r = await sync(app, start.parent, start.children, db);
  const backup = backupOf(r);
  t.doesNotThrow(() => validateK8s(backup), "mariadb-operator's CRD schema accepts it");
  t.match(backup['metadata'], { name: BACKUP, namespace: 'metal3' });
  const scheduled = await scheduledBackup(app, db);
  const scheduledName = String(objAt(scheduled, 'metadata')['name']);
  t.same(backup['spec'], {
    mariaDbRef: { name: 'ironic-db-database' },
    maxRetention: '336h0m0s',
    compression: 'gzip',
    databases: ['ironic'],
    // mariadb-operator names the claim of a Backup's storage.persistentVolumeClaim as the Backup (StoragePVCKey).
    storage: { volume: { persistentVolumeClaim: { claimName: scheduledName } } },
    nodeSelector: { disk: 'ssd' },
    priorityClassName: 'db-critical',
  });
  t.equal(scheduledName, 'ironic-db-database-backup');
  t.ok(objAt(scheduled, 'spec', 'storage')['persistentVolumeClaim'], 'the scheduled Backup is the one that makes the claim');
  const scheduledSpec = objAt(scheduled, 'spec');
  for (const field of ['mariaDbRef', 'maxRetention', 'compression', 'databases', 'nodeSelector', 'priorityClassName'])
    t.same(objAt(backup, 'spec')[field], scheduledSpec[field], `${field} as the scheduled Backup's`);
  t.equal(objAt(backup, 'spec')['schedule'], undefined, 'no schedule: mariadb-operator runs it once, as a Job');
  t.same(named(r, 'Job'), [], 'no Job of ours: no backup Job, and no pre-upgrade Job yet');
});

t.test('to S3: the same bucket, prefix and Secrets as the scheduled Backup', async (t) => {
  const app = server(t);
  const db = database({ schedule: '@daily', s3: S3 });
  const start = await upgrading(app, db);
  const backup = backupOf(await sync(app, start.parent, start.children, db));
  t.doesNotThrow(() => validateK8s(backup));
  const scheduled = await scheduledBackup(app, db, [
    secret('s3', { 'access-key-id': 'AKIA0', 'secret-access-key': 'key' }),
    secret('s3-ca', { 'ca.crt': '-----BEGIN CERTIFICATE-----' }),
  ]);
  t.same(objAt(backup, 'spec', 'storage'), objAt(scheduled, 'spec', 'storage'));
  t.match(objAt(backup, 'spec', 'storage', 's3'), { bucket: 'metal3', prefix: 'ironic/', tls: { enabled: true } });
});

t.test('37.0 → 38.0 on Galera, step by step', async (t) => {
  const app = server(t);
  const db = database(DAILY);
  const start = await upgrading(app, db);

  // 1. The Backup comes first: no pre-upgrade Job, the workload stays on 37.0.
  let r = await sync(app, start.parent, start.children, db);
  t.same(named(r, 'Backup'), [BACKUP]);
  t.same(named(r, 'Job'), []);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');
  t.match(ready(r), {
    status: 'False',
    message: `backing up IronicDatabase ironic-db before the upgrade from 37.0 to 38.0: Backup ${BACKUP} is being created`,
  });
  t.same(upgradeBackup(r), { kind: 'Backup', name: BACKUP, databaseName: 'ironic-db', fromVersion: '37.0', toVersion: '38.0', state: 'Running' });
  let parent = { ...start.parent, status: r.status };
  let observed = apply(r, start.children, 'Running');

  // 2. mariadb-operator runs it: nothing else moves.
  r = await sync(app, parent, observed, db);
  t.same(named(r, 'Job'), []);
  t.match(String(ready(r)['message']), `mariadb-operator's Backup ${BACKUP} reports Running`);

  // 3. Complete: the pre-upgrade Job runs; the Backup stays; the status records it.
  observed = apply(r, observed, 'Complete');
  r = await sync(app, parent, observed, db);
  t.same(named(r, 'Job'), [PRE_JOB]);
  t.same(named(r, 'Backup'), [BACKUP], 'kept while the transition lasts');
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0', 'the workload waits for the schema');
  t.same(upgradeBackup(r), {
    kind: 'Backup',
    name: BACKUP,
    databaseName: 'ironic-db',
    fromVersion: '37.0',
    toVersion: '38.0',
    state: 'Succeeded',
    completionTime: COMPLETED_AT,
  });
  parent = { ...parent, status: r.status };

  // 4. Through the upgrade, then installed: the Backup leaves the response with the Jobs; the record stays.
  for (let round = 0; round < 4 && r.status['installedVersion'] !== '38.0'; round += 1) {
    observed = apply(r, observed, 'Complete', [PRE_JOB, POST_JOB]);
    r = await sync(app, parent, observed, db);
    parent = { ...parent, status: r.status };
  }
  t.equal(r.status['installedVersion'], '38.0');
  t.equal(ready(r)['status'], 'True');
  const done = await sync(app, parent, apply(r, observed, 'Complete', [PRE_JOB, POST_JOB]), db);
  t.same(named(done, 'Backup'), [], 'the one-shot Backup goes (mariadb-operator deletes its Job with it; the file stays)');
  t.same(named(done, 'Job'), []);
  t.match(upgradeBackup(done), { kind: 'Backup', name: BACKUP, state: 'Succeeded', toVersion: '38.0' });
});

type Case = {
  readonly scenario: string;
  readonly db?: Obj;
  readonly backup?: BackupState;
  readonly previous?: Obj;
  readonly version?: string;
  readonly backups: readonly string[];
  readonly jobs: readonly string[];
  readonly ready: RegExp;
  readonly status?: 'True' | 'False';
  readonly reason?: string;
  readonly state?: string;
};

const succeededRecord = { kind: 'Backup', name: BACKUP, databaseName: 'ironic-db', fromVersion: '37.0', toVersion: '38.0', state: 'Succeeded' };

const CASES: readonly Case[] = [
  {
    scenario: 'pending: the Backup is being created',
    backups: [BACKUP],
    jobs: [],
    ready: /Backup ironic-backup-37.0-to-38.0 is being created/,
    state: 'Running',
  },
  {
    scenario: 'observed, not yet reported by mariadb-operator',
    backup: 'Unreported',
    backups: [BACKUP],
    jobs: [],
    ready: /Backup ironic-backup-37.0-to-38.0 is waiting for mariadb-operator/,
    state: 'Running',
  },
  { scenario: 'running', backup: 'Running', backups: [BACKUP], jobs: [], ready: /reports Running$/, state: 'Running' },
  {
    scenario: 'mariadb-operator cannot start it yet (it retries): waiting, with what it says',
    backup: 'NoMariaDB',
    backups: [BACKUP],
    jobs: [],
    ready: /reports MariaDB not found$/,
    reason: 'DeploymentInProgress',
    state: 'Running',
  },
  { scenario: 'complete: the pre-upgrade Job runs', backup: 'Complete', backups: [BACKUP], jobs: [PRE_JOB], ready: /pre-upgrade job/, state: 'Succeeded' },
  {
    scenario: 'failed: the upgrade is held with the Builtin wording and says what to do',
    backup: 'Failed',
    backups: [BACKUP],
    jobs: [],
    ready:
      /^the upgrade from 37.0 to 38.0 is held: the backup of IronicDatabase ironic-db before it failed \(mariadb-operator's Backup ironic-backup-37.0-to-38.0 reports Failed \(JobFailed\)\); the running version is untouched\. .*kubectl logs job\/ironic-backup-37.0-to-38.0.*delete Backup ironic-backup-37.0-to-38.0 to take the backup again.*, or set spec.backup.beforeUpgrade to false on IronicDatabase ironic-db to upgrade without it$/,
    reason: 'DeploymentFailed',
    state: 'Failed',
  },
  {
    scenario: 'complete, then deleted: never taken again for this upgrade',
    previous: succeededRecord,
    backups: [],
    jobs: [PRE_JOB],
    ready: /pre-upgrade job/,
    state: 'Succeeded',
  },
  {
    scenario: 'failed, then deleted: taken again',
    previous: { ...succeededRecord, state: 'Failed' },
    backups: [BACKUP],
    jobs: [],
    ready: /is being created/,
    state: 'Running',
  },
  {
    scenario: "a Builtin Job's record of the same transition does not count",
    previous: { ...succeededRecord, kind: 'Job' },
    backups: [BACKUP],
    jobs: [],
    ready: /is being created/,
    state: 'Running',
  },
  { scenario: 'version unchanged: no Backup', version: '37.0', backups: [], jobs: [], ready: /Ironic is available/, status: 'True' },
  {
    scenario: 'beforeUpgrade false: no Backup, the pre-upgrade Job runs',
    db: database({ ...DAILY, beforeUpgrade: false }),
    backups: [],
    jobs: [PRE_JOB],
    ready: /pre-upgrade job/,
  },
  { scenario: 'no backups: no Backup, the pre-upgrade Job runs', db: database(undefined), backups: [], jobs: [PRE_JOB], ready: /pre-upgrade job/ },
];

t.test('the gate of the pre-upgrade Job on Galera', async (t) => {
  const app = server(t);
  for (const c of CASES) {
    await t.test(c.scenario, async (t) => {
      const db = c.db ?? database(DAILY);
      const start = await upgrading(app, db, c.version);
      const previous = c.previous !== undefined ? installedStatus('37.0', { requestedVersion: '38.0', upgradeBackup: c.previous }) : installedStatus('37.0');
      let children = start.children;
      if (c.backup !== undefined) {
        // The Backup as an earlier sync created it, in the chosen state.
        const first = await sync(app, { ...start.parent, status: installedStatus('37.0') }, start.children, db);
        children = apply(first, start.children, c.backup);
      }
      const r = await sync(app, { ...start.parent, status: previous }, children, db);
      t.same(named(r, 'Backup'), c.backups);
      t.same(named(r, 'Job'), c.jobs);
      t.match(String(ready(r)['message']), c.ready);
      t.equal(ready(r)['status'], c.status ?? 'False');
      if (c.reason !== undefined) t.equal(ready(r)['reason'], c.reason);
      if (c.state !== undefined) t.match(upgradeBackup(r), { kind: 'Backup', name: BACKUP, state: c.state });
      else if (c.previous === undefined) t.notOk(r.status['upgradeBackup'], 'no record without a backup');
      t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0', 'the workload stays on the installed version before the schema moves');
    });
  }
});

t.test('determinism: a sync fed its own output answers the same', async (t) => {
  const app = server(t);
  const db = database(DAILY);
  const start = await upgrading(app, db);
  for (const state of ['Running', 'Complete', 'Failed', 'NoMariaDB'] as const) {
    const r1 = await sync(app, start.parent, start.children, db);
    const observed = apply(r1, start.children, state);
    const r2 = await sync(app, { ...start.parent, status: r1.status }, observed, db);
    const r3 = await sync(app, { ...start.parent, status: r2.status }, observed, db);
    t.same(r3, r2, `Backup ${state}`);
  }
});
