/**
 * Stand-ins for the workload controllers and the kubelet: the status a Deployment, StatefulSet or
 * DaemonSet reports once its pods are ready at the current generation, and the status of a finished Job.
 * mariadb-operator's stand-in is in mariadb-operator.ts.
 */
import { isRecord, type Json, type KubeResource } from './objects.js';

const generationOf = (object: KubeResource): number => object.metadata.generation ?? 1;

const replicasOf = (object: KubeResource): number => {
  const spec = object['spec'];
  const replicas = isRecord(spec) ? spec['replicas'] : undefined;
  return typeof replicas === 'number' ? replicas : 1;
};

/** A Deployment whose latest ReplicaSet is rolled out and available. */
export const availableDeploymentStatus = (deployment: KubeResource): Json => {
  const replicas = replicasOf(deployment);
  return {
    observedGeneration: generationOf(deployment),
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.' },
    ],
  };
};

/** A StatefulSet whose pods are ready and on the update revision. */
export const readyStatefulSetStatus = (set: KubeResource): Json => {
  const replicas = replicasOf(set);
  const revision = `${set.metadata.name}-${generationOf(set)}`;
  return {
    observedGeneration: generationOf(set),
    replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    currentReplicas: replicas,
    updatedReplicas: replicas,
    currentRevision: revision,
    updateRevision: revision,
  };
};

/** A node of the emulated cluster: its labels (taints are not modelled). */
export type EmulatedNode = { readonly name: string; readonly labels: Readonly<Record<string, string>> };

/** Three nodes: one control-plane node and two workers. */
export const EMULATED_NODES: readonly EmulatedNode[] = ['control-plane', 'worker-1', 'worker-2'].map((name) => ({
  name,
  labels: {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    ...(name === 'control-plane' && { 'node-role.kubernetes.io/control-plane': '' }),
  },
}));

/** How many of the nodes a DaemonSet's pod template selects (spec.template.spec.nodeSelector). */
export const scheduledNodes = (daemonSet: KubeResource, nodes: readonly EmulatedNode[] = EMULATED_NODES): number => {
  const spec = daemonSet['spec'];
  const template = isRecord(spec) ? spec['template'] : undefined;
  const podSpec = isRecord(template) ? template['spec'] : undefined;
  const selector = isRecord(podSpec) && isRecord(podSpec['nodeSelector']) ? podSpec['nodeSelector'] : {};
  return nodes.filter((node) => Object.entries(selector).every(([key, value]) => node.labels[key] === value)).length;
};

/** A DaemonSet running, up to date and available on `nodes` nodes (by default, the emulated nodes its selector matches). */
export const readyDaemonSetStatus = (daemonSet: KubeResource, nodes = scheduledNodes(daemonSet)): Json => ({
  observedGeneration: generationOf(daemonSet),
  desiredNumberScheduled: nodes,
  currentNumberScheduled: nodes,
  updatedNumberScheduled: nodes,
  numberReady: nodes,
  numberAvailable: nodes,
  numberUnavailable: 0,
  numberMisscheduled: 0,
});

/** A Job that succeeded. */
export const completeJobStatus = (time: string): Json => ({
  succeeded: 1,
  startTime: time,
  completionTime: time,
  conditions: [
    { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
    { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
  ],
});

/** A Job that gave up. */
export const failedJobStatus = (time: string, message = 'Job has reached the specified backoff limit'): Json => ({
  failed: 1,
  startTime: time,
  conditions: [
    { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message },
    { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message },
  ],
});

const conditionTrue = (object: KubeResource, type: string): boolean => {
  const status = object['status'];
  const conditions = isRecord(status) && Array.isArray(status['conditions']) ? status['conditions'] : [];
  return conditions.some((c) => isRecord(c) && c['type'] === type && c['status'] === 'True');
};

/** Whether a Job has finished (Complete or Failed). */
export const jobFinished = (job: KubeResource): boolean => conditionTrue(job, 'Complete') || conditionTrue(job, 'Failed');

/**
 * The status that makes a child ready, or undefined when it is already ready at its generation, is a
 * finished Job, or has no workload status at all.
 */
export const settledStatus = (child: KubeResource, time: string): Json | undefined => {
  const current = child['status'];
  const observed = isRecord(current) ? current['observedGeneration'] : undefined;
  const wanted = ((): Json | undefined => {
    switch (child.kind) {
      case 'Deployment':
        return availableDeploymentStatus(child);
      case 'StatefulSet':
        return readyStatefulSetStatus(child);
      case 'DaemonSet':
        return readyDaemonSetStatus(child);
      case 'Job':
        return jobFinished(child) ? undefined : completeJobStatus(time);
      default:
        return undefined;
    }
  })();
  if (wanted === undefined) return undefined;
  const generationSeen = !('observedGeneration' in wanted) || observed === generationOf(child);
  const upToDate = child.kind !== 'Job' && generationSeen && JSON.stringify(current) === JSON.stringify(wanted);
  return upToDate ? undefined : wanted;
};

const numberIn = (value: unknown, key: string): number => {
  const n = isRecord(value) ? value[key] : undefined;
  return typeof n === 'number' ? n : 0;
};

/** Pods a workload runs as its status counts them (terminating pods are not counted, as in Kubernetes). */
export const podsInStatus = (workload: KubeResource): number => {
  const status = workload['status'];
  switch (workload.kind) {
    case 'Deployment':
    case 'StatefulSet':
      return numberIn(status, 'replicas');
    case 'DaemonSet':
      return numberIn(status, 'currentNumberScheduled') + numberIn(status, 'numberMisscheduled');
    default:
      return 0;
  }
};

/** Kubernetes' default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/** How long a workload's pods take to terminate: the template's terminationGracePeriodSeconds, or 30 s. */
const gracePeriodSeconds = (workload: KubeResource): number => {
  const spec = workload['spec'];
  const template = isRecord(spec) ? spec['template'] : undefined;
  const grace = isRecord(template) && isRecord(template['spec']) ? template['spec']['terminationGracePeriodSeconds'] : undefined;
  return typeof grace === 'number' ? grace : DEFAULT_GRACE_PERIOD_SECONDS;
};

/** Pods of a workload that stopped being counted (scaled down or deleted) and run until their grace period ends. */
export type TerminatingPods = {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly pods: number;
  /** When they were told to stop, and when the last of them is gone (RFC 3339). */
  readonly since: string;
  readonly until: string;
};

/**
 * The kubelet's terminating pods: a workload scaled down or deleted (Metacontroller deletes children in
 * background, so the garbage collector deletes the pods after the workload) keeps the pods it loses
 * running for their termination grace period (pods that ignore SIGTERM run to the end of it).
 */
export class TerminatingPodLedger {
  readonly #entries: TerminatingPods[] = [];

  /** `workload` went from `before` counted pods to `after` at `now`: the difference terminates. */
  record(workload: KubeResource, before: number, after: number, now: string): void {
    if (after >= before) return;
    const until = new Date(Date.parse(now) + gracePeriodSeconds(workload) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const { kind, metadata } = workload;
    this.#entries.push({ kind, namespace: metadata.namespace ?? '', name: metadata.name, uid: metadata.uid ?? '', pods: before - after, since: now, until });
  }

  /** The pods still terminating at `now`. */
  at(now: string): TerminatingPods[] {
    const time = Date.parse(now);
    return this.#entries.filter((e) => Date.parse(e.until) > time).map((e) => ({ ...e }));
  }
}
