/**
 * mariadb-operator's stand-in (src/cli/mariadb-operator.ts): its validating webhooks refuse what the
 * operator's refuse, as an error of the write (and so of the sync that made it), and its controllers keep
 * the SQL accounts the way its User and Grant controllers do: a password reaches MariaDB when the User
 * changes, when its Secret changes and is labelled k8s.mariadb.com/watch, or on the periodic requeue.
 *
 * Each rule's test names the upstream files it follows (mariadb-operator v26.6.0); where upstream and the stand-in
 * disagree, upstream wins. The rules the real operator can show are checked against it as well: its webhooks by
 * test/control-plane/webhook-parity.ts, a Restore's Complete condition (JobComplete, JobFailed) by the restore rows
 * of test/control-plane/day2-rows.ts.
 */
import t from 'tap';
import { Cluster, type HookTransport } from '../../src/cli/cluster.js';
import { IRONIC_DATABASE_CONTROLLER, type ControllerSpec } from '../../src/cli/controllers.js';
import { MariaDBOperatorStandIn, mariadbOperatorDenial, WATCH_LABEL } from '../../src/cli/mariadb-operator.js';
import type { Json, KubeResource } from '../../src/cli/objects.js';
import { ApiError, ObjectStore } from '../../src/cli/store.js';
import { present } from '../support/paths.js';
import { completeJobStatus, failedJobStatus } from '../../src/cli/kubelet.js';

const NS = 'db';
const API = 'k8s.mariadb.com/v1alpha1';

const object = (kind: string, spec: Json, name = 'm'): KubeResource => ({ apiVersion: API, kind, metadata: { name, namespace: NS }, spec });
const mariadb = (spec: Json = {}): KubeResource =>
  object('MariaDB', { replicas: 3, galera: { enabled: true }, storage: { size: '10Gi' }, affinity: { antiAffinityEnabled: true }, ...spec });
const user = (spec: Json = {}, name = 'm'): KubeResource =>
  object('User', { mariaDbRef: { name: 'm' }, name: 'alice', host: '%', passwordSecretKeyRef: { name: 'pw', key: 'password' }, ...spec }, name);
const grant = (spec: Json = {}, name = 'm'): KubeResource =>
  object('Grant', { mariaDbRef: { name: 'm' }, privileges: ['ALL PRIVILEGES'], database: 'ironic', table: '*', username: 'alice', host: '%', ...spec }, name);
const database = (spec: Json = {}): KubeResource =>
  object('Database', { mariaDbRef: { name: 'm' }, name: 'ironic', characterSet: 'utf8mb3', collate: 'utf8mb3_general_ci', ...spec });
const passwordSecret = (password: string, labels: Record<string, string> = {}, name = 'pw'): KubeResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS, labels },
  data: { password: Buffer.from(password).toString('base64') },
});

const withSpec = (stored: KubeResource, spec: Json): KubeResource => ({ ...stored, spec: { ...(stored['spec'] as Json), ...spec } });

t.test(
  'the webhooks: the fields mariadb-operator never lets change, and storage that shrinks (upstream: pkg/webhook/inmutable_webhook.go, the `webhook:` tags of api/v1alpha1/*_types.go, mariadb_webhook.go)',
  async (t) => {
    const cases: readonly { scenario: string; before: KubeResource; after: Json; denied?: RegExp }[] = [
      {
        scenario: 'User spec.name',
        before: user(),
        after: { name: 'bob' },
        denied:
          /^admission webhook "vuser-v1alpha1\.kb\.io" denied the request: User\.k8s\.mariadb\.com "m" is invalid: spec\.name: Invalid value: "bob": field is immutable$/,
      },
      { scenario: 'User spec.host', before: user(), after: { host: 'localhost' }, denied: /spec\.host: Invalid value: "localhost"/ },
      { scenario: 'User spec.mariaDbRef', before: user(), after: { mariaDbRef: { name: 'other' } }, denied: /spec\.mariaDbRef: Invalid value/ },
      {
        scenario: 'User password and maxUserConnections change freely',
        before: user(),
        after: { passwordSecretKeyRef: { name: 'pw2', key: 'password' }, maxUserConnections: 64, cleanupPolicy: 'Delete' },
      },
      { scenario: 'User spec.name absent and empty are the same', before: user({ name: '' }), after: { name: undefined } },
      {
        scenario: 'Grant spec.username',
        before: grant(),
        after: { username: 'bob' },
        denied:
          /^admission webhook "vgrant-v1alpha1\.kb\.io" denied the request: Grant\.k8s\.mariadb\.com "m" is invalid: spec\.username: Invalid value: "bob": field is immutable$/,
      },
      {
        scenario: 'Grant database, table, host and grantOption',
        before: grant(),
        after: { database: 'x', table: 't', host: 'h', grantOption: true },
        denied: /spec\.database: .*, spec\.table: .*, spec\.host: .*, spec\.grantOption: Invalid value: true: field is immutable$/,
      },
      { scenario: 'Grant privileges change freely', before: grant(), after: { privileges: ['SELECT'] } },
      {
        scenario: 'Database name, character set and collation',
        before: database(),
        after: { name: 'x', characterSet: 'utf8mb4', collate: 'utf8mb4_bin' },
        denied: /^admission webhook "vdatabase-v1alpha1\.kb\.io" .*spec\.characterSet: .*spec\.collate: .*spec\.name: /,
      },
      {
        scenario: 'MariaDB storageClassName, set',
        before: mariadb(),
        after: { storage: { size: '10Gi', storageClassName: 'fast' } },
        denied:
          /^admission webhook "vmariadb-v1alpha1\.kb\.io" denied the request: MariaDB\.k8s\.mariadb\.com "m" is invalid: spec\.storage\.storageClassName: Invalid value: "fast": field is immutable$/,
      },
      {
        scenario: 'MariaDB storageClassName, changed',
        before: mariadb({ storage: { size: '10Gi', storageClassName: 'slow' } }),
        after: { storage: { size: '10Gi', storageClassName: 'fast' } },
        denied: /storageClassName: Invalid value: "fast"/,
      },
      {
        scenario: 'MariaDB storage size decreased',
        before: mariadb(),
        after: { storage: { size: '5Gi' } },
        denied: /spec\.storage\.size: Invalid value: "5Gi": smaller than the volumes' "10Gi"/,
      },
      {
        scenario: 'MariaDB storage size decreased, written otherwise',
        before: mariadb(),
        after: { storage: { size: '10000Mi' } },
        denied: /smaller than the volumes' "10Gi"/,
      },
      { scenario: 'MariaDB storage size equal, written otherwise', before: mariadb(), after: { storage: { size: '10240Mi' } } },
      { scenario: 'MariaDB storage size increased', before: mariadb(), after: { storage: { size: '20Gi' } } },
      {
        scenario: 'MariaDB storage size below the claim template the operator wrote',
        before: mariadb({ storage: { size: '20Gi', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } } }),
        after: { storage: { size: '15Gi', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } } },
        denied: /spec\.storage\.size: Invalid value: "15Gi": smaller than the claim template's "20Gi"/,
      },
      {
        scenario: 'MariaDB antiAffinityEnabled turned off',
        before: mariadb(),
        after: { affinity: { antiAffinityEnabled: false } },
        denied: /spec\.affinity\.antiAffinityEnabled: Invalid value: false: field is immutable/,
      },
      {
        scenario: 'MariaDB affinity set where there was none: the webhook does not look inside',
        before: mariadb({ affinity: undefined }),
        after: { affinity: { antiAffinityEnabled: true } },
      },
      {
        scenario: 'MariaDB rootPasswordSecretKeyRef, once set',
        before: mariadb({ rootPasswordSecretKeyRef: { name: 'root', key: 'password' } }),
        after: { rootPasswordSecretKeyRef: { name: 'other', key: 'password' } },
        denied: /spec\.rootPasswordSecretKeyRef: Invalid value/,
      },
      { scenario: 'MariaDB rootPasswordSecretKeyRef, first set', before: mariadb(), after: { rootPasswordSecretKeyRef: { name: 'root', key: 'password' } } },
      {
        scenario: 'an ephemeral MariaDB (no size to shrink) changes its image',
        before: mariadb({ galera: undefined, replicas: 1, storage: { ephemeral: true } }),
        after: { image: 'mariadb:11.8' },
      },
      {
        scenario: 'MariaDB replicas, image, priorityClassName and myCnf change freely',
        before: mariadb(),
        after: { replicas: 5, image: 'mariadb:11.8', priorityClassName: 'high', myCnf: '[mariadb]\n' },
      },
    ];
    for (const c of cases) {
      const after = withSpec(c.before, c.after);
      t.equal(mariadbOperatorDenial(c.before, after) === undefined, c.denied === undefined, c.scenario);
      if (c.denied !== undefined) t.match(mariadbOperatorDenial(c.before, after), c.denied, `${c.scenario}: the message`);
    }
  },
);

t.test(
  'the webhooks on create: storage and the password (upstream: api/v1alpha1/mariadb_types.go Storage.Validate, internal/webhook/v1alpha1/user_webhook.go)',
  async (t) => {
    const cases: readonly { scenario: string; object: KubeResource; denied?: RegExp }[] = [
      { scenario: 'a Galera MariaDB', object: mariadb() },
      {
        scenario: 'ephemeral storage for Galera',
        object: mariadb({ storage: { ephemeral: true } }),
        denied: /spec\.storage\.ephemeral: Invalid value: true: a Galera or replicated MariaDB keeps its data on volumes only/,
      },
      {
        scenario: 'ephemeral storage with a size',
        object: mariadb({ galera: undefined, replicas: 1, storage: { ephemeral: true, size: '1Gi' } }),
        denied: /ephemeral with a size/,
      },
      { scenario: 'ephemeral storage alone', object: mariadb({ galera: undefined, replicas: 1, storage: { ephemeral: true } }) },
      { scenario: 'a zero size', object: mariadb({ storage: { size: '0' } }), denied: /must be greater than zero/ },
      { scenario: 'no size', object: mariadb({ storage: {} }), denied: /spec\.storage: Required value/ },
      { scenario: 'a User with a password', object: user() },
      { scenario: 'a User with two passwords', object: user({ passwordHashSecretKeyRef: { name: 'h', key: 'hash' } }), denied: /set only one of them/ },
      { scenario: 'not a mariadb-operator object', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } },
    ];
    for (const c of cases) {
      const denial = mariadbOperatorDenial(undefined, c.object);
      if (c.denied === undefined) t.equal(denial, undefined, c.scenario);
      else t.match(denial, c.denied, c.scenario);
    }
  },
);

t.test('the API server asks the webhooks: a refused create or update is a 422 and nothing is stored', async (t) => {
  const store = new ObjectStore(() => '2026-01-01T00:00:00Z');
  t.throws(() => store.create(mariadb({ storage: { size: '0' } })), { code: 422, message: /must be greater than zero/ });
  t.equal(store.list().length, 0, 'not created');
  const stored = store.create(user());
  const refused = (() => {
    try {
      store.update(withSpec(stored, { name: 'bob' }));
      return undefined;
    } catch (error) {
      return error;
    }
  })();
  t.ok(refused instanceof ApiError && refused.code === 422, 'Invalid');
  t.match(refused, { message: /denied the request: User\.k8s\.mariadb\.com "m" is invalid: spec\.name/ });
  t.match(store.get(`User.${API}`, `${NS}/m`), { spec: { name: 'alice' }, metadata: { generation: 1 } }, 'the User is as it was');
  t.ok(store.updateStatus(stored, { conditions: [] }), 'the status subresource is not validated');
});

t.test('a write the webhook refuses fails the sync that made it, on every sync', async (t) => {
  let username = 'alice';
  const controller: ControllerSpec = { ...IRONIC_DATABASE_CONTROLLER, finalize: false, childTypes: [{ group: `User.${API}`, strategy: 'InPlace' }] };
  const transport: HookTransport = async (path) => ({
    statusCode: 200,
    body: path.endsWith('/customize') ? { relatedResources: [] } : { status: {}, children: [{ ...user({ name: username }), metadata: { name: 'm' } }] },
  });
  const cluster = new Cluster({ transport, controllers: [controller], clock: () => '2026-01-01T00:00:00Z' });
  cluster.put({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name: 'p', namespace: NS }, spec: {} });
  t.equal((await cluster.round()).syncs[0]?.error, undefined, 'created');
  username = 'bob';
  for (let i = 0; i < 2; i += 1)
    t.match(
      (await cluster.round()).syncs[0]?.error,
      /can.t reconcile children for IronicDatabase db\/p: admission webhook "vuser-v1alpha1\.kb\.io" denied the request: .*spec\.name: Invalid value: "bob"/,
      `sync ${i + 2} fails`,
    );
  t.match(cluster.store.get(`User.${API}`, `${NS}/m`), { spec: { name: 'alice' } });
});

/** A store with a MariaDB, and the stand-in, at a clock the test moves. */
const operator = () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const store = new ObjectStore(() => new Date(now).toISOString());
  const standIn = new MariaDBOperatorStandIn();
  store.create(mariadb());
  return {
    store,
    accounts: () => standIn.accounts(NS, 'm'),
    reconcile: () => standIn.reconcile(store, new Date(now).toISOString()),
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
    setPassword: (password: string, labels?: Record<string, string>) => {
      const stored = present(store.get('Secret.v1', `${NS}/pw`));
      store.update({ ...passwordSecret(password, labels ?? stored.metadata.labels ?? {}) });
    },
  };
};

const ready = (store: ObjectStore, kind: string, name = 'm'): unknown =>
  (store.get(`${kind}.${API}`, `${NS}/${name}`)?.['status'] as { conditions?: { status: string }[] } | undefined)?.conditions?.[0]?.status;

t.test(
  'the MariaDB controller: Ready, its Services, and the claim template it writes into the spec (upstream: internal/controller/mariadb_controller.go, api/v1alpha1/mariadb_keys.go)',
  async (t) => {
    const o = operator();
    t.ok(o.reconcile() > 0);
    const stored = present(o.store.get(`MariaDB.${API}`, `${NS}/m`));
    t.match(stored, {
      spec: { storage: { size: '10Gi', volumeClaimTemplate: { resources: { requests: { storage: '10Gi' } }, accessModes: ['ReadWriteOnce'] } } },
      metadata: { generation: 2 },
    });
    t.match(stored['status'], { conditions: [{ type: 'Ready', status: 'True' }], currentPrimary: 'm-0', replicas: 3 });
    t.same(
      ['m', 'm-internal', 'm-primary', 'm-secondary'].map((s) => o.store.get('Service.v1', `${NS}/${s}`) !== undefined),
      [true, true, true, true],
    );
    t.equal(o.reconcile(), 0, 'a second pass writes nothing');
    o.store.update(withSpec(stored, { storage: { ...((stored['spec'] as Json)['storage'] as Json), size: '20Gi', storageClassName: undefined } }));
    o.reconcile();
    t.match(
      o.store.get(`MariaDB.${API}`, `${NS}/m`),
      { spec: { storage: { size: '20Gi', volumeClaimTemplate: { resources: { requests: { storage: '20Gi' } } } } } },
      'a bigger size reaches the template',
    );
    t.same(o.accounts(), {}, 'no account yet');
  },
);

t.test(
  'the User and Grant controllers: the account, its password and its grant (upstream: internal/controller/user_controller.go, grant_controller.go, api/v1alpha1/user_indexes.go)',
  async (t) => {
    const o = operator();
    o.store.create(passwordSecret('one'));
    o.store.create(grant());
    o.store.create(user());
    o.reconcile();
    t.same(o.accounts(), { 'alice@%': { password: 'one', grants: ['ALL PRIVILEGES ON ironic.*'] } });
    t.equal(ready(o.store, 'User'), 'True');
    t.equal(ready(o.store, 'Grant'), 'True', 'the Grant is reconciled after the User in a pass');

    o.setPassword('two');
    o.reconcile();
    t.equal(o.accounts()['alice@%']?.password, 'one', 'an unlabelled Secret is not watched: the new password does not reach MariaDB');
    o.advance(10 * 3600);
    o.reconcile();
    t.equal(o.accounts()['alice@%']?.password, 'two', 'until the periodic requeue, 10 hours later');

    o.setPassword('three', { [WATCH_LABEL]: '' });
    o.reconcile();
    t.equal(o.accounts()['alice@%']?.password, 'three', 'a labelled Secret is watched');

    o.store.create(passwordSecret('four', {}, 'pw4'));
    o.store.update(withSpec(present(o.store.get(`User.${API}`, `${NS}/m`)), { passwordSecretKeyRef: { name: 'pw4', key: 'password' } }));
    o.reconcile();
    t.equal(o.accounts()['alice@%']?.password, 'four', 'a change of the User reconciles it');
  },
);

t.test(
  'a User without its Secret, or a Grant without its user, is not Ready; a deleted one drops its account unless Skip (upstream: pkg/controller/sql/controller.go, pkg/controller/sql/finalizer.go)',
  async (t) => {
    const o = operator();
    o.store.create(user({ name: 'bob', cleanupPolicy: 'Skip' }, 'bob'));
    o.store.create(grant({ username: 'bob' }, 'bob'));
    o.reconcile();
    t.equal(ready(o.store, 'User', 'bob'), 'False', 'no Secret');
    t.equal(ready(o.store, 'Grant', 'bob'), 'False', 'no user');
    o.store.create(passwordSecret('pw'));
    o.reconcile();
    t.same([ready(o.store, 'User', 'bob'), ready(o.store, 'Grant', 'bob')], ['True', 'True'], 'retried');
    o.store.create(user({ cleanupPolicy: 'Delete' }));
    o.reconcile();
    t.same(Object.keys(o.accounts()), ['alice@%', 'bob@%']);
    o.store.delete(`User.${API}`, `${NS}/m`);
    o.store.delete(`User.${API}`, `${NS}/bob`);
    o.reconcile();
    t.same(Object.keys(o.accounts()), ['bob@%'], 'alice dropped (cleanupPolicy Delete), bob kept (Skip)');
    o.store.delete(`Grant.${API}`, `${NS}/bob`);
    o.reconcile();
    t.same(o.accounts()['bob@%']?.grants, [], 'a deleted Grant is revoked (the default cleanup policy)');
    o.store.create(user({ mariaDbRef: { name: 'missing' }, name: 'carol' }, 'carol'));
    o.reconcile();
    t.equal(ready(o.store, 'User', 'carol'), 'False', 'no MariaDB');
    o.store.delete(`MariaDB.${API}`, `${NS}/m`);
    o.reconcile();
    t.same(o.accounts(), {}, 'the accounts go with the MariaDB');
  },
);

t.test(
  'the Backup controller: a scheduled Backup stays Scheduled; a one-shot Backup runs its Job, named as it and owned by it (upstream: internal/controller/backup_controller.go, pkg/condition/complete.go)',
  async (t) => {
    const o = operator();
    const storage = { volume: { persistentVolumeClaim: { claimName: 'm-backup' } } };
    o.store.create(object('Backup', { mariaDbRef: { name: 'm' }, schedule: { cron: '0 0 * * *' }, storage: { s3: { bucket: 'b' } } }, 'daily'));
    const once = o.store.create(object('Backup', { mariaDbRef: { name: 'm' }, storage }, 'once'));
    o.reconcile();
    const complete = (name: string): Json | undefined =>
      (((o.store.get(`Backup.${API}`, `${NS}/${name}`)?.['status'] as Json | undefined)?.['conditions'] as Json[] | undefined) ?? [])[0];
    t.match(complete('daily'), { type: 'Complete', status: 'False', reason: 'CronJobScheduled', message: 'Scheduled' });
    t.equal(o.store.get('Job.batch/v1', `${NS}/daily`), undefined, 'no Job for a scheduled Backup (the stand-in runs no CronJob)');
    const job = present(o.store.get('Job.batch/v1', `${NS}/once`), 'the Job of the one-shot Backup');
    t.match(job.metadata.ownerReferences, [{ kind: 'Backup', name: 'once', uid: once.metadata.uid, controller: true }]);
    t.match(complete('once'), { status: 'False', reason: 'JobRunning', message: 'Running', lastTransitionTime: '2026-01-01T00:00:00Z' });
    o.advance(60);
    t.equal(o.reconcile(), 0, 'nothing new while the Job runs (the transition time stays)');

    o.store.updateStatus(job, failedJobStatus('2026-01-01T00:01:00Z'));
    o.reconcile();
    t.match(complete('once'), { status: 'True', reason: 'JobFailed', message: 'Failed', lastTransitionTime: '2026-01-01T00:01:00Z' });
    o.store.delete(`Backup.${API}`, `${NS}/once`);
    t.equal(o.store.get('Job.batch/v1', `${NS}/once`), undefined, 'the Job goes with its Backup');

    o.store.create(object('Backup', { mariaDbRef: { name: 'm' }, storage }, 'once'));
    o.reconcile();
    const again = present(o.store.get('Job.batch/v1', `${NS}/once`), 'a new Backup runs a new Job');
    t.equal(again['status'], undefined);
    o.advance(60);
    o.store.updateStatus(again, completeJobStatus('2026-01-01T00:02:00Z'));
    o.reconcile();
    t.match(complete('once'), { status: 'True', reason: 'JobComplete', message: 'Success', lastTransitionTime: '2026-01-01T00:02:00Z' });
  },
);

t.test(
  "the webhook's Backup schedule: five fields only, a descriptor refused as the real webhook words it (upstream: api/v1alpha1/base_types.go CronParser)",
  async (t) => {
    const backup = (cron: string): KubeResource => ({
      apiVersion: 'k8s.mariadb.com/v1alpha1',
      kind: 'Backup',
      metadata: { name: 'b', namespace: 'ns' },
      spec: { mariaDbRef: { name: 'm' }, schedule: { cron, suspend: false } },
    });
    for (const cron of ['@daily', '@hourly', ' @weekly'])
      t.match(mariadbOperatorDenial(undefined, backup(cron)), `invalid Schedule: parser does not accept descriptors: ${cron.trim()}`, cron);
    for (const cron of ['0 0 * * *', '30 2 * * 1-5']) t.equal(mariadbOperatorDenial(undefined, backup(cron)), undefined, cron);
    t.match(mariadbOperatorDenial(backup('0 0 * * *'), backup('@daily')), /parser does not accept descriptors/, 'on an update too');
  },
);

t.test(
  "the webhook's Backup priorityClassName: set where unset and removed are admitted, a change is refused (as seen on the real webhook) (upstream: api/v1alpha1/base_types.go JobPodTemplate)",
  async (t) => {
    const backup = (priorityClassName?: string): KubeResource => ({
      apiVersion: 'k8s.mariadb.com/v1alpha1',
      kind: 'Backup',
      metadata: { name: 'b', namespace: 'ns' },
      spec: { mariaDbRef: { name: 'm' }, schedule: { cron: '0 0 * * *' }, ...(priorityClassName !== undefined && { priorityClassName }) },
    });
    t.equal(mariadbOperatorDenial(backup(), backup('a')), undefined, 'set where unset');
    t.equal(mariadbOperatorDenial(backup('a'), backup()), undefined, 'removed');
    t.equal(mariadbOperatorDenial(backup('a'), backup('a')), undefined, 'unchanged');
    t.match(mariadbOperatorDenial(backup('a'), backup('b')), /spec\.priorityClassName: Invalid value: "b": field is immutable/, 'changed');
  },
);

t.test(
  'the Restore controller: a Restore runs its Job, named as it and owned by it, and its Complete condition follows the Job for good (upstream: internal/controller/restore_controller.go, pkg/condition/complete.go)',
  async (t) => {
    const o = operator();
    const restore = o.store.create(object('Restore', { mariaDbRef: { name: 'm' }, volume: { persistentVolumeClaim: { claimName: 'b' } } }, 'r'));
    o.reconcile();
    const complete = (): Json | undefined =>
      (((o.store.get(`Restore.${API}`, `${NS}/r`)?.['status'] as Json | undefined)?.['conditions'] as Json[] | undefined) ?? [])[0];
    const job = present(o.store.get('Job.batch/v1', `${NS}/r`), 'the Job of the Restore');
    t.match(job.metadata.ownerReferences, [{ kind: 'Restore', name: 'r', uid: restore.metadata.uid, controller: true }]);
    t.match(complete(), { status: 'False', reason: 'JobRunning' });
    o.store.updateStatus(job, failedJobStatus('2026-01-01T00:01:00Z'));
    o.reconcile();
    t.match(complete(), { status: 'True', reason: 'JobFailed', message: 'Failed' });
    o.reconcile();
    t.ok(o.store.get(`Restore.${API}`, `${NS}/r`), 'a Restore of its own is never deleted, failed or not');
  },
);

t.test(
  'a bootstrap restore whose Job failed counts as done, as upstream: the Restore is deleted and the MariaDB reports BackupRestored (upstream: internal/controller/mariadb_controller.go, api/v1alpha1/restore_types.go IsComplete, pkg/condition/complete.go)',
  async (t) => {
    const o = operator();
    const bootstrapFrom = { backupContentType: 'Logical', volume: { persistentVolumeClaim: { claimName: 'b' } } };
    const stored = present(o.store.get(`MariaDB.${API}`, `${NS}/m`));
    o.store.update({ ...stored, spec: { ...(stored['spec'] as Json), bootstrapFrom } });
    o.reconcile();
    o.reconcile();
    const job = present(o.store.get('Job.batch/v1', `${NS}/m-restore`), 'the Job of the bootstrap Restore');
    o.store.updateStatus(job, failedJobStatus('2026-01-01T00:01:00Z'));
    o.reconcile();
    o.reconcile();
    t.equal(o.store.get(`Restore.${API}`, `${NS}/m-restore`), undefined, 'the failed Restore is deleted');
    const conditions = (present(o.store.get(`MariaDB.${API}`, `${NS}/m`))['status'] as Json | undefined)?.['conditions'];
    t.match(
      conditions,
      [
        { type: 'Ready', status: 'True' },
        { type: 'BackupRestored', status: 'True' },
      ],
      'and the MariaDB reads as restored',
    );
  },
);
