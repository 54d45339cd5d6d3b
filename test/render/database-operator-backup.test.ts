/**
 * Backups and restores of an IronicDatabase with engine MariaDBOperator: mariadb-operator's Backup (to a claim or
 * an S3 bucket) and the MariaDB's bootstrapFrom, each checked against mariadb-operator's published CRD schema
 * (test/fixtures/mariadb-operator); the S3 Secrets a database waits for; the restore holding Ready until
 * mariadb-operator reports it restored; the status read from the Backup and its CronJob. NOTE: S3 is handed to
 * mariadb-operator's own Jobs, so a local S3 server would test mariadb-operator, not these objects.
 */
import t from 'tap';
import { customizeIronicDatabase, syncIronicDatabase } from '../../src/hooks/ironic-database.js';
import { customizeRequest, syncRequest, testConfig, testContext, type Obj } from '../helpers/hooks.js';
import { ironicDatabase, mariadbOperatorReady, primaryService, WITH_MARIADB_OPERATOR } from '../fixtures/database-scenarios.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { observeAll, validateK8s } from '../helpers/k8s.js';
import { listAt, objAt, present } from '../support/paths.js';
import { goDuration } from '../../src/render/shared/mariadb-operator-backup.js';

type Children = Record<string, Record<string, Obj>>;
const context = { ...testContext(), config: testConfig(WITH_MARIADB_OPERATOR).render };
const S3_SECRET = secret('s3', { 'access-key-id': 'AKIA0', 'secret-access-key': 'key' });
const S3_CA = secret('s3-ca', { 'ca.crt': '-----BEGIN CERTIFICATE-----' });
const S3 = { endpoint: 'minio.storage.svc:9000', bucket: 'metal3', prefix: 'ironic/', region: 'eu-1', credentialsSecretName: 's3', caSecretName: 's3-ca' };

const sync = (spec: Obj, children: Children = {}, rel: Obj[] = [], status?: Obj) =>
  syncIronicDatabase(
    syncRequest({
      parent: ironicDatabase({ engine: 'MariaDBOperator', ...spec }, status !== undefined ? { status } : {}),
      children,
      related: related(...rel),
    }),
    context,
  );

const childrenOf = (result: { children: unknown[] }, kind: string): Obj[] => result.children.map((c) => objAt(c)).filter((c) => c['kind'] === kind);
const one = (result: { children: unknown[] }, kind: string): Obj => present(childrenOf(result, kind)[0]);
const conditionOf = (status: unknown, type: string): Obj => objAt(listAt(status, 'conditions').find((c) => objAt(c)['type'] === type));

/** Every mariadb-operator object observed Ready, the MariaDB with `mariadbStatus` when given. */
const observed = (result: { children: unknown[] }, mariadbStatus?: Obj, backupStatus?: Obj): Children =>
  observeAll(
    result.children.map((c) => objAt(c)),
    {},
    (o) => {
      if (o['kind'] === 'MariaDB' && mariadbStatus !== undefined) return mariadbStatus;
      if (o['kind'] === 'Backup') return backupStatus;
      return String(o['apiVersion']).startsWith('k8s.mariadb.com/') ? mariadbOperatorReady() : undefined;
    },
  );

t.test('goDuration: how Go writes a metav1.Duration, so that mariadb-operator never rewrites it', async (t) => {
  t.equal(goDuration(30 * 24 * 60), '720h0m0s');
  t.equal(goDuration(36 * 60), '36h0m0s');
  t.equal(goDuration(90), '1h30m0s');
});

t.test('spec.backup to a claim: a Backup of the ironic schema, gzip, by age, valid for mariadb-operator', async (t) => {
  const result = sync({
    backup: { schedule: '30 2 * * *', persistentVolumeClaim: { size: '20Gi', storageClassName: 'backups' } },
    nodeSelector: { disk: 'ssd' },
    priorityClassName: 'ironic-critical',
  });
  const backup = one(result, 'Backup');
  t.doesNotThrow(() => validateK8s(backup));
  t.same(backup['metadata'], { name: 'ironic-db-database-backup', namespace: 'metal3', labels: objAt(backup, 'metadata')['labels'] });
  t.same(backup['spec'], {
    mariaDbRef: { name: 'ironic-db-database' },
    schedule: { cron: '30 2 * * *', suspend: false },
    timeZone: 'Etc/UTC',
    maxRetention: '720h0m0s',
    compression: 'gzip',
    databases: ['ironic'],
    storage: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } }, storageClassName: 'backups' } },
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 3,
    nodeSelector: { disk: 'ssd' },
    priorityClassName: 'ironic-critical',
  });
  t.equal(childrenOf(result, 'CronJob').length, 0, 'no CronJob of ours: the Backup makes its own');
  t.match(objAt(result.status)['backup'], {}, 'a backup status from the first sync');
  t.match(conditionOf(result.status, 'BackupsFailing'), {
    status: 'False',
    message: /waiting for mariadb-operator to report Backup ironic-db-database-backup/,
  });
});

t.test('spec.backup to S3: the bucket and its Secrets for mariadb-operator; the database waits for missing or incomplete Secrets', async (t) => {
  const spec = { backup: { schedule: '@daily', retention: { maxAge: '14d' }, s3: S3 } };
  const missing = sync(spec);
  t.match(conditionOf(missing.status, 'Ready'), {
    status: 'False',
    message:
      /Secret metal3\/s3 named in spec\.backup\.s3\.credentialsSecretName was not found: create it with access-key-id and secret-access-key.*Secret metal3\/s3-ca named in spec\.backup\.s3\.caSecretName was not found/,
  });
  t.same(missing.children, [], 'nothing created while a Secret is missing');
  const incomplete = sync(spec, {}, [secret('s3', { 'access-key-id': 'AKIA0' }), S3_CA]);
  t.match(conditionOf(incomplete.status, 'Ready'), {
    status: 'False',
    message: /Secret metal3\/s3 named in spec\.backup\.s3\.credentialsSecretName has no secret-access-key/,
  });

  const result = sync(spec, {}, [S3_SECRET, S3_CA]);
  const backup = one(result, 'Backup');
  t.doesNotThrow(() => validateK8s(backup));
  t.same(objAt(backup, 'spec')['storage'], {
    s3: {
      bucket: 'metal3',
      endpoint: 'minio.storage.svc:9000',
      prefix: 'ironic/',
      region: 'eu-1',
      accessKeyIdSecretKeyRef: { name: 's3', key: 'access-key-id' },
      secretAccessKeySecretKeyRef: { name: 's3', key: 'secret-access-key' },
      tls: { enabled: true, caSecretKeyRef: { name: 's3-ca', key: 'ca.crt' } },
    },
  });
  t.equal(objAt(backup, 'spec')['maxRetention'], '336h0m0s');
  const plain = one(sync({ backup: { schedule: '@daily', s3: { ...S3, tls: false, caSecretName: undefined } } }, {}, [S3_SECRET]), 'Backup');
  t.doesNotThrow(() => validateK8s(plain));
  t.equal(objAt(plain, 'spec', 'storage', 's3')['tls'], undefined, 'plain HTTP: no tls');

  const customize = customizeIronicDatabase(
    customizeRequest({
      controller: {},
      parent: ironicDatabase({ engine: 'MariaDBOperator', ...spec, restoreFrom: { backup: 'latest', s3: { ...S3, credentialsSecretName: 'old-s3' } } }),
    }),
  );
  const secrets = customize.relatedResources.find((r) => r.resource === 'secrets')?.names ?? [];
  t.ok(
    ['old-s3', 's3', 's3-ca'].every((n) => secrets.includes(n)),
    'customize asks for the S3 Secrets',
  );
  t.ok(
    customize.relatedResources.some((r) => r.resource === 'cronjobs' && r.names?.includes('ironic-db-database-backup') === true),
    "and the Backup's CronJob",
  );
  t.ok(
    customize.relatedResources.some((r) => r.resource === 'restores' && r.names?.includes('ironic-db-database-restore') === true),
    'and the Restore',
  );
});

t.test("a change of the Backup's storage or retention, which mariadb-operator refuses, is refused with what to do", async (t) => {
  const first = sync({ backup: { schedule: '@daily' } });
  const children = observed(first);
  const changed = sync({ backup: { schedule: '@daily', retention: { maxAge: '7d' } } }, children);
  t.match(conditionOf(changed.status, 'Ready'), {
    status: 'False',
    reason: 'InvalidSpec',
    message:
      /the destination and the retention of a Galera database's backups cannot change once its Backup ironic-db-database-backup exists .*spec\.maxRetention is "720h0m0s", not "168h0m0s"/,
  });
  t.equal(changed.children.length, first.children.length, 'every child kept');
  const scheduleOnly = sync({ backup: { schedule: '@hourly' } }, children);
  t.match(
    objAt(one(scheduleOnly, 'Backup'), 'spec', 'schedule'),
    { cron: '0 * * * *' },
    'the schedule changes in place, as five fields (the webhook refuses @hourly)',
  );
});

t.test('status.backup from the CronJob of the Backup and its Complete condition; BackupsFailing while it reports Failed', async (t) => {
  const spec = { backup: { schedule: '@daily' } };
  const first = sync(spec);
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'ironic-db-database-backup', namespace: 'metal3' },
    status: { lastScheduleTime: '2026-01-02T00:00:00Z', lastSuccessfulTime: '2026-01-01T00:03:00Z' },
  };
  const failedRun = {
    conditions: [{ type: 'Complete', status: 'False', reason: 'CronJobScheduled', message: 'Failed', lastTransitionTime: '2026-01-02T00:09:00Z' }],
  };
  const failing = sync(spec, observed(first, undefined, failedRun), [cronJob]);
  t.match(objAt(failing.status)['backup'], {
    lastScheduleTime: '2026-01-02T00:00:00Z',
    lastSuccessfulTime: '2026-01-01T00:03:00Z',
    lastFailureTime: '2026-01-02T00:00:00Z',
    lastFailureReason: /reports its last run Failed/,
  });
  t.match(conditionOf(failing.status, 'BackupsFailing'), { status: 'True', reason: 'BackupJobsFailed' });
  const success = {
    conditions: [{ type: 'Complete', status: 'True', reason: 'CronJobSuccess', message: 'Success', lastTransitionTime: '2026-01-03T00:04:00Z' }],
  };
  const fine = sync(
    spec,
    observed(first, undefined, success),
    [{ ...cronJob, status: { lastScheduleTime: '2026-01-03T00:00:00Z', lastSuccessfulTime: '2026-01-03T00:04:00Z' } }],
    objAt(failing.status),
  );
  t.match(
    objAt(fine.status)['backup'],
    { lastSuccessfulTime: '2026-01-03T00:04:00Z', lastFailureTime: '2026-01-02T00:00:00Z' },
    'the last failure is kept: the time of the run that failed',
  );
  t.match(conditionOf(fine.status, 'BackupsFailing'), { status: 'False', message: /reports Success/ });
  t.equal(
    objAt(fine.status)['backup'] !== undefined && 'lastBackup' in objAt(objAt(fine.status)['backup']),
    false,
    'no file name: mariadb-operator reports none',
  );
});

const RESTORED = {
  conditions: [
    { type: 'Ready', status: 'True', reason: 'StatefulSetReady', message: 'Running' },
    { type: 'BackupRestored', status: 'True', reason: 'RestoreBackup', message: 'Restored backup' },
  ],
};

/** Every mariadb-operator object observed Ready, the Restore with `restoreStatus`. */
const observedRestore = (result: { children: unknown[] }, restoreStatus: Obj | undefined): Children =>
  observeAll(
    result.children.map((c) => objAt(c)),
    {},
    (o) => (o['kind'] === 'Restore' ? restoreStatus : String(o['apiVersion']).startsWith('k8s.mariadb.com/') ? mariadbOperatorReady() : undefined),
  );

const completeCondition = (status: 'True' | 'False', reason: string, message: string): Obj => ({
  conditions: [{ type: 'Complete', status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' }],
});

t.test(
  "spec.restoreFrom: the new cluster runs, then the hooks' own Restore fills it; Ready and the Backup only once it reports its Job complete",
  async (t) => {
    const spec = { restoreFrom: { backup: 'backup.2026-01-01T02:30:00Z.sql.gz', claimName: 'old-backups' }, backup: { schedule: '30 2 * * *' } };
    const first = sync(spec);
    const mariadb = one(first, 'MariaDB');
    t.equal(objAt(mariadb, 'spec')['bootstrapFrom'], undefined, 'no bootstrapFrom: mariadb-operator counts a failed bootstrap restore as done');
    t.same(
      objAt(mariadb, 'metadata')['annotations'],
      { 'ironic.metal3.io/restore-from': 'backup.2026-01-01T02:30:00Z.sql.gz' },
      'the MariaDB says it is to be filled',
    );
    t.same(childrenOf(first, 'Restore'), [], 'no Restore before the cluster runs');
    t.same(childrenOf(first, 'Backup'), [], 'no Backup before the restore is proven');
    t.match(conditionOf(first.status, 'Ready'), {
      status: 'False',
      message: /^waiting for the Galera cluster before restoring backup backup\.2026-01-01T02:30:00Z\.sql\.gz of claim old-backups/,
    });

    const running = sync(spec, observed(first), [primaryService()]);
    const restore = one(running, 'Restore');
    t.doesNotThrow(() => validateK8s(restore));
    t.same(restore['metadata'], { name: 'ironic-db-database-restore-backup', namespace: 'metal3', labels: objAt(mariadb, 'metadata')['labels'] });
    t.same(restore['spec'], {
      mariaDbRef: { name: 'ironic-db-database' },
      volume: { persistentVolumeClaim: { claimName: 'old-backups' } },
      targetRecoveryTime: '2026-01-01T02:30:00Z',
    });
    t.same(childrenOf(running, 'Backup'), [], 'still no Backup');
    const latest = one(
      sync({ restoreFrom: { backup: 'latest', s3: S3 } }, observed(sync({ restoreFrom: { backup: 'latest', s3: S3 } }, {}, [S3_SECRET, S3_CA])), [
        S3_SECRET,
        S3_CA,
        primaryService(),
      ]),
      'Restore',
    );
    t.doesNotThrow(() => validateK8s(latest));
    t.match(objAt(latest, 'spec'), { s3: { bucket: 'metal3', tls: { enabled: true } } });
    t.equal(objAt(latest, 'spec')['targetRecoveryTime'], undefined, 'latest: the newest backup when it runs');

    const inProgress = sync(spec, observedRestore(running, completeCondition('False', 'JobRunning', 'Running')), [primaryService()]);
    t.match(conditionOf(inProgress.status, 'Ready'), {
      status: 'False',
      message: /^restoring backup backup\.2026-01-01T02:30:00Z\.sql\.gz of claim old-backups into the Galera cluster: Running/,
    });
    t.equal(objAt(inProgress.status)['restoredFrom'], undefined);

    const failed = sync(spec, observedRestore(running, completeCondition('True', 'JobFailed', 'Failed')), [primaryService()]);
    t.match(conditionOf(failed.status, 'Ready'), {
      status: 'False',
      reason: 'DatabaseFailed',
      message:
        /^restoring backup .* failed: mariadb-operator's Restore ironic-db-database-restore-backup reports its Job failed; the database is not used and no backup is taken until a restore succeeds: see kubectl -n metal3 logs job\/ironic-db-database-restore-backup, .*delete the Restore ironic-db-database-restore-backup to run it again/,
    });
    t.equal(objAt(failed.status)['restoredFrom'], undefined, 'a failed restore is never recorded as one');
    t.equal(childrenOf(failed, 'Restore').length, 1, 'the failed Restore is kept, with its log');
    t.same(childrenOf(failed, 'Backup'), [], 'no Backup over the good files');

    const restored = sync(spec, observedRestore(running, completeCondition('True', 'JobComplete', 'Success')), [primaryService()]);
    t.match(conditionOf(restored.status, 'Ready'), { status: 'True' });
    t.equal(
      objAt(restored.status)['restoredFrom'],
      'the newest backup not newer than backup.2026-01-01T02:30:00Z.sql.gz',
      'mariadb-operator names no file, and a named one that is missing restores an older one: the status says what is known',
    );
    t.equal(childrenOf(restored, 'Backup').length, 1, 'the Backup once restored');
    const later = sync(spec, observedRestore(restored, completeCondition('True', 'JobComplete', 'Success')), [primaryService()], objAt(restored.status));
    t.equal(childrenOf(later, 'Restore').length, 1, 'the Restore stays: made again, it would replay the backup over the live database');
    t.match(conditionOf(later.status, 'Ready'), { status: 'True' });
  },
);

t.test('how a cluster is filled is read once: a cluster made with bootstrapFrom keeps it, and a restore added to a live cluster is refused', async (t) => {
  const spec = { restoreFrom: { backup: 'latest', claimName: 'old-backups' } };
  // A cluster made by an earlier version with bootstrapFrom, restored by mariadb-operator.
  const bootstrapFrom = { backupContentType: 'Logical', volume: { persistentVolumeClaim: { claimName: 'old-backups' } } };
  const made = sync({});
  const withBootstrap = observeAll(
    made.children.map((c) => {
      const o = objAt(c);
      return o['kind'] === 'MariaDB' ? { ...o, spec: { ...objAt(o, 'spec'), bootstrapFrom } } : o;
    }),
    {},
    (o) => (o['kind'] === 'MariaDB' ? RESTORED : String(o['apiVersion']).startsWith('k8s.mariadb.com/') ? mariadbOperatorReady() : undefined),
  );
  const kept = sync(spec, withBootstrap, [primaryService()]);
  t.same(objAt(one(kept, 'MariaDB'), 'spec')['bootstrapFrom'], bootstrapFrom, 'kept as the MariaDB has it');
  t.same(childrenOf(kept, 'Restore'), [], 'and no Restore of the hooks');
  t.match(conditionOf(kept.status, 'Ready'), { status: 'True' });
  t.equal(objAt(kept.status)['restoredFrom'], 'latest');
  const removed = sync({}, withBootstrap, [primaryService()]);
  t.same(objAt(one(removed, 'MariaDB'), 'spec')['bootstrapFrom'], bootstrapFrom, 'kept when restoreFrom is removed');

  const plain = observed(sync({}), RESTORED);
  const added = sync(spec, plain, [primaryService()]);
  t.match(conditionOf(added.status, 'Ready'), {
    status: 'False',
    reason: 'InvalidSpec',
    message: /^spec\.restoreFrom: the Galera cluster of this IronicDatabase exists already, and a restore is only for a new one/,
  });
  t.equal(objAt(one(added, 'MariaDB'), 'spec')['bootstrapFrom'], undefined, 'never added to a live cluster');
  t.same(childrenOf(added, 'Restore'), [], 'nor a Restore');
});

t.test('a Backup that never succeeded is failing once a run is over: mariadb-operator reports Scheduled until a first success', async (t) => {
  const spec = { backup: { schedule: '0 2 * * *' } };
  const first = sync(spec);
  const scheduled = {
    conditions: [{ type: 'Complete', status: 'False', reason: 'CronJobScheduled', message: 'Scheduled', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  };
  const cronJob = (status: Record<string, unknown>) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'ironic-db-database-backup', namespace: 'metal3' },
    status,
  });
  const rows: readonly { name: string; status: Record<string, unknown>; failing: boolean }[] = [
    { name: 'not fired yet', status: {}, failing: false },
    { name: 'the first run is running', status: { lastScheduleTime: '2026-01-02T02:00:00Z', active: [{ name: 'j' }] }, failing: false },
    { name: 'the first run is over without a success', status: { lastScheduleTime: '2026-01-02T02:00:00Z' }, failing: true },
    { name: 'an empty active list', status: { lastScheduleTime: '2026-01-02T02:00:00Z', active: [] }, failing: true },
    { name: 'it succeeded', status: { lastScheduleTime: '2026-01-02T02:00:00Z', lastSuccessfulTime: '2026-01-02T02:03:00Z' }, failing: false },
    {
      name: 'a later run is over without a success',
      status: { lastScheduleTime: '2026-01-03T02:00:00Z', lastSuccessfulTime: '2026-01-02T02:03:00Z' },
      failing: true,
    },
  ];
  for (const row of rows) {
    const result = sync(spec, observed(first, undefined, scheduled), [cronJob(row.status)]);
    const condition = conditionOf(result.status, 'BackupsFailing');
    t.equal(condition['status'], row.failing ? 'True' : 'False', row.name);
    if (!row.failing) continue;
    t.match(
      condition['message'],
      /has had no success since its run scheduled at 2026-01-0\dT02:00:00Z .*kubectl -n metal3 logs job\//,
      `${row.name}: says so and where the log is`,
    );
    t.equal(objAt(objAt(result.status)['backup'])['lastFailureTime'], row.status['lastScheduleTime'], `${row.name}: the time of the run that failed`);
  }
});

t.test('removing an optional field of the Backup storage is a change mariadb-operator refuses: refused with what to do', async (t) => {
  const s3Backup = (s3: Obj): Obj => ({ backup: { schedule: '0 2 * * *', s3 } });
  const rows: readonly { name: string; before: Obj; after: Obj; path: string; rel: Obj[] }[] = [
    { name: 's3.prefix', before: s3Backup(S3), after: s3Backup({ ...S3, prefix: undefined }), path: 'spec.storage.s3.prefix', rel: [S3_SECRET, S3_CA] },
    { name: 's3.region', before: s3Backup(S3), after: s3Backup({ ...S3, region: undefined }), path: 'spec.storage.s3.region', rel: [S3_SECRET, S3_CA] },
    {
      name: 's3.caSecretName',
      before: s3Backup(S3),
      after: s3Backup({ ...S3, caSecretName: undefined }),
      path: 'spec.storage.s3.tls.caSecretKeyRef',
      rel: [S3_SECRET, S3_CA],
    },
    {
      name: 's3.tls: false',
      before: s3Backup(S3),
      after: s3Backup({ ...S3, tls: false, caSecretName: undefined }),
      path: 'spec.storage.s3.tls',
      rel: [S3_SECRET, S3_CA],
    },
    {
      name: 'the claim storageClassName',
      before: { backup: { schedule: '0 2 * * *', persistentVolumeClaim: { size: '10Gi', storageClassName: 'backups' } } },
      after: { backup: { schedule: '0 2 * * *', persistentVolumeClaim: { size: '10Gi' } } },
      path: 'spec.storage.persistentVolumeClaim.storageClassName',
      rel: [],
    },
  ];
  for (const row of rows) {
    const first = sync(row.before, {}, row.rel);
    t.equal(childrenOf(first, 'Backup').length, 1, `${row.name}: a Backup first`);
    const changed = sync(row.after, observed(first), row.rel);
    t.match(
      conditionOf(changed.status, 'Ready'),
      {
        status: 'False',
        reason: 'InvalidSpec',
        message: new RegExp(`${row.path.replaceAll('.', '\\.')} is .*, which the new spec leaves out\\): set them back, or remove spec\\.backup`),
      },
      `${row.name}: refused, saying what`,
    );
    t.same(changed.children.map((c) => objAt(c)['kind']).sort(), first.children.map((c) => objAt(c)['kind']).sort(), `${row.name}: every child kept`);
  }
});

t.test(
  "a new priorityClassName reaches the Backup in two syncs: mariadb-operator refuses a change of its Jobs' one, not a removal or a first one",
  async (t) => {
    const first = sync({ priorityClassName: 'low', backup: { schedule: '0 2 * * *' } });
    t.equal(objAt(one(first, 'Backup'), 'spec')['priorityClassName'], 'low');
    const removed = sync({ priorityClassName: 'high', backup: { schedule: '0 2 * * *' } }, observed(first));
    t.equal(objAt(one(removed, 'Backup'), 'spec')['priorityClassName'], undefined, 'first without it');
    t.equal(objAt(one(removed, 'MariaDB'), 'spec')['priorityClassName'], 'high', 'the MariaDB takes it at once (it accepts any change)');
    t.not(conditionOf(removed.status, 'Ready')['reason'], 'InvalidSpec', 'nothing refused (the MariaDB rolls to the new class)');
    const set = sync({ priorityClassName: 'high', backup: { schedule: '0 2 * * *' } }, observed(removed));
    t.equal(objAt(one(set, 'Backup'), 'spec')['priorityClassName'], 'high', 'then with the new one');
    const again = sync({ priorityClassName: 'high', backup: { schedule: '0 2 * * *' } }, observed(set));
    t.equal(objAt(one(again, 'Backup'), 'spec')['priorityClassName'], 'high', 'and it stays');
  },
);
