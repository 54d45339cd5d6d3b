/**
 * Validation of rendered children against the upstream Kubernetes schemas (kubernetes-models), and a
 * small model of how Metacontroller turns desired children into observed ones.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Service } from 'kubernetes-models/v1/Service';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

type Obj = Record<string, unknown>;

const models: Record<string, (data: Obj) => { validate: () => void }> = {
  'apps/v1/Deployment': (d) => new Deployment(d as never),
  'apps/v1/DaemonSet': (d) => new DaemonSet(d as never),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d as never),
  'batch/v1/Job': (d) => new Job(d as never),
  'v1/Service': (d) => new Service(d as never),
  'v1/Secret': (d) => new Secret(d as never),
  'v1/ConfigMap': (d) => new ConfigMap(d as never),
  'v1/PersistentVolumeClaim': (d) => new PersistentVolumeClaim(d as never),
  'v1/ServiceAccount': (d) => new ServiceAccount(d as never),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d as never),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as never),
  'monitoring.coreos.com/v1/ServiceMonitor': (d) => new ServiceMonitor(d as never),
};

/** Throws when `object` is not a valid instance of its kind (or of a kind we do not know). */
export const validateK8s = (object: Obj): void => {
  const key = `${String(object['apiVersion'])}/${String(object['kind'])}`;
  const model = models[key];
  if (model === undefined) throw new Error(`no Kubernetes schema known for ${key}`);
  model(object).validate();
};

/** The outer key Metacontroller uses for a kind: `Kind.version` (core) or `Kind.group/version`. */
export const groupKey = (object: Obj): string => `${String(object['kind'])}.${String(object['apiVersion'])}`;

export const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

/**
 * What Metacontroller would observe after applying `desired`: the object, with server metadata, the
 * last-applied annotation, and the status the test gives (or the one it had).
 */
export const observe = (desired: Obj, previous: Obj | undefined): Obj => {
  const metadata = (desired['metadata'] ?? {}) as Obj;
  const previousMeta = (previous?.['metadata'] ?? {}) as Obj;
  const lastApplied = JSON.stringify(desired);
  const changed = ((previousMeta['annotations'] ?? {}) as Obj)[LAST_APPLIED] !== lastApplied;
  const generation = typeof previousMeta['generation'] === 'number' ? (previousMeta['generation'] as number) + (changed ? 1 : 0) : 1;
  return {
    ...structuredClone(desired),
    metadata: {
      ...structuredClone(metadata),
      uid: previousMeta['uid'] ?? `uid-${String(metadata['name'])}`,
      generation,
      resourceVersion: String(generation),
      annotations: { ...((metadata['annotations'] ?? {}) as Obj), [LAST_APPLIED]: lastApplied },
    },
    ...(desired['kind'] === 'Service' && { spec: { ...structuredClone(desired['spec'] as Obj), clusterIP: '10.96.0.10' } }),
    ...(previous?.['status'] !== undefined && { status: previous['status'] }),
  };
};

/** Observed children (v2 keys) after applying every desired child. */
export const observeAll = (
  desired: readonly Obj[],
  previous: Record<string, Record<string, Obj>> = {},
  statusOf: (object: Obj) => Obj | undefined = () => undefined,
): Record<string, Record<string, Obj>> => {
  const out: Record<string, Record<string, Obj>> = {};
  for (const child of desired) {
    const meta = child['metadata'] as Obj;
    const key = `${String(meta['namespace'])}/${String(meta['name'])}`;
    const group = groupKey(child);
    const before = previous[group]?.[key];
    const observed = observe(child, before);
    const status = statusOf(observed);
    (out[group] ??= {})[key] = status === undefined ? observed : { ...observed, status };
  }
  return out;
};

/** Status of a Deployment that rolled out and is available. */
export const availableDeployment = (object: Obj): Obj => ({
  observedGeneration: (object['metadata'] as Obj)['generation'] ?? 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [
    { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
    { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
  ],
});
