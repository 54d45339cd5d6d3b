/**
 * The backup before an Ironic version upgrade (the IronicDatabase's spec.backup.beforeUpgrade): the gate that
 * holds the pre-upgrade Job until the backup Job succeeded, walked through simulated observed Job states, a
 * table of the gate's cases (engine Builtin; engine MariaDBOperator: upgrade-backup-galera.test.ts), the backup Job's pod next to the database's CronJob, and determinism.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ironic, syncBody, testServer, type Obj, type SyncBody } from '../helpers/hooks.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { READY_MANAGED_DATABASE_STATUS, related } from '../fixtures/ironic-scenarios.js';
import { DB_TLS, ironicDatabase } from '../fixtures/database-scenarios.js';
import { objAt, present } from '../support/paths.js';

type Observed = Record<string, Record<string, Obj>>;
type JobState = 'Complete' | 'Failed' | 'Running';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const BACKUP_JOB = 'ironic-backup-37.0-to-38.0';
const PRE_JOB = 'ironic-pre-37.0-to-38.0';
const POST_JOB = 'ironic-post-37.0-to-38.0';

/** A ready IronicDatabase `ironic-db` as the Ironic sees it (related), with the given spec.backup. */
const database = (backup: unknown, status: Obj = {}): Obj =>
  ironicDatabase(
    { ...(backup !== undefined && { backup }), tlsCertificateName: 'db-tls' },
    {
      status: { ...READY_MANAGED_DATABASE_STATUS, ...status },
    },
  );

const BACKUP = { schedule: '30 2 * * *', retention: { count: 5 } };

const sync = async (app: FastifyInstance, parent: Obj, children: Observed, db: Obj): Promise<SyncBody> => {
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children, related: related(db) } });
  t.equal(response.statusCode, 200);
  return syncBody(response);
};

const jobs = (r: SyncBody): string[] => r.children.filter((c) => c['kind'] === 'Job').map((c) => String(objAt(c, 'metadata')['name']));
const ready = (r: SyncBody): Obj => present(r.status.conditions[0], 'the Ready condition');
const image = (r: SyncBody): string => {
  const d = present(r.children.find((c) => c['kind'] === 'Deployment'));
  return String(objAt(d, 'spec', 'template', 'spec', 'containers', 0)['image']);
};
const upgradeBackup = (r: SyncBody): Obj => objAt(r.status, 'upgradeBackup');

/** Applies a response; Jobs get the states the test chooses (Running unless named), the Deployment is available or rolling. */
const apply = (r: SyncBody, previous: Observed, states: { deployment?: boolean; jobs?: Record<string, JobState> }): Observed =>
  observeAll(r.children, previous, (o) => {
    const name = String(objAt(o, 'metadata')['name']);
    if (o['kind'] === 'Deployment') return states.deployment === false ? { observedGeneration: 0 } : availableDeployment(o);
    if (o['kind'] !== 'Job') return undefined;
    const state = states.jobs?.[name] ?? 'Running';
    if (state === 'Running') return { active: 1 };
    return {
      ...(state === 'Complete' && { completionTime: '2026-01-01T00:05:00Z' }),
      conditions: [
        { type: state, status: 'True', ...(state === 'Failed' && { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }) },
      ],
    };
  });

const installedStatus = (version: string, extra: Obj = {}): Obj => ({
  requestedVersion: version,
  installedVersion: version,
  conditions: [{ type: 'Ready', status: 'True', reason: 'DeploymentAvailable', message: 'ok', lastTransitionTime: '2025-12-01T00:00:00Z' }],
  ...extra,
});

/** An Ironic installed at 37.0 on `db`, its children observed ready, and the same Ironic asking for 38.0. */
const upgrading = async (app: FastifyInstance, db: Obj): Promise<{ parent: Obj; children: Observed }> => {
  const installed = ironic({ networking: provisioning, databaseName: 'ironic-db', version: '37.0' }, { status: installedStatus('37.0') });
  const first = await sync(app, installed, {}, db);
  const parent = {
    ...installed,
    spec: { ...objAt(installed, 'spec'), version: '38.0' },
    metadata: { ...objAt(installed, 'metadata'), generation: 2 },
  };
  return { parent, children: apply(first, {}, {}) };
};

t.test('37.0 → 38.0 with backups before upgrades, step by step', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const db = database(BACKUP);
  const start = await upgrading(app, db);

  // 1. The backup Job comes first: no pre-upgrade Job, the workload stays on 37.0.
  let r = await sync(app, start.parent, start.children, db);
  t.same(jobs(r), [BACKUP_JOB]);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');
  t.equal(ready(r)['status'], 'False');
  t.match(String(ready(r)['message']), `backing up IronicDatabase ironic-db before the upgrade from 37.0 to 38.0: Job ${BACKUP_JOB} is being created`);
  t.match(upgradeBackup(r), { kind: 'Job', name: BACKUP_JOB, databaseName: 'ironic-db', fromVersion: '37.0', toVersion: '38.0', state: 'Running' });
  let parent = { ...start.parent, status: r.status };
  let observed = apply(r, start.children, {});

  // 2. The backup runs: nothing else moves.
  r = await sync(app, parent, observed, db);
  t.same(jobs(r), [BACKUP_JOB]);
  t.match(String(ready(r)['message']), `Job ${BACKUP_JOB} is running`);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0');

  // 3. The backup completed: the pre-upgrade Job runs; the backup Job stays; the status records it (and its file, once the database reports it).
  const reported = database(BACKUP, { backup: { lastSuccessfulJob: BACKUP_JOB, lastBackup: 'ironic-20260101T000400Z.sql.gz' } });
  observed = apply(r, observed, { jobs: { [BACKUP_JOB]: 'Complete' } });
  r = await sync(app, parent, observed, reported);
  t.same(jobs(r), [BACKUP_JOB, PRE_JOB]);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0', 'the workload waits for the schema');
  t.same(upgradeBackup(r), {
    kind: 'Job',
    name: BACKUP_JOB,
    databaseName: 'ironic-db',
    fromVersion: '37.0',
    toVersion: '38.0',
    state: 'Succeeded',
    completionTime: '2026-01-01T00:05:00Z',
    backup: 'ironic-20260101T000400Z.sql.gz',
  });
  parent = { ...parent, status: r.status };

  // 4. Through the upgrade: the backup Job stays in the response while the transition lasts.
  observed = apply(r, observed, { jobs: { [BACKUP_JOB]: 'Complete', [PRE_JOB]: 'Complete' } });
  r = await sync(app, parent, observed, db);
  t.same(jobs(r), [BACKUP_JOB, PRE_JOB]);
  t.equal(image(r), 'quay.io/metal3-io/ironic:release-38.0');
  parent = { ...parent, status: r.status };
  observed = apply(r, observed, { jobs: { [BACKUP_JOB]: 'Complete', [PRE_JOB]: 'Complete' } });
  r = await sync(app, parent, observed, db);
  t.same(jobs(r), [BACKUP_JOB, PRE_JOB, POST_JOB]);
  parent = { ...parent, status: r.status };
  observed = apply(r, observed, { jobs: { [BACKUP_JOB]: 'Complete', [PRE_JOB]: 'Complete', [POST_JOB]: 'Complete' } });
  r = await sync(app, parent, observed, db);
  t.equal(ready(r)['status'], 'True');
  t.equal(r.status['installedVersion'], '38.0');
  t.equal(upgradeBackup(r)['backup'], 'ironic-20260101T000400Z.sql.gz', 'the file stays recorded once the database moved on');

  // 5. Installed: every Job of the transition leaves the response; the status keeps the record of the backup.
  const done = await sync(app, { ...parent, status: r.status }, observed, db);
  t.same(jobs(done), []);
  t.equal(upgradeBackup(done)['state'], 'Succeeded');
  t.equal(upgradeBackup(done)['toVersion'], '38.0');
});

type Case = {
  readonly scenario: string;
  readonly db: Obj;
  readonly backupJob?: JobState;
  readonly previous?: Obj;
  readonly version?: string;
  readonly jobs: readonly string[];
  readonly ready: RegExp;
  readonly state?: string;
};

const succeededRecord = { kind: 'Job', name: BACKUP_JOB, databaseName: 'ironic-db', fromVersion: '37.0', toVersion: '38.0', state: 'Succeeded' };

const CASES: readonly Case[] = [
  { scenario: 'no backups: the pre-upgrade Job runs', db: database(undefined), jobs: [PRE_JOB], ready: /pre-upgrade job/ },
  {
    scenario: 'beforeUpgrade false: the pre-upgrade Job runs',
    db: database({ ...BACKUP, beforeUpgrade: false }),
    jobs: [PRE_JOB],
    ready: /pre-upgrade job/,
  },
  { scenario: 'backup pending', db: database(BACKUP), jobs: [BACKUP_JOB], ready: /is being created/, state: 'Running' },
  { scenario: 'backup running', db: database(BACKUP), backupJob: 'Running', jobs: [BACKUP_JOB], ready: /is running/, state: 'Running' },
  {
    scenario: 'backup succeeded: the pre-upgrade Job runs',
    db: database(BACKUP),
    backupJob: 'Complete',
    jobs: [BACKUP_JOB, PRE_JOB],
    ready: /pre-upgrade job/,
    state: 'Succeeded',
  },
  {
    scenario: 'backup failed: the upgrade is held and says what to do',
    db: database(BACKUP),
    backupJob: 'Failed',
    jobs: [BACKUP_JOB],
    ready:
      /^the upgrade from 37.0 to 38.0 is held: the backup of IronicDatabase ironic-db before it failed \(Job ironic-backup-37.0-to-38.0: Job has reached the specified backoff limit\).*delete Job ironic-backup-37.0-to-38.0 to take the backup again, or set spec.backup.beforeUpgrade to false on IronicDatabase ironic-db/,
    state: 'Failed',
  },
  {
    scenario: 'backup succeeded and its Job deleted: never taken again for this upgrade',
    db: database(BACKUP),
    previous: succeededRecord,
    jobs: [PRE_JOB],
    ready: /pre-upgrade job/,
    state: 'Succeeded',
  },
  {
    scenario: 'a failed backup whose Job was deleted: taken again',
    db: database(BACKUP),
    previous: { ...succeededRecord, state: 'Failed' },
    jobs: [BACKUP_JOB],
    ready: /is being created/,
    state: 'Running',
  },
  {
    scenario: 'a record of another upgrade does not count',
    db: database(BACKUP),
    previous: { ...succeededRecord, fromVersion: '36.0', name: 'ironic-backup-36.0-to-38.0' },
    jobs: [BACKUP_JOB],
    ready: /is being created/,
    state: 'Running',
  },
  { scenario: 'version unchanged: no backup, no Job', db: database(BACKUP), version: '37.0', jobs: [], ready: /Ironic is available/ },
  {
    scenario: 'a record of the same transition by another kind does not count',
    db: database(BACKUP),
    previous: { ...succeededRecord, kind: 'Backup' },
    jobs: [BACKUP_JOB],
    ready: /is being created/,
    state: 'Running',
  },
];

t.test('the gate of the pre-upgrade Job', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  for (const c of CASES) {
    await t.test(c.scenario, async (t) => {
      const start = await upgrading(app, c.db);
      const parent0 = { ...start.parent, spec: { ...objAt(start.parent, 'spec'), version: c.version ?? '38.0' } };
      const previous = c.previous !== undefined ? installedStatus('37.0', { requestedVersion: '38.0', upgradeBackup: c.previous }) : installedStatus('37.0');
      let children = start.children;
      if (c.backupJob !== undefined) {
        // The backup Job as an earlier sync created it, in the chosen state.
        const first = await sync(app, { ...parent0, status: installedStatus('37.0') }, start.children, c.db);
        children = apply(first, start.children, { jobs: { [BACKUP_JOB]: c.backupJob } });
      }
      const r = await sync(app, { ...parent0, status: previous }, children, c.db);
      t.same(jobs(r), c.jobs);
      t.match(String(ready(r)['message']), c.ready);
      t.equal(ready(r)['status'], c.version === '37.0' ? 'True' : 'False');
      if (c.state !== undefined) t.equal(upgradeBackup(r)['state'], c.state);
      else if (c.previous === undefined) t.notOk(r.status['upgradeBackup'], 'no record without a backup');
      t.equal(image(r), 'quay.io/metal3-io/ironic:release-37.0', 'the workload stays on the installed version before the schema moves');
    });
  }
});

t.test('a failed backup that is no longer asked for (beforeUpgrade set to false) lets the upgrade go on, and its Job goes', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const db = database(BACKUP);
  const start = await upgrading(app, db);
  const r1 = await sync(app, start.parent, start.children, db);
  const observed = apply(r1, start.children, { jobs: { [BACKUP_JOB]: 'Failed' } });
  const r = await sync(app, { ...start.parent, status: r1.status }, observed, database({ ...BACKUP, beforeUpgrade: false }));
  t.same(jobs(r), [PRE_JOB]);
  t.equal(upgradeBackup(r)['state'], 'Running', 'the last record is kept as it was');
});

t.test("the backup Job's pod is the database's CronJob's, on its backup volume, and counts as one of its backups", async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const db = database(BACKUP);
  const response = await app.inject({
    method: 'POST',
    url: '/ironicdatabase/sync',
    payload: {
      parent: { ...db, status: {} },
      children: {},
      related: related(DB_TLS),
    },
  });
  const cronJob = present(
    syncBody(response).children.find((c) => c['kind'] === 'CronJob'),
    'the CronJob',
  );
  const start = await upgrading(app, db);
  const r = await sync(app, start.parent, start.children, db);
  const job = present(r.children.find((c) => c['kind'] === 'Job'));
  t.same(objAt(job, 'spec'), objAt(cronJob, 'spec', 'jobTemplate', 'spec'), 'the same Job spec: pod template, retries');
  t.match(objAt(job, 'spec', 'template', 'spec', 'volumes', 1), { persistentVolumeClaim: { claimName: 'ironic-db-database-backups' } });
  t.match(objAt(job, 'metadata', 'labels'), objAt(cronJob, 'spec', 'jobTemplate', 'metadata', 'labels'), "the database's backup labels");
  new Job(job).validate();
});

t.test('a long name and version still make a valid Job name', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const db = database(BACKUP);
  const name = 'an-ironic-with-a-rather-long-name-that-fills-most-of-the-label';
  const installed = ironic({ networking: provisioning, databaseName: 'ironic-db', version: '37.0' }, { status: installedStatus('37.0') });
  const parent = { ...installed, metadata: { ...objAt(installed, 'metadata'), name }, spec: { ...objAt(installed, 'spec'), version: 'latest' } };
  const r = await sync(app, parent, {}, db);
  const [job] = jobs(r);
  t.ok(job !== undefined && job.length <= 63 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(job), `${String(job)} is a valid Job name`);
});

t.test('determinism: a sync fed its own output answers the same', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const db = database(BACKUP);
  const start = await upgrading(app, db);
  for (const state of ['Running', 'Complete', 'Failed'] as const) {
    const r1 = await sync(app, start.parent, start.children, db);
    const observed = apply(r1, start.children, { jobs: { [BACKUP_JOB]: state } });
    const r2 = await sync(app, { ...start.parent, status: r1.status }, observed, db);
    const r3 = await sync(app, { ...start.parent, status: r2.status }, observed, db);
    t.same(r3, r2, `backup ${state}`);
  }
});
