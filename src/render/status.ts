/**
 * Readiness of observed children and the Ready condition, computed only from what Metacontroller sent.
 * Rules mirror upstream pkg/ironic/utils.go (getDeploymentStatus, getDaemonSetStatus, job status).
 */
import type { KubeObject, ObjectMap } from '../api/shared/hook.js';
import { READY_CONDITION, type Condition } from '../api/shared/common.js';
import { stampOf, type KubeChild } from './child.js';
import { LABELS } from './names.js';
import { findObject, pathOf } from './observed.js';

/** What one child, or the whole parent, amounts to. */
export type Readiness = { readonly state: 'ready' | 'progressing' | 'failed'; readonly message: string };

export const ready = (message: string): Readiness => ({ state: 'ready', message });
export const progressing = (message: string): Readiness => ({ state: 'progressing', message });
export const failed = (message: string): Readiness => ({ state: 'failed', message });

type ObservedCondition = { type?: unknown; status?: unknown; reason?: unknown; message?: unknown; lastTransitionTime?: unknown };

/** The condition of a type in an observed status (of a child or of the parent), as it is. */
export const findCondition = (status: unknown, type: string): ObservedCondition | undefined => {
  const list = pathOf(status, 'conditions');
  const found: unknown = Array.isArray(list) ? list.find((c) => pathOf(c, 'type') === type) : undefined;
  return typeof found === 'object' && found !== null ? found : undefined;
};

/** A condition's text field as words: the string itself, else the fallback. */
const wordsOf = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

const condition = (object: KubeObject, type: string): ObservedCondition | undefined => findCondition(object['status'], type);

/** A number at a path of an observed object, or 0. */
export const numberAt = (object: unknown, ...path: string[]): number => {
  const value = pathOf(object, ...path);
  return typeof value === 'number' ? value : 0;
};

/** True when the workload controller has seen the latest spec. */
const generationObserved = (object: KubeObject): boolean =>
  object.metadata.generation === undefined || numberAt(object, 'status', 'observedGeneration') >= object.metadata.generation;

/** True when the observed object already carries the version we render (else Metacontroller has not applied it yet). */
const atVersion = (object: KubeObject, version: string | undefined): boolean =>
  version === undefined || object.metadata.labels?.[LABELS.version] === undefined || object.metadata.labels[LABELS.version] === version;

/** Readiness of a Deployment. */
export const deploymentReadiness = (deployment: KubeObject | undefined, version?: string, what = 'the Ironic deployment'): Readiness => {
  if (deployment === undefined) return progressing(`${what} is being created`);
  const name = deployment.metadata.name;
  if (!generationObserved(deployment) || !atVersion(deployment, version)) return progressing(`deployment ${name} is being updated`);
  const progress = condition(deployment, 'Progressing');
  if (progress?.status === 'False' && progress.reason === 'ProgressDeadlineExceeded') {
    return failed(`deployment ${name} stopped progressing: ${wordsOf(progress.message, 'progress deadline exceeded')}`);
  }
  const replicaFailure = condition(deployment, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') return failed(`deployment ${name} cannot create its pod: ${wordsOf(replicaFailure.message, '')}`);
  const updated =
    progress?.reason === 'NewReplicaSetAvailable' && numberAt(deployment, 'status', 'updatedReplicas') >= numberAt(deployment, 'spec', 'replicas');
  if (condition(deployment, 'Available')?.status !== 'True') return progressing(`deployment ${name} is not available yet`);
  if (!updated) return progressing(`deployment ${name} is rolling out`);
  return ready(`deployment ${name} is available`);
};

/**
 * Readiness of a DaemonSet. NOTE: unlike upstream, a DaemonSet that runs on no node is not ready.
 */
export const daemonSetReadiness = (daemonSet: KubeObject | undefined, version?: string): Readiness => {
  if (daemonSet === undefined) return progressing('the Ironic daemon set is being created');
  const name = daemonSet.metadata.name;
  if (!generationObserved(daemonSet) || !atVersion(daemonSet, version)) return progressing(`daemon set ${name} is being updated`);
  const desired = numberAt(daemonSet, 'status', 'desiredNumberScheduled');
  if (desired === 0) return failed(`daemon set ${name} runs on no node: the node selector matches no schedulable node`);
  const unavailable = numberAt(daemonSet, 'status', 'numberUnavailable');
  const outdated = desired - numberAt(daemonSet, 'status', 'updatedNumberScheduled');
  if (outdated > 0) return progressing(`daemon set ${name} is rolling out: ${outdated} of ${desired} pods need updating`);
  if (unavailable > 0) return progressing(`daemon set ${name}: ${unavailable} of ${desired} pods are unavailable`);
  return ready(`daemon set ${name} is available on ${desired} nodes`);
};

/** Readiness of a StatefulSet (the managed database). */
export const statefulSetReadiness = (set: KubeObject | undefined): Readiness => {
  if (set === undefined) return progressing('the database stateful set is being created');
  const name = set.metadata.name;
  if (!generationObserved(set)) return progressing(`stateful set ${name} is being updated`);
  const replicas = numberAt(set, 'spec', 'replicas');
  const updateRevision = pathOf(set, 'status', 'updateRevision');
  const currentRevision = pathOf(set, 'status', 'currentRevision');
  if (updateRevision !== undefined && currentRevision !== undefined && updateRevision !== currentRevision) {
    return progressing(`stateful set ${name} is rolling out`);
  }
  if (numberAt(set, 'status', 'readyReplicas') < replicas) return progressing(`stateful set ${name} is not ready yet`);
  return ready(`stateful set ${name} is ready`);
};

/** A Service is usable once it has a cluster IP. */
export const serviceReadiness = (service: KubeObject | undefined): Readiness => {
  if (service === undefined) return progressing('the service is being created');
  const ip = pathOf(service, 'spec', 'clusterIP');
  return typeof ip === 'string' && ip !== ''
    ? ready(`service ${service.metadata.name} has a cluster IP`)
    : progressing(`service ${service.metadata.name} has no cluster IP yet`);
};

/** Readiness of a Job: Complete is ready, Failed is failed. */
export const jobReadiness = (job: KubeObject | undefined, what: string): Readiness => {
  if (job === undefined) return progressing(`the ${what} job is being created`);
  const failure = condition(job, 'Failed');
  if (failure?.status === 'True')
    return failed(
      `${what} job ${job.metadata.name} failed: ${wordsOf(failure.message, wordsOf(failure.reason, 'see its pods'))}; fix the cause, then delete the job to run it again`,
    );
  if (condition(job, 'Complete')?.status === 'True') return ready(`${what} job ${job.metadata.name} completed`);
  return progressing(`${what} job ${job.metadata.name} is not complete yet`);
};

/** The first failure, else the first progress, else ready with the given message. */
export const combineReadiness = (parts: readonly Readiness[], readyMessage: string): Readiness =>
  parts.find((p) => p.state === 'failed') ?? parts.find((p) => p.state === 'progressing') ?? ready(readyMessage);

/** The previous Ready condition of a parent, if any. */
export const previousReady = (previousStatus: unknown): Condition | undefined => {
  const found = findCondition(previousStatus, READY_CONDITION);
  if (found === undefined) return undefined;
  const time = found.lastTransitionTime;
  return {
    type: READY_CONDITION,
    status: found.status === 'True' ? 'True' : found.status === 'False' ? 'False' : 'Unknown',
    ...(typeof time === 'string' && { lastTransitionTime: time }),
  };
};

/**
 * The Ready condition. `lastTransitionTime` is carried over while the status (True/False) does not
 * change, so a steady state returns the same condition on every sync.
 */
export const readyCondition = (params: {
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
  readonly generation: number | undefined;
  readonly previousStatus: unknown;
  readonly now: string;
}): Condition => {
  const previous = previousReady(params.previousStatus);
  const time = previous?.status === params.status && previous.lastTransitionTime !== undefined ? previous.lastTransitionTime : params.now;
  return {
    type: READY_CONDITION,
    status: params.status,
    reason: params.reason,
    message: params.message,
    lastTransitionTime: time,
    ...(params.generation !== undefined && { observedGeneration: params.generation }),
  };
};

/** The reasons of Ready=False when an IronicDatabase or IronicImageCache sync refuses to render. */
export const REFUSAL_REASONS = {
  invalidSpec: 'InvalidSpec',
  missingReference: 'MissingReference',
  invalidReference: 'InvalidReference',
  deleting: 'Deleting',
  conflict: 'ResourceConflict',
} as const;

/** How an IronicDatabase or IronicImageCache sync ended: rendered from `input` with its readiness, or refused. */
export type RefusableOutcome<I> =
  { readonly kind: 'rendered'; readonly readiness: Readiness; readonly input: I } | { readonly kind: keyof typeof REFUSAL_REASONS; readonly message: string };

/** A child kind's outcome: rendered with its readiness, or refused for a reason with a message. */
export type KindOutcome<K extends string> = { readonly kind: 'rendered'; readonly readiness: Readiness } | { readonly kind: K; readonly message: string };

/**
 * Ready's status, reason and message for an outcome: a refusal's own reason, else the readiness as
 * `available` (its message after `readyText`), `failed` or `inProgress`.
 */
export const readyReason = <K extends string>(
  outcome: KindOutcome<K>,
  reasons: Readonly<Record<K | 'available' | 'inProgress' | 'failed', string>>,
  readyText: string,
): { status: 'True' | 'False'; reason: string; message: string } => {
  if (!('readiness' in outcome)) return { status: 'False', reason: reasons[outcome.kind], message: outcome.message };
  const { state, message } = outcome.readiness;
  if (state === 'ready') return { status: 'True', reason: reasons.available, message: `${readyText}: ${message}` };
  return { status: 'False', reason: state === 'failed' ? reasons.failed : reasons.inProgress, message };
};

/** The transition time of a condition that was already True, so a repeated status is identical. */
export const previousTrueTime = (status: unknown, type: string): string | undefined => {
  const found = findCondition(status, type);
  return found?.status === 'True' && typeof found.lastTransitionTime === 'string' ? found.lastTransitionTime : undefined;
};

/** Workloads whose change takes effect only once their controller rolls the pods. */
const WORKLOAD_KINDS: ReadonlySet<string> = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

/**
 * A ready parent is not ready while a workload this sync returns carries another stamp than the observed one:
 * the observed workload is ready, but with the previous spec, and the change (a new spec, a rotated Secret)
 * reaches its pods only after this response. An observed workload without a stamp (adopted, or made before
 * workloads were stamped) has nothing to compare, and the readiness stands.
 */
export const readinessAfterApply = (readiness: Readiness, rendered: readonly KubeChild[], observed: ObjectMap | null | undefined): Readiness => {
  if (readiness.state !== 'ready') return readiness;
  for (const child of rendered) {
    if (!WORKLOAD_KINDS.has(child.kind)) continue;
    const live = findObject(observed, `${child.kind}.${child.apiVersion}`, child.metadata.namespace ?? '', child.metadata.name);
    const applied = live === undefined ? undefined : stampOf(live);
    if (applied !== undefined && applied !== stampOf(child)) return progressing(`${child.kind} ${child.metadata.name} is being updated with the change`);
  }
  return readiness;
};
