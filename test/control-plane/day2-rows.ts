/**
 * The rows of the day-2 matrix that the real control plane can run, each on an example of
 * real-cluster.test.ts (its namespace `ex-<file>`), all at once: a row answers checks, the test asserts them.
 */
import { isObj, valueAt, type Obj } from '../support/paths.js';
import { waitFor, type RealCluster } from '../support/real-cluster.js';
import { allReady, settled, text } from './parents.js';

/** One verdict of a row. */
export type Check = { readonly name: string; readonly pass: boolean; readonly diag?: unknown };

export type Row = { readonly name: string; readonly run: (cluster: RealCluster) => Promise<Check[]> };

/** A row that threw: one failed check that says why. */
export const failed = (error: unknown): Check => ({ name: error instanceof Error ? error.message : String(error), pass: false });

const IRONICS = (namespace: string): string => `/apis/ironic.metal3.io/v1alpha1/namespaces/${namespace}/ironics`;

const get = async (cluster: RealCluster, path: string): Promise<Obj | undefined> => {
  const answer = await cluster.api.request('GET', path);
  return answer.status === 200 && isObj(answer.body) ? answer.body : undefined;
};

const mergePatch = (cluster: RealCluster, path: string, patch: unknown): ReturnType<RealCluster['api']['request']> =>
  cluster.api.request('PATCH', path, patch, 'application/merge-patch+json');

const generationOf = (object: Obj | undefined): number => {
  const generation = valueAt(object, 'metadata', 'generation');
  return typeof generation === 'number' ? generation : 0;
};

/** The message of a refused request ('' when it was not refused). */
const refusal = (answer: { readonly status: number; readonly body: unknown }): string => (answer.status >= 400 ? text(valueAt(answer.body, 'message')) : '');

/** Waits until the rollout a change starts in a namespace is over: Metacontroller silent there for 7 s. */
const rolledOut = (cluster: RealCluster, namespace: string): Promise<void> => settled(cluster, new Set([namespace]), 7_000);

/** The Deployment of an Ironic, and its generation, before and after a change that must roll it once. */
const rollsOnce = async (cluster: RealCluster, namespace: string, change: () => Promise<Check[]>): Promise<Check[]> => {
  const path = `/apis/apps/v1/namespaces/${namespace}/deployments/ironic-service`;
  const before = generationOf(await get(cluster, path));
  const checks = await change();
  await rolledOut(cluster, namespace);
  await allReady(cluster, namespace);
  const after = generationOf(await get(cluster, path));
  return [...checks, { name: `the Deployment rolled once (generation ${before} → ${after})`, pass: after === before + 1 }];
};

export const DAY2_ROWS: readonly Row[] = [
  {
    name: 'a spec edit rolls the workload once (ex-minimal: networking.ipAddress)',
    run: (cluster: RealCluster): Promise<Check[]> =>
      rollsOnce(cluster, 'ex-minimal', async () => {
        const answer = await mergePatch(cluster, `${IRONICS('ex-minimal')}/ironic`, { spec: { networking: { ipAddress: '192.0.2.3' } } });
        return [{ name: 'the edit is accepted', pass: answer.status === 200, diag: answer.body }];
      }),
  },
  {
    name: 'a rotated credentials Secret rolls the workload once, with a new htpasswd (ex-tls-credentials)',
    run: async (cluster: RealCluster): Promise<Check[]> => {
      const namespace = 'ex-tls-credentials';
      const htpasswd = async (): Promise<string[]> =>
        (await cluster.api.list(`/api/v1/namespaces/${namespace}/secrets`))
          .map((s) => text(valueAt(s, 'metadata', 'name')))
          .filter((n) => n.startsWith('ironic-htpasswd-'));
      const before = await htpasswd();
      const checks = await rollsOnce(cluster, namespace, async () => {
        const answer = await mergePatch(cluster, `/api/v1/namespaces/${namespace}/secrets/ironic-credentials`, {
          stringData: { password: 'rotated-password-0123456789' },
        });
        return [{ name: 'the Secret is changed', pass: answer.status === 200, diag: answer.body }];
      });
      const after = await htpasswd();
      return [
        ...checks,
        {
          name: `one htpasswd Secret before and after, a new one (${before.join(', ')} → ${after.join(', ')})`,
          pass: before.length === 1 && after.length === 1 && before[0] !== after[0],
        },
      ];
    },
  },
  {
    name: 'a Galera backup with schedule @daily: the real mariadb-operator admits the Backup, in five fields (ex-ha)',
    run: async (cluster: RealCluster): Promise<Check[]> => {
      const namespace = 'ex-ha';
      const from = cluster.metacontrollerLog().length;
      const path = `/apis/ironic.metal3.io/v1alpha1/namespaces/${namespace}/ironicdatabases/ironic-db`;
      const answer = await mergePatch(cluster, path, { spec: { backup: { schedule: '@daily', persistentVolumeClaim: { size: '1Gi' } } } });
      let backup: Obj | undefined;
      await waitFor(
        'the Backup',
        async () => {
          backup = await get(cluster, `/apis/k8s.mariadb.com/v1alpha1/namespaces/${namespace}/backups/ironic-db-database-backup`);
          return backup;
        },
        60_000,
      ).catch(() => undefined);
      // Ready at some point after the change (no kubelet runs Galera, so mariadb-operator's Galera recovery keeps
      // failing and may turn the MariaDB not Ready again for a moment: the state is read once, by allReady).
      const ready = await allReady(cluster, namespace).then(
        () => '',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const refusals = cluster.metacontrollerLog(from).lines.filter((l) => l['level'] === 'error' && text(l['error']).includes('Backup'));
      return [
        { name: 'the edit is accepted', pass: answer.status === 200, diag: answer.body },
        {
          name: "the webhook admitted the Backup, with the descriptor's five fields",
          pass: valueAt(backup, 'spec', 'schedule', 'cron') === '0 0 * * *',
          diag: valueAt(backup, 'spec'),
        },
        { name: 'Metacontroller logged no refusal of it', pass: refusals.length === 0, diag: refusals.map((l) => text(l['error'])) },
        { name: 'the IronicDatabase becomes Ready', pass: ready === '', diag: ready },
      ];
    },
  },
  {
    name: 'a databaseName change is refused by the CRD transition rule (ex-ironic-database)',
    run: async (cluster: RealCluster): Promise<Check[]> => {
      const answer = await mergePatch(cluster, `${IRONICS('ex-ironic-database')}/ironic`, { spec: { databaseName: 'another-db' } });
      const message = refusal(answer);
      return [
        {
          name: `refused: ${message}`,
          pass: answer.status === 422 && message.includes('databaseName cannot be changed to a different IronicDatabase once set'),
        },
      ];
    },
  },
  {
    name: 'deleting an IronicDatabase in use is refused by the ValidatingAdmissionPolicy (ex-ironic-database)',
    run: async (cluster: RealCluster): Promise<Check[]> => {
      const path = '/apis/ironic.metal3.io/v1alpha1/namespaces/ex-ironic-database/ironicdatabases/ironic-db';
      const answer = await cluster.api.request('DELETE', path);
      const message = refusal(answer);
      const still = await get(cluster, path);
      return [
        { name: `refused: ${message}`, pass: answer.status === 403 && message.includes('ironicdatabase-in-use.ironic.metal3.io') },
        { name: 'and still there, not being deleted', pass: still !== undefined && valueAt(still, 'metadata', 'deletionTimestamp') === undefined },
      ];
    },
  },
  {
    name: 'deleting an Ironic runs finalize and garbage collection removes its children (ex-dhcp)',
    run: async (cluster: RealCluster): Promise<Check[]> => {
      const namespace = 'ex-dhcp';
      const ironic = await get(cluster, `${IRONICS(namespace)}/ironic`);
      const uid = text(valueAt(ironic, 'metadata', 'uid'));
      const finalizers = valueAt(ironic, 'metadata', 'finalizers');
      const answer = await cluster.api.request('DELETE', `${IRONICS(namespace)}/ironic`);
      await waitFor('the Ironic to be gone', async () => ((await get(cluster, `${IRONICS(namespace)}/ironic`)) === undefined ? true : undefined), 60_000);
      const owned = async (): Promise<string[]> => {
        const kinds = [
          '/api/v1/namespaces/NS/secrets',
          '/api/v1/namespaces/NS/services',
          '/api/v1/namespaces/NS/configmaps',
          '/apis/apps/v1/namespaces/NS/deployments',
        ];
        const lists = await Promise.all(kinds.map((k) => cluster.api.list(k.replace('NS', namespace))));
        return lists
          .flat()
          .filter((o) => {
            const owners = valueAt(o, 'metadata', 'ownerReferences');
            return Array.isArray(owners) && owners.some((r) => valueAt(r, 'uid') === uid);
          })
          .map((o) => `${text(o['kind'])} ${text(valueAt(o, 'metadata', 'name'))}`);
      };
      let left: string[] = [];
      const gone = await waitFor(
        'the children to be collected',
        async () => {
          left = await owned();
          return left.length === 0 ? true : undefined;
        },
        60_000,
      ).catch(() => false);
      return [
        { name: 'the delete is accepted', pass: answer.status === 200, diag: answer.body },
        {
          name: "Metacontroller's finalizer was on it (the finalize hook ran before it went)",
          pass: Array.isArray(finalizers) && finalizers.includes('metacontroller.io/compositecontroller-ironic'),
          diag: finalizers,
        },
        { name: `no child left (${left.join(', ')})`, pass: gone },
      ];
    },
  },
];

/** The example the switch to high availability runs on, in a namespace of its own (not one of the examples'). */
export const HA_SWITCH = { file: 'examples/managed-database.yaml', namespace: 'day2-ha' } as const;

/** High availability on: long (the old pods' termination grace period), so it runs beside the other checks. */
export const HA_ROW: Row = {
  // networking.ipAddress is keepalived's virtual address in HA: without keepalived, the interface alone.
  name: 'high availability on: the Deployment becomes a DaemonSet (a copy of examples/managed-database.yaml)',
  run: async (cluster: RealCluster): Promise<Check[]> => {
    const namespace = HA_SWITCH.namespace;
    const answer = await mergePatch(cluster, `${IRONICS(namespace)}/ironic`, { spec: { highAvailability: true, networking: { ipAddress: null } } });
    await rolledOut(cluster, namespace);
    await allReady(cluster, namespace);
    const daemonSet = await get(cluster, `/apis/apps/v1/namespaces/${namespace}/daemonsets/ironic-service`);
    const deployment = await get(cluster, `/apis/apps/v1/namespaces/${namespace}/deployments/ironic-service`);
    return [
      { name: 'the edit is accepted', pass: answer.status === 200, diag: answer.body },
      { name: 'a DaemonSet ironic-service with a ready pod', pass: valueAt(daemonSet, 'status', 'numberReady') === 1, diag: valueAt(daemonSet, 'status') },
      { name: 'the Deployment is gone', pass: deployment === undefined },
    ];
  },
};

/** A new Galera database filled from a backup (a claim of its namespace), in a namespace of its own. */
export const RESTORED_DATABASE = {
  namespace: 'day2-restore',
  object: {
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'IronicDatabase',
    metadata: { name: 'ironic-db', namespace: 'day2-restore' },
    spec: { engine: 'MariaDBOperator', restoreFrom: { backup: 'latest', claimName: 'old-backups' } },
  },
} as const;

/**
 * A new Galera cluster filled by the hooks' own Restore, admitted and run by the real mariadb-operator (its Job
 * completed by the fake kubelet): Ready once the Restore reports JobComplete, which stays.
 */
export const RESTORE_ROW: Row = {
  name: "a new Galera database is filled by the hooks' Restore, which the real mariadb-operator runs and keeps (day2-restore)",
  run: async (cluster: RealCluster): Promise<Check[]> => {
    const { namespace } = RESTORED_DATABASE;
    const [parent] = await allReady(cluster, namespace);
    const restore = await get(cluster, `/apis/k8s.mariadb.com/v1alpha1/namespaces/${namespace}/restores/ironic-db-database-restore-backup`);
    const mariadb = await get(cluster, `/apis/k8s.mariadb.com/v1alpha1/namespaces/${namespace}/mariadbs/ironic-db-database`);
    const conditions = valueAt(restore, 'status', 'conditions');
    return [
      { name: 'restoredFrom latest', pass: valueAt(parent, 'status', 'restoredFrom') === 'latest', diag: valueAt(parent, 'status') },
      {
        name: 'the Restore reports its Job complete, and is kept',
        pass: Array.isArray(conditions) && conditions.some((c) => valueAt(c, 'type') === 'Complete' && valueAt(c, 'reason') === 'JobComplete'),
        diag: valueAt(restore, 'status'),
      },
      { name: 'the MariaDB has no bootstrapFrom', pass: mariadb !== undefined && valueAt(mariadb, 'spec', 'bootstrapFrom') === undefined },
    ];
  },
};

/** A new Galera database whose restore fails (the fake kubelet fails the Job of its Restore), with a backup asked. */
export const FAILED_RESTORE = {
  namespace: 'day2-restore-fails',
  /** The Job of the hooks' Restore (mariadb-operator names it as the Restore). */
  job: 'ironic-db-database-restore-backup',
  object: {
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'IronicDatabase',
    metadata: { name: 'ironic-db', namespace: 'day2-restore-fails' },
    spec: {
      engine: 'MariaDBOperator',
      restoreFrom: { backup: 'latest', claimName: 'empty-backups' },
      backup: { schedule: '30 2 * * *', persistentVolumeClaim: { size: '1Gi' } },
    },
  },
} as const;

/**
 * A restore whose Job fails, run by the real mariadb-operator: its Restore says JobFailed and is kept, the
 * IronicDatabase is Ready=False saying so and where the log is, nothing is recorded as restored, and no Backup
 * is made over the files it was to restore.
 */
export const FAILED_RESTORE_ROW: Row = {
  name: 'a failed restore of a new Galera database reads as failed, keeps its Restore and makes no Backup (day2-restore-fails)',
  run: async (cluster: RealCluster): Promise<Check[]> => {
    const { namespace } = FAILED_RESTORE;
    const base = `/apis/k8s.mariadb.com/v1alpha1/namespaces/${namespace}`;
    const path = `/apis/ironic.metal3.io/v1alpha1/namespaces/${namespace}/ironicdatabases/ironic-db`;
    const readyOf = (parent: Obj | undefined): unknown => {
      const conditions = valueAt(parent, 'status', 'conditions');
      return Array.isArray(conditions) ? conditions.find((c) => valueAt(c, 'type') === 'Ready') : undefined;
    };
    const parent = await waitFor(
      'the IronicDatabase Ready=False, reason DatabaseFailed',
      async () => {
        const found = await get(cluster, path);
        return valueAt(readyOf(found), 'reason') === 'DatabaseFailed' ? found : undefined;
      },
      180_000,
    );
    await settled(cluster, new Set([namespace]), 7_000);
    const restore = await get(cluster, `${base}/restores/ironic-db-database-restore-backup`);
    const backups = await cluster.api.list(`${base}/backups`);
    const conditions = valueAt(restore, 'status', 'conditions');
    const message = text(valueAt(readyOf(parent), 'message'));
    return [
      {
        name: 'Ready=False says the restore failed, and where its log is',
        pass:
          message.startsWith('restoring backup latest of claim empty-backups failed') &&
          message.includes(`kubectl -n ${namespace} logs job/ironic-db-database-restore-backup`),
        diag: message,
      },
      { name: 'nothing recorded as restored', pass: valueAt(parent, 'status', 'restoredFrom') === undefined, diag: valueAt(parent, 'status') },
      {
        name: 'the Restore reports its Job failed, and is kept',
        pass: Array.isArray(conditions) && conditions.some((c) => valueAt(c, 'type') === 'Complete' && valueAt(c, 'reason') === 'JobFailed'),
        diag: valueAt(restore, 'status'),
      },
      { name: 'no Backup over the files', pass: backups.length === 0, diag: backups.map((b) => valueAt(b, 'metadata', 'name')) },
    ];
  },
};
