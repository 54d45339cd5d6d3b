/**
 * Database schema upgrades across Ironic versions (upstream pkg/ironic/upgrades.go). With a database,
 * every version transition (the first install included) runs:
 *  1. a pre-upgrade Job (`ironic-dbsync upgrade`) that must complete before the workload moves;
 *  2. the new workload;
 *  3. a post-upgrade Job (online data migrations) while the new version serves.
 * Ironic is Ready, and installedVersion moves, only once the post-upgrade Job completed. Jobs are kept in
 * the response until the transition is over (a Job left out would be deleted, and recreated).
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { compareVersions, parseVersion } from '../../api/shared/version.js';
import type { IronicRenderInput } from './input.js';
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
