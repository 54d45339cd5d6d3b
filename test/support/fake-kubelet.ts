/**
 * What a kubelet and a scheduler would do for the pods of the tests on a control plane without them.
 */
import type { KubeApi } from './kube-api.js';
import { valueAt, type Obj } from './paths.js';

/** RFC 3339 with microseconds, as a Lease's renewTime is written. */
const microTime = (date: Date): string => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const seconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const NODE_NAME = 'node-1';

const readyPodStatus = (pod: Obj, now: string): Obj => {
  const containers = valueAt(pod, 'spec', 'containers');
  const inits = valueAt(pod, 'spec', 'initContainers');
  const status = (c: unknown, running: boolean): Obj => ({
    name: valueAt(c, 'name'),
    image: valueAt(c, 'image'),
    imageID: '',
    ready: running,
    started: running,
    restartCount: 0,
    state: running ? { running: { startedAt: now } } : { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now } },
  });
  const condition = (type: string): Obj => ({ type, status: 'True', lastTransitionTime: now });
  return {
    phase: 'Running',
    hostIP: '192.0.2.10',
    podIP: '10.244.0.10',
    startTime: now,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(condition),
    containerStatuses: (Array.isArray(containers) ? containers : []).map((c) => status(c, true)),
    ...(Array.isArray(inits) && { initContainerStatuses: inits.map((c) => status(c, false)) }),
  };
};

/** A Job pod's status that is not ready, with the phase, the Ready reason and what each container reports. */
const jobPodStatus = (pod: Obj, now: string, phase: string, notReady: string, container: Obj): Obj => {
  const containers = valueAt(pod, 'spec', 'containers');
  return {
    phase,
    startTime: now,
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status: 'False', reason: notReady, lastTransitionTime: now },
    ],
    containerStatuses: (Array.isArray(containers) ? containers : []).map((c) => ({
      name: valueAt(c, 'name'),
      image: valueAt(c, 'image'),
      imageID: '',
      ready: false,
      ...container,
    })),
  };
};

const succeededPodStatus = (pod: Obj, now: string): Obj =>
  jobPodStatus(pod, now, 'Succeeded', 'PodCompleted', {
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now } },
  });

/** Restarts that fail a Job of restartPolicy OnFailure at once (its backoffLimit counts the restarts of its pods). */
const CRASH_RESTARTS = 100;

/**
 * A Job pod whose container keeps failing (restartPolicy OnFailure): Running, not ready, restarted many times, so
 * the Job controller fails the Job (BackoffLimitExceeded) instead of waiting for the backoff of new pods.
 */
const crashingPodStatus = (pod: Obj, now: string): Obj =>
  jobPodStatus(pod, now, 'Running', 'ContainersNotReady', {
    restartCount: CRASH_RESTARTS,
    state: { waiting: { reason: 'CrashLoopBackOff' } },
    lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: now, finishedAt: now } },
  });

const isCrashing = (pod: Obj): boolean => valueAt(pod, 'status', 'containerStatuses', 0, 'restartCount') === CRASH_RESTARTS;

const ownerKind = (object: Obj): unknown => valueAt(object, 'metadata', 'ownerReferences', 0, 'kind');

const isReadyPod = (pod: Obj): boolean => {
  const conditions = valueAt(pod, 'status', 'conditions');
  return Array.isArray(conditions) && conditions.some((c) => valueAt(c, 'type') === 'Ready' && valueAt(c, 'status') === 'True');
};

/**
 * What a kubelet (and a scheduler) would do for the pods of the tests, in a loop: one Node that renews its
 * Lease (so that DaemonSets place a pod on it and the node lifecycle controller keeps it Ready), every new
 * pod Running and Ready (a Job's pod Succeeded, so that the Job completes), a deleted pod removed.
 * `hold(namespace)` leaves a namespace's pods as they are (a pod that never gets ready); `failJob(namespace, name)`
 * fails a Job.
 */
export class FakeKubelet {
  readonly #api: KubeApi;
  readonly #steps: readonly ((api: KubeApi, now: string) => Promise<void>)[];
  readonly #held = new Set<string>();
  readonly #failing = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #lastLease = 0;
  #running: Promise<void> = Promise.resolve();

  /** `steps` run in every round after the pods (stand-ins for what else no program here does). */
  constructor(api: KubeApi, steps: readonly ((api: KubeApi, now: string) => Promise<void>)[] = []) {
    this.#api = api;
    this.#steps = steps;
  }

  async start(): Promise<void> {
    const now = new Date();
    await this.#api.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      // A control-plane node: the HA DaemonSet of an Ironic runs on those (its nodeSelector).
      metadata: {
        name: NODE_NAME,
        labels: {
          'kubernetes.io/hostname': NODE_NAME,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node-role.kubernetes.io/control-plane': '',
        },
      },
    });
    const resources = { cpu: '64', memory: '256Gi', pods: '110', 'ephemeral-storage': '1Ti' };
    await this.#api.patchStatus(`/api/v1/nodes/${NODE_NAME}`, {
      capacity: resources,
      allocatable: resources,
      addresses: [
        { type: 'InternalIP', address: '192.0.2.10' },
        { type: 'Hostname', address: NODE_NAME },
      ],
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: seconds(now), lastTransitionTime: seconds(now) }],
      nodeInfo: { kubeletVersion: 'v1.32.0', architecture: 'amd64', operatingSystem: 'linux' },
    });
    await this.#renewLease();
    this.#timer = setInterval(() => {
      this.#running = this.#running.then(() => this.#tick()).catch(() => undefined);
    }, 500);
  }

  /** Pods of this namespace are left as they are (never ready), until `release`. */
  hold(namespace: string): void {
    this.#held.add(namespace);
  }

  /** The Job of this name and namespace fails: its pods crash until the Job controller gives up on it. */
  failJob(namespace: string, name: string): void {
    this.#failing.add(`${namespace}/${name}`);
  }

  release(namespace: string): void {
    this.#held.delete(namespace);
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#running;
  }

  async #renewLease(): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE_NAME}`;
    const spec = { holderIdentity: NODE_NAME, leaseDurationSeconds: 40, renewTime: microTime(new Date()) };
    const patched = await this.#api.request('PATCH', path, { spec }, 'application/merge-patch+json');
    if (patched.status === 404)
      await this.#api.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: NODE_NAME },
        spec,
      });
    this.#lastLease = Date.now();
  }

  #podStatus(pod: Obj, namespace: string, now: string): Obj {
    if (ownerKind(pod) !== 'Job') return readyPodStatus(pod, now);
    const job = `${namespace}/${String(valueAt(pod, 'metadata', 'ownerReferences', 0, 'name'))}`;
    return this.#failing.has(job) ? crashingPodStatus(pod, now) : succeededPodStatus(pod, now);
  }

  async #tick(): Promise<void> {
    if (Date.now() - this.#lastLease > 10_000) await this.#renewLease();
    const now = seconds(new Date());
    for (const pod of await this.#api.list('/api/v1/pods')) {
      const namespace = String(valueAt(pod, 'metadata', 'namespace'));
      const path = `/api/v1/namespaces/${namespace}/pods/${String(valueAt(pod, 'metadata', 'name'))}`;
      if (valueAt(pod, 'metadata', 'deletionTimestamp') !== undefined) {
        await this.#api.request('DELETE', `${path}?gracePeriodSeconds=0`);
        continue;
      }
      if (this.#held.has(namespace) || valueAt(pod, 'status', 'phase') === 'Succeeded' || isReadyPod(pod) || isCrashing(pod)) continue;
      await this.#api.patchStatus(path, this.#podStatus(pod, namespace, now));
    }
    for (const step of this.#steps) await step(this.#api, now);
  }
}

/** mariadb-operator's objects that act in SQL, which it cannot reach here: no MariaDB pod runs. */
const SQL_LEVEL_KINDS = ['databases', 'users', 'grants'] as const;

/**
 * What mariadb-operator writes once its SQL succeeds (Ready=True, reason Created), for every Database, User and
 * Grant that is not Ready: with no pod running it cannot connect, and would report them not ready forever.
 */
export const sqlObjectsCreated = async (api: KubeApi, now: string): Promise<void> => {
  for (const plural of SQL_LEVEL_KINDS) {
    const answer = await api.request('GET', `/apis/k8s.mariadb.com/v1alpha1/${plural}`);
    const items = valueAt(answer.body, 'items');
    for (const object of Array.isArray(items) ? items : []) {
      const conditions = valueAt(object, 'status', 'conditions');
      if (Array.isArray(conditions) && conditions.some((c) => valueAt(c, 'type') === 'Ready' && valueAt(c, 'status') === 'True')) continue;
      const path = `/apis/k8s.mariadb.com/v1alpha1/namespaces/${String(valueAt(object, 'metadata', 'namespace'))}/${plural}/${String(valueAt(object, 'metadata', 'name'))}`;
      await api.patchStatus(path, { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created', lastTransitionTime: now }] });
    }
  }
};
