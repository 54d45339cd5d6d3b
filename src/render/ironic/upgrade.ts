/**
 * Database schema upgrades across Ironic versions (upstream pkg/ironic/upgrades.go). With a database,
 * every version transition (the first install included) runs:
 *  1. a pre-upgrade Job (`ironic-dbsync upgrade`) that must complete before the workload moves;
 *  2. the new workload;
 *  3. a post-upgrade Job (online data migrations) while the new version serves.
 * Ironic is Ready, and installedVersion moves, only once the post-upgrade Job completed. Jobs are kept in
 * the response until the transition is over (a Job left out would be deleted, and recreated).
 * When the IronicDatabase asks for it (spec.backup.beforeUpgrade), a version change from an installed version
 * first takes a backup, as an Ironic child: the database's own backup run as a Job (engine Builtin), or a one-shot
 * mariadb-operator Backup (engine MariaDBOperator); the pre-upgrade Job waits for it.
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { compareVersions, parseVersion } from '../../api/shared/version.js';
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import { backupJobSpec, backupLabels } from '../shared/database-backup.js';
import { findCondition, failed, progressing, type Readiness } from '../status.js';
import { pathOf, textOf } from '../observed.js';
import type { IronicRenderInput, UpgradeBackupSource } from './input.js';
import { toChild, type KubeChild } from '../child.js';
import { MARIADB_API_VERSION, operatorBackupSpec } from '../shared/mariadb-operator-backup.js';
import { proxyEnv } from './common-env.js';
import { restricted } from '../security.js';
import { childLabels, fieldEnv, ironicImages, ironicScheduling, resourcesOf } from './facts.js';
import { databaseAuthVolume, databaseCAVolume, databaseMounts, scratchMounts, scratchVolume, sharedMount, sharedVolume } from './volumes.js';

export type Phase = 'pre' | 'post';

/** The source of the backup before an upgrade, per engine. */
type BuiltinBackupSource = Extract<UpgradeBackupSource, { readonly engine: 'Builtin' }>;
type OperatorBackupSource = Extract<UpgradeBackupSource, { readonly engine: 'MariaDBOperator' }>;

const PHASES = {
  pre: { container: 'database-upgrade', command: '/bin/rundatabase-upgrade' },
  post: { container: 'online-data-migrations', command: '/bin/runonline-data-migrations' },
} as const;

/** The from-part of a transition: the installed version, or `none` on the first install. */
export const transitionFrom = (installed: string | undefined): string => installed ?? 'none';

/**
 * A refusal message when going from `installed` to `target` is a downgrade, which the database schema
 * does not support. Moving from `latest` to a release is allowed, as upstream.
 */
export const downgradeRefusal = (installed: string | undefined, target: string): string | undefined => {
  if (installed === undefined) return undefined;
  const from = parseVersion(installed);
  const to = parseVersion(target);
  if (!from.ok || !to.ok || from.version.kind === 'latest') return undefined;
  return compareVersions(to.version, from.version) < 0
    ? `Ironic ${installed} is installed and cannot be downgraded to ${target} with a database (the schema only moves forward): set spec.version to ${installed} or newer`
    : undefined;
};

const jobContainer = (input: IronicRenderInput, phase: Phase): IContainer => {
  const db = input.references.database;
  return {
    name: PHASES[phase].container,
    image: ironicImages(input).ironic,
    command: [PHASES[phase].command],
    env: [
      { name: 'IRONIC_USE_MARIADB', value: 'true' },
      { name: 'MARIADB_HOST', value: db?.host ?? '' },
      { name: 'MARIADB_DATABASE', value: db?.name ?? '' },
      // Every ironic-image entry point waits for a provisioning IP.
      fieldEnv('PROVISIONING_IP', 'status.podIP'),
      ...proxyEnv(input),
    ],
    volumeMounts: [sharedMount, ...databaseMounts(db), ...scratchMounts(PHASES[phase].container)],
    ...resourcesOf(input, PHASES[phase].container),
    securityContext: restricted(),
  };
};

const jobVolumes = (input: IronicRenderInput, phase: Phase): IVolume[] => {
  const db = input.references.database;
  return [sharedVolume, ...(db !== undefined ? [databaseAuthVolume(db), ...databaseCAVolume(db)] : []), scratchVolume(PHASES[phase].container)];
};

/**
 * One upgrade Job. User labels, annotations, node selector and tolerations apply to its pod.
 * NOTE: user override containers do not (upstream adds them): a long-running sidecar would keep the Job
 * from ever completing.
 */
export const renderUpgradeJob = (input: IronicRenderInput, phase: Phase, from: string): IJob => {
  const { overrides } = input.model;
  const labels = childLabels(input);
  const annotations = overrides.annotations;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.names.upgradeJob(phase, from, input.model.version), namespace: input.namespace, labels },
    spec: {
      backoffLimit: 3,
      podReplacementPolicy: 'Failed',
      template: {
        // No app label: the Service must never select a Job pod.
        metadata: { labels: { ...overrides.labels, ...labels }, ...(Object.keys(annotations).length > 0 && { annotations: { ...annotations } }) },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          ...ironicScheduling(input),
          ...podPullSecrets(input.model.scheduling.imagePullSecrets, input.config, [jobContainer(input, phase)]),
          containers: [jobContainer(input, phase)],
          // NOTE: no volume overrides (upstream applies them): the Job mounts none of them, and a replaced
          // ironic-shared on a ReadWriteOnce claim held by the running Ironic would stall the upgrade.
          volumes: jobVolumes(input, phase),
        },
      },
    },
  };
};

/**
 * The backup Job before the schema upgrade from `from` (engine Builtin): the database's backup run (the pod template
 * of its CronJob, so the file lands in its backup volume under the same pattern, with the same retention, and
 * `restoreFrom: latest` sees it), with the database's backup labels so that its status counts it too.
 */
export const renderUpgradeBackupJob = (input: IronicRenderInput, source: BuiltinBackupSource, from: string): IJob => {
  // The database's pull secrets (it runs the database's image), then the Ironic's: every pod of the Ironic has them.
  const imagePullSecrets = [...source.pod.imagePullSecrets, ...input.model.scheduling.imagePullSecrets];
  const spec = backupJobSpec({ ...source.pod, image: source.pod.image ?? input.config.images.mariadb, imagePullSecrets }, source.retention);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: input.names.upgradeBackup(from, input.model.version),
      namespace: input.namespace,
      labels: { ...childLabels(input), ...backupLabels(source.pod.database) },
    },
    spec,
  };
};

/**
 * The Backup before the schema upgrade from `from` (engine MariaDBOperator): a one-shot mariadb-operator Backup (no
 * schedule: mariadb-operator runs it once, as a Job named as the Backup) of the database's MariaDB, into the claim
 * or bucket of its scheduled Backup, pruned by the same age.
 */
export const renderUpgradeBackup = (input: IronicRenderInput, source: OperatorBackupSource, from: string): KubeChild => ({
  apiVersion: MARIADB_API_VERSION,
  kind: 'Backup',
  metadata: { name: input.names.upgradeBackup(from, input.model.version), namespace: input.namespace, labels: childLabels(input) },
  spec: operatorBackupSpec(source.backup),
});

/** The backup before the last schema upgrade, as the Ironic's status.upgradeBackup records it. */
export type UpgradeBackupStatus = {
  /** Job (engine Builtin) or mariadb-operator's Backup (engine MariaDBOperator). */
  readonly kind: 'Job' | 'Backup';
  readonly name: string;
  readonly databaseName: string;
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly state: 'Running' | 'Succeeded' | 'Failed';
  readonly completionTime?: string;
  readonly backup?: string;
};

/** Where the backup before an upgrade stands, and whether the upgrade may go on. */
export type UpgradeBackupGate =
  /** No backup before this transition (none asked for, or the first install). */
  | { readonly kind: 'none' }
  /** The backup succeeded: the upgrade goes on, with its child kept while the transition lasts (when observed). */
  | { readonly kind: 'done'; readonly child?: KubeChild; readonly status: UpgradeBackupStatus }
  /** The upgrade waits for the backup (running, being created, or failed: then readiness says what to do). */
  | { readonly kind: 'wait'; readonly child: KubeChild; readonly status: UpgradeBackupStatus; readonly readiness: Readiness };

/** The previous status's record of a backup before an upgrade, when it has every required field. */
export const previousUpgradeBackup = (status: unknown): UpgradeBackupStatus | undefined => {
  const record = pathOf(status, 'upgradeBackup');
  const [kind, name, databaseName, fromVersion, toVersion, state] = ['kind', 'name', 'databaseName', 'fromVersion', 'toVersion', 'state'].map((k) =>
    textOf(pathOf(record, k)),
  );
  if (name === undefined || databaseName === undefined || fromVersion === undefined || toVersion === undefined) return undefined;
  if (kind !== 'Job' && kind !== 'Backup') return undefined;
  if (state !== 'Running' && state !== 'Succeeded' && state !== 'Failed') return undefined;
  const completionTime = textOf(pathOf(record, 'completionTime'));
  const backup = textOf(pathOf(record, 'backup'));
  return {
    kind,
    name,
    databaseName,
    fromVersion,
    toVersion,
    state,
    ...(completionTime !== undefined && { completionTime }),
    ...(backup !== undefined && { backup }),
  };
};

/** What the gate reads of the observed backup child of either engine. */
type Observation = {
  readonly state: UpgradeBackupStatus['state'];
  readonly completionTime?: string;
  /** What is going on, for the progress message (`Job <name> is running`). */
  readonly progress: string;
  /** Why it failed. */
  readonly why: string;
};

/** The observed backup Job: Failed or Complete conditions (batch/v1). */
const observeJob = (job: KubeObject): Observation => {
  const status = job['status'];
  const failure = findCondition(status, 'Failed');
  const completionTime = textOf(pathOf(status, 'completionTime'));
  const state = failure?.status === 'True' ? 'Failed' : findCondition(status, 'Complete')?.status === 'True' ? 'Succeeded' : 'Running';
  return {
    state,
    ...(completionTime !== undefined && { completionTime }),
    progress: `Job ${job.metadata.name} is running`,
    why: `Job ${job.metadata.name}: ${textOf(failure?.message) ?? textOf(failure?.reason) ?? 'see its pods'}`,
  };
};

/**
 * The observed one-shot Backup: mariadb-operator reports its Job in the one condition Complete (pkg/condition
 * complete.go, SetCompleteWithJob): True `JobComplete` (Success), True `JobFailed` (the Job failed after its
 * retries), False `JobRunning` or `JobSuspended`; False `Failed` while it cannot start the Job (its MariaDB not
 * found, a Job it could not create), which it retries.
 */
const observeBackup = (backup: KubeObject): Observation => {
  const complete = findCondition(backup['status'], 'Complete');
  const reason = textOf(complete?.reason);
  const message = textOf(complete?.message);
  const state = complete?.status !== 'True' ? 'Running' : reason === 'JobFailed' ? 'Failed' : 'Succeeded';
  const time = textOf(complete?.lastTransitionTime);
  const name = backup.metadata.name;
  return {
    state,
    ...(state === 'Succeeded' && time !== undefined && { completionTime: time }),
    progress:
      message !== undefined ? `mariadb-operator's Backup ${name} reports ${message}` : `mariadb-operator's Backup ${name} is waiting for mariadb-operator`,
    why: `mariadb-operator's Backup ${name} reports ${message ?? 'Failed'}${reason !== undefined ? ` (${reason})` : ''}`,
  };
};

/** How to look into a failed backup and take it again, per engine. */
const retryHint = (kind: UpgradeBackupStatus['kind'], name: string): string =>
  kind === 'Job'
    ? `Fix the cause (kubectl logs job/${name}; the IronicDatabase's status.backup.lastFailureReason), then delete Job ${name} to take the backup again`
    : `Fix the cause (kubectl logs job/${name}: mariadb-operator's Job is named as its Backup), then delete Backup ${name} to take the backup again (its Job goes with it)`;

/** The backup child of a transition from `installed`, rendered for the source's engine. */
const renderBackupChild = (input: IronicRenderInput, source: UpgradeBackupSource, installed: string): KubeChild =>
  source.engine === 'Builtin' ? toChild(renderUpgradeBackupJob(input, source, installed)) : renderUpgradeBackup(input, source, installed);

/**
 * The gate of a transition from `installed` to the model's version: the pre-upgrade Job runs only once the
 * backup succeeded (the Job of engine Builtin, mariadb-operator's one-shot Backup of engine MariaDBOperator; as
 * observed, or as the previous status recorded it for this very transition: a backup that succeeded is never taken
 * again for the same upgrade, even when its child was deleted). A failed backup holds the upgrade (Failed), and says
 * how to go on.
 */
export const upgradeBackupGate = (params: {
  readonly input: IronicRenderInput;
  readonly installed: string | undefined;
  /** The observed child of a group by name, if any. */
  readonly observed: (group: string, name: string) => KubeObject | undefined;
  readonly previousStatus: unknown;
}): UpgradeBackupGate => {
  const { input, installed } = params;
  const source = input.references.database?.upgradeBackup;
  // The first install has no schema of this Ironic's to lose.
  if (source === undefined || installed === undefined || installed === input.model.version) return { kind: 'none' };
  const name = input.names.upgradeBackup(installed, input.model.version);
  const kind = source.engine === 'Builtin' ? 'Job' : 'Backup';
  const database = source.engine === 'Builtin' ? source.pod.database : source.database;
  const previous = previousUpgradeBackup(params.previousStatus);
  const recorded =
    previous?.kind === kind &&
    previous.name === name &&
    previous.databaseName === database &&
    previous.fromVersion === installed &&
    previous.toVersion === input.model.version
      ? previous
      : undefined;
  const child = renderBackupChild(input, source, installed);
  const found = params.observed(kind === 'Job' ? GROUP_KEYS.job : GROUP_KEYS.mariadbBackup, name);
  const observation = found === undefined ? undefined : kind === 'Job' ? observeJob(found) : observeBackup(found);
  const state = observation?.state ?? (recorded?.state === 'Succeeded' ? 'Succeeded' : 'Running');
  const completionTime = observation?.completionTime ?? recorded?.completionTime;
  const file = recorded?.backup ?? (source.engine === 'Builtin' && source.lastBackup?.job === name ? source.lastBackup.file : undefined);
  const status: UpgradeBackupStatus = {
    kind,
    name,
    databaseName: database,
    fromVersion: installed,
    toVersion: input.model.version,
    state,
    ...(state === 'Succeeded' && completionTime !== undefined && { completionTime }),
    ...(state === 'Succeeded' && file !== undefined && { backup: file }),
  };
  const what = `the upgrade from ${installed} to ${input.model.version}`;
  if (state === 'Succeeded') return { kind: 'done', ...(found !== undefined && { child }), status };
  const waiting = (readiness: Readiness): UpgradeBackupGate => ({ kind: 'wait', child, status, readiness });
  if (observation === undefined) return waiting(progressing(`backing up IronicDatabase ${database} before ${what}: ${kind} ${name} is being created`));
  if (state === 'Running') return waiting(progressing(`backing up IronicDatabase ${database} before ${what}: ${observation.progress}`));
  return waiting(
    failed(
      `${what} is held: the backup of IronicDatabase ${database} before it failed (${observation.why}); the running version is untouched. ${retryHint(kind, name)}, or set spec.backup.beforeUpgrade to false on IronicDatabase ${database} to upgrade without it`,
    ),
  );
};
