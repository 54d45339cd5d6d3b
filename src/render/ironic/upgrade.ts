/**
 * Database schema upgrades across Ironic versions (upstream pkg/ironic/upgrades.go). With a database,
 * every version transition (the first install included) runs:
 *  1. a pre-upgrade Job (`ironic-dbsync upgrade`) that must complete before the workload moves;
 *  2. the new workload;
 *  3. a post-upgrade Job (online data migrations) while the new version serves.
 * Ironic is Ready, and installedVersion moves, only once the post-upgrade Job completed. Jobs are kept in
 * the response until the transition is over (a Job left out would be deleted, and recreated).
 * When the IronicDatabase asks for it (spec.backup.beforeUpgrade), a version change from an installed version
 * first takes a backup (the database's own backup run, as an Ironic child), and the pre-upgrade Job waits for it.
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { compareVersions, parseVersion } from '../../api/shared/version.js';
import type { KubeObject } from '../../api/shared/hook.js';
import { backupJobSpec, backupLabels } from '../shared/database-backup.js';
import { findCondition, failed, progressing, type Readiness } from '../status.js';
import { pathOf, textOf } from '../observed.js';
import type { IronicRenderInput, UpgradeBackupSource } from './input.js';
import { proxyEnv } from './common-env.js';
import { restricted } from '../security.js';
import { childLabels, fieldEnv, ironicImages, ironicScheduling, resourcesOf } from './facts.js';
import { databaseAuthVolume, databaseCAVolume, databaseMounts, scratchMounts, scratchVolume, sharedMount, sharedVolume } from './volumes.js';

export type Phase = 'pre' | 'post';

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
 * The backup Job before the schema upgrade from `from`: the database's backup run (the pod template of its
 * CronJob, so the file lands in its backup volume under the same pattern, with the same retention, and
 * `restoreFrom: latest` sees it), with the database's backup labels so that its status counts it too.
 */
export const renderUpgradeBackupJob = (input: IronicRenderInput, source: UpgradeBackupSource, from: string): IJob => {
  const spec = backupJobSpec({ ...source.pod, image: source.pod.image ?? input.config.images.mariadb }, source.retention);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: input.names.upgradeBackupJob(from, input.model.version),
      namespace: input.namespace,
      labels: { ...childLabels(input), ...backupLabels(source.pod.database) },
    },
    spec,
  };
};

/** The backup before an upgrade, as the Ironic's status.upgradeBackup records it. */
export type UpgradeBackupStatus = {
  readonly jobName: string;
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
  /** The backup succeeded: the upgrade goes on, with the Job kept while the transition lasts (when observed). */
  | { readonly kind: 'done'; readonly job?: IJob; readonly status: UpgradeBackupStatus }
  /** The upgrade waits for the backup (running, being created, or failed: then readiness says what to do). */
  | { readonly kind: 'wait'; readonly job: IJob; readonly status: UpgradeBackupStatus; readonly readiness: Readiness };

/** The previous status's record of a backup before an upgrade, when it has every required field. */
export const previousUpgradeBackup = (status: unknown): UpgradeBackupStatus | undefined => {
  const record = pathOf(status, 'upgradeBackup');
  const [jobName, databaseName, fromVersion, toVersion, state] = ['jobName', 'databaseName', 'fromVersion', 'toVersion', 'state'].map((k) =>
    textOf(pathOf(record, k)),
  );
  if (jobName === undefined || databaseName === undefined || fromVersion === undefined || toVersion === undefined) return undefined;
  if (state !== 'Running' && state !== 'Succeeded' && state !== 'Failed') return undefined;
  const completionTime = textOf(pathOf(record, 'completionTime'));
  const backup = textOf(pathOf(record, 'backup'));
  return {
    jobName,
    databaseName,
    fromVersion,
    toVersion,
    state,
    ...(completionTime !== undefined && { completionTime }),
    ...(backup !== undefined && { backup }),
  };
};

/** The observed backup Job's state. */
const jobState = (job: KubeObject | undefined): UpgradeBackupStatus['state'] => {
  if (findCondition(job?.['status'], 'Failed')?.status === 'True') return 'Failed';
  return findCondition(job?.['status'], 'Complete')?.status === 'True' ? 'Succeeded' : 'Running';
};

/**
 * The gate of a transition from `installed` to the model's version: the pre-upgrade Job runs only once the
 * backup Job succeeded (as observed, or as the previous status recorded it for this very transition: a backup
 * that succeeded is never taken again for the same upgrade, even when its Job was deleted). A failed backup holds
 * the upgrade (Failed), and says how to go on.
 */
export const upgradeBackupGate = (params: {
  readonly input: IronicRenderInput;
  readonly installed: string | undefined;
  /** The observed Job of this transition's backup, if any. */
  readonly observed: KubeObject | undefined;
  readonly previousStatus: unknown;
}): UpgradeBackupGate => {
  const { input, installed, observed } = params;
  const source = input.references.database?.upgradeBackup;
  // The first install has no schema of this Ironic's to lose.
  if (source === undefined || installed === undefined || installed === input.model.version) return { kind: 'none' };
  const jobName = input.names.upgradeBackupJob(installed, input.model.version);
  const database = source.pod.database;
  const previous = previousUpgradeBackup(params.previousStatus);
  const recorded =
    previous?.jobName === jobName && previous.databaseName === database && previous.fromVersion === installed && previous.toVersion === input.model.version
      ? previous
      : undefined;
  const job = renderUpgradeBackupJob(input, source, installed);
  const state = observed !== undefined ? jobState(observed) : recorded?.state === 'Succeeded' ? 'Succeeded' : 'Running';
  const completionTime = textOf(pathOf(observed, 'status', 'completionTime')) ?? recorded?.completionTime;
  const file = recorded?.backup ?? (source.lastBackup?.job === jobName ? source.lastBackup.file : undefined);
  const status: UpgradeBackupStatus = {
    jobName,
    databaseName: database,
    fromVersion: installed,
    toVersion: input.model.version,
    state,
    ...(state === 'Succeeded' && completionTime !== undefined && { completionTime }),
    ...(state === 'Succeeded' && file !== undefined && { backup: file }),
  };
  const what = `the upgrade from ${installed} to ${input.model.version}`;
  if (state === 'Succeeded') return { kind: 'done', ...(observed !== undefined && { job }), status };
  if (observed === undefined)
    return { kind: 'wait', job, status, readiness: progressing(`backing up IronicDatabase ${database} before ${what}: Job ${jobName} is being created`) };
  if (state === 'Running')
    return { kind: 'wait', job, status, readiness: progressing(`backing up IronicDatabase ${database} before ${what}: Job ${jobName} is running`) };
  const why = textOf(findCondition(observed['status'], 'Failed')?.message) ?? textOf(findCondition(observed['status'], 'Failed')?.reason) ?? 'see its pods';
  return {
    kind: 'wait',
    job,
    status,
    readiness: failed(
      `${what} is held: the backup of IronicDatabase ${database} before it failed (Job ${jobName}: ${why}); the running version is untouched. Fix the cause (kubectl logs job/${jobName}; the IronicDatabase's status.backup.lastFailureReason), then delete Job ${jobName} to take the backup again, or set spec.backup.beforeUpgrade to false on IronicDatabase ${database} to upgrade without it`,
    ),
  };
};
