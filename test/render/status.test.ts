/** Readiness rules of observed children, as tables (upstream pkg/ironic/utils.go, plus our fixes). */
import t from 'tap';
import {
  daemonSetReadiness,
  deploymentReadiness,
  jobReadiness,
  progressing,
  readinessAfterApply,
  ready,
  readyCondition,
  serviceReadiness,
  statefulSetReadiness,
} from '../../src/render/status.js';
import type { KubeObject, ObjectMap } from '../../src/api/shared/hook.js';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { SPEC_HASH_ANNOTATION, stampOf, stamped, toChild } from '../../src/render/child.js';

const obj = (kind: string, extra: Record<string, unknown>, generation = 2, version = '38.0'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'ironic-service', generation, labels: { 'ironic.metal3.io/version': version } },
  ...extra,
});

const available = { type: 'Available', status: 'True' };
const rolledOut = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' };

const deployments = [
  { scenario: 'absent', object: undefined, state: 'progressing' },
  {
    scenario: 'generation not observed',
    object: obj('Deployment', { spec: { replicas: 1 }, status: { observedGeneration: 1, updatedReplicas: 1, conditions: [available, rolledOut] } }),
    state: 'progressing',
  },
  {
    scenario: 'an older version',
    object: obj('Deployment', { spec: { replicas: 1 }, status: { observedGeneration: 2, updatedReplicas: 1, conditions: [available, rolledOut] } }, 2, '37.0'),
    state: 'progressing',
  },
  {
    scenario: 'deadline exceeded',
    object: obj('Deployment', {
      spec: { replicas: 1 },
      status: { observedGeneration: 2, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' }] },
    }),
    state: 'failed',
    message: /stopped progressing: too slow/,
  },
  {
    scenario: 'replica failure',
    object: obj('Deployment', {
      spec: { replicas: 1 },
      status: { observedGeneration: 2, conditions: [{ type: 'ReplicaFailure', status: 'True', message: 'forbidden by PodSecurity' }] },
    }),
    state: 'failed',
    message: /PodSecurity/,
  },
  {
    scenario: 'not available',
    object: obj('Deployment', { spec: { replicas: 1 }, status: { observedGeneration: 2, conditions: [rolledOut] } }),
    state: 'progressing',
  },
  {
    scenario: 'still rolling out',
    object: obj('Deployment', {
      spec: { replicas: 1 },
      status: { observedGeneration: 2, updatedReplicas: 0, conditions: [available, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] },
    }),
    state: 'progressing',
  },
  {
    scenario: 'ready',
    object: obj('Deployment', { spec: { replicas: 1 }, status: { observedGeneration: 2, updatedReplicas: 1, conditions: [available, rolledOut] } }),
    state: 'ready',
  },
] as const;

t.test('Deployment readiness', async (t) => {
  for (const c of deployments) {
    const r = deploymentReadiness(c.object, '38.0');
    t.equal(r.state, c.state, c.scenario);
    if ('message' in c) t.match(r.message, c.message);
  }
});

const daemonSets = [
  { scenario: 'absent', object: undefined, state: 'progressing' },
  {
    scenario: 'matches no node',
    object: obj('DaemonSet', { status: { observedGeneration: 2, desiredNumberScheduled: 0, numberUnavailable: 0, updatedNumberScheduled: 0 } }),
    state: 'failed',
    message: /node selector matches no schedulable node/,
  },
  {
    scenario: 'pods need updating',
    object: obj('DaemonSet', { status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 1 } }),
    state: 'progressing',
    message: /2 of 3 pods need updating/,
  },
  {
    scenario: 'unavailable pods',
    object: obj('DaemonSet', { status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberUnavailable: 1 } }),
    state: 'progressing',
    message: /1 of 3 pods are unavailable/,
  },
  {
    scenario: 'generation lag',
    object: obj('DaemonSet', { status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3 } }),
    state: 'progressing',
  },
  {
    scenario: 'ready',
    object: obj('DaemonSet', { status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberUnavailable: 0 } }),
    state: 'ready',
    message: /3 nodes/,
  },
] as const;

t.test('DaemonSet readiness (a DaemonSet on no node is not ready)', async (t) => {
  for (const c of daemonSets) {
    const r = daemonSetReadiness(c.object, '38.0');
    t.equal(r.state, c.state, c.scenario);
    if ('message' in c) t.match(r.message, c.message);
  }
});

t.test('StatefulSet, Service and Job readiness', async (t) => {
  t.equal(statefulSetReadiness(undefined).state, 'progressing');
  t.equal(statefulSetReadiness(obj('StatefulSet', { spec: { replicas: 1 }, status: { observedGeneration: 2, readyReplicas: 0 } })).state, 'progressing');
  t.equal(
    statefulSetReadiness(
      obj('StatefulSet', { spec: { replicas: 1 }, status: { observedGeneration: 2, readyReplicas: 1, currentRevision: 'a', updateRevision: 'b' } }),
    ).state,
    'progressing',
  );
  t.equal(
    statefulSetReadiness(
      obj('StatefulSet', { spec: { replicas: 1 }, status: { observedGeneration: 2, readyReplicas: 1, currentRevision: 'a', updateRevision: 'a' } }),
    ).state,
    'ready',
  );
  t.equal(serviceReadiness(obj('Service', { spec: {} })).state, 'progressing');
  t.equal(serviceReadiness(obj('Service', { spec: { clusterIP: '10.0.0.1' } })).state, 'ready');
  t.equal(jobReadiness(undefined, 'pre-upgrade').state, 'progressing');
  t.equal(jobReadiness(obj('Job', { status: { active: 1 } }), 'pre-upgrade').state, 'progressing');
  t.equal(jobReadiness(obj('Job', { status: { conditions: [{ type: 'Complete', status: 'True' }] } }), 'pre-upgrade').state, 'ready');
  t.equal(
    jobReadiness(obj('Job', { status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] } }), 'pre-upgrade').state,
    'failed',
  );
});

t.test('the Ready condition keeps its transition time while its status holds', async (t) => {
  const base = { reason: 'R', message: 'm', generation: 3, now: '2026-05-05T00:00:00Z' };
  const previous = { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  t.equal(readyCondition({ ...base, status: 'True', previousStatus: previous }).lastTransitionTime, '2026-01-01T00:00:00Z');
  t.equal(readyCondition({ ...base, status: 'False', previousStatus: previous }).lastTransitionTime, '2026-05-05T00:00:00Z');
  t.equal(readyCondition({ ...base, status: 'True', previousStatus: undefined }).lastTransitionTime, '2026-05-05T00:00:00Z');
  t.equal(readyCondition({ ...base, status: 'True', previousStatus: { conditions: 'x' } }).observedGeneration, 3);
});

t.test('readinessAfterApply: a workload this sync changes is not ready yet, whatever its status says', async (t) => {
  const spec = { replicas: 1, template: { spec: { containers: [{ name: 'ironic', image: 'ironic:38' }] } } };
  const deployment: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'ironic-service', namespace: 'ns' },
    spec: { ...spec, selector: {} },
  };
  const child = toChild(stamped(deployment));
  const stampNow = stampOf(child) ?? '';
  t.match(stampNow, /^[0-9a-f]{16}$/, 'the render stamps its workload');
  const observedWith = (stamp: string | undefined): ObjectMap => ({
    'Deployment.apps/v1': {
      'ns/ironic-service': {
        ...child,
        metadata: { name: 'ironic-service', namespace: 'ns', ...(stamp !== undefined && { annotations: { [SPEC_HASH_ANNOTATION]: stamp } }) },
        // Server defaults and Go's key order change nothing: only the stamps are compared.
        spec: { revisionHistoryLimit: 10, ...spec, replicas: 1 },
      },
    },
  });
  const rows = [
    { scenario: 'the stamp of this render', observed: observedWith(stampNow), state: 'ready' },
    { scenario: 'the stamp of another render', observed: observedWith('0123456789abcdef'), state: 'progressing' },
    { scenario: 'no stamp (adopted, or made before workloads were stamped)', observed: observedWith(undefined), state: 'ready' },
    { scenario: 'not observed yet', observed: {}, state: 'ready' },
  ];
  for (const row of rows) t.equal(readinessAfterApply(ready('available'), [child], row.observed).state, row.state, row.scenario);
  const changedSpec = toChild(stamped({ ...deployment, spec: { ...spec, selector: {}, replicas: 2 } }));
  t.not(stampOf(changedSpec), stampNow, 'another spec, another stamp');
  t.equal(readinessAfterApply(ready('available'), [changedSpec], rows[0]?.observed).state, 'progressing', 'so a changed spec is found');
  const changed = readinessAfterApply(ready('available'), [child], rows[1]?.observed);
  t.equal(changed.message, 'Deployment ironic-service is being updated with the change');
  t.same(readinessAfterApply(progressing('rolling'), [child], rows[1]?.observed), progressing('rolling'), 'a readiness that is not ready stands');
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: 'b' } };
  t.equal(readinessAfterApply(ready('ok'), [configMap], {}).state, 'ready', 'only workloads are compared');
});
