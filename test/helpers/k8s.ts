/**
 * Validation of rendered children against the upstream Kubernetes schemas (kubernetes-models), and a
 * small model of how Metacontroller turns desired children into observed ones.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Service } from 'kubernetes-models/v1/Service';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkAgainstCrd, schemaOf } from './crd-check.js';
import { defaultAndPrune } from '../support/crd-schema.js';
import { Type } from '@sinclair/typebox';
import { checked } from './json.js';
import { isObj, objAt, objAtOrEmpty, valueAt, type Obj } from '../support/paths.js';

const cache = new Map<string, Record<string, unknown>>();
const readYamlFile = (file: string): Record<string, unknown> => {
  const cached = cache.get(file);
  if (cached !== undefined) return cached;
  const value = objAt(parse(readFileSync(file, 'utf8')));
  cache.set(file, value);
  return value;
};

/** Fields of `value` its structural schema does not know (the API server would prune them). */
const unknownFields = (schema: Obj, value: unknown, path: string): string[] => {
  const items = schema['items'];
  if (Array.isArray(value)) return isObj(items) ? value.flatMap((v, i) => unknownFields(items, v, `${path}[${i}]`)) : [];
  if (!isObj(value) || schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  const properties = isObj(schema['properties']) ? schema['properties'] : undefined;
  const additional = isObj(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  return Object.entries(value).flatMap(([key, item]) => {
    const child = properties !== undefined && isObj(properties[key]) ? properties[key] : additional;
    return child === undefined ? [`${path}.${key}`] : unknownFields(child, item, `${path}.${key}`);
  });
};

/** The published CRD of a mariadb-operator kind (test/fixtures/mariadb-operator, v26.6.0). */
const mariadbCrd = (plural: string): Obj => readYamlFile(`test/fixtures/mariadb-operator/k8s.mariadb.com_${plural}.yaml`);

/** Whether the CRD's (first) version has the status subresource. */
const hasStatusSubresource = (crd: Obj): boolean => {
  const versions = (crd['spec'] as Obj | undefined)?.['versions'];
  const first: unknown = Array.isArray(versions) ? versions[0] : undefined;
  return isObj(first) && isObj(first['subresources']) && isObj(first['subresources']['status']);
};

/**
 * A mariadb-operator object checked as the API server would: its CRD's schema with defaults applied, CEL
 * rules included, and no field the schema would prune. With the status subresource (every kind), a
 * write of the main resource ignores `.status` (the server keeps the stored one), so it is not checked: an
 * update Metacontroller merges onto an observed object carries the status mariadb-operator wrote.
 */
const foreignModel = (plural: string) => (data: Obj) => ({
  validate: () => {
    const crd = mariadbCrd(plural);
    const schema = schemaOf(crd);
    const { metadata, status, ...withoutStatus } = data;
    const rest = hasStatusSubresource(crd) || status === undefined ? withoutStatus : { ...withoutStatus, status };
    const pruned = unknownFields(schema, rest, '');
    const problems = [
      ...pruned.map((p) => `${p}: unknown field (pruned by the API server)`),
      ...checkAgainstCrd(crd, { ...objAt(defaultAndPrune(schema, rest)), metadata }),
    ];
    if (problems.length > 0) throw new Error(`${String(data['kind'])} ${String(valueAt(metadata, 'name'))}: ${problems.join('; ')}`);
  },
});

const models: Record<string, (data: Obj) => { validate: () => void }> = {
  'apps/v1/Deployment': (d) => new Deployment(d),
  'apps/v1/DaemonSet': (d) => new DaemonSet(d),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d),
  'batch/v1/Job': (d) => new Job(d),
  // Its constructor's type asks for a spec; the data then replaces the placeholder (a missing spec stays missing and is refused).
  'batch/v1/CronJob': (d) => Object.assign(new CronJob({ spec: { schedule: '', jobTemplate: {} } }), { spec: undefined, ...d }),
  'v1/Service': (d) => new Service(d),
  'v1/Secret': (d) => new Secret(d),
  'v1/ConfigMap': (d) => new ConfigMap(d),
  'v1/PersistentVolumeClaim': (d) => new PersistentVolumeClaim(d),
  'v1/ServiceAccount': (d) => new ServiceAccount(d),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d),
  // Its spec is required: the model's own guard (true for every object under this key) gives the type.
  'monitoring.coreos.com/v1/ServiceMonitor': (d) => {
    if (!ServiceMonitor.is(d)) throw new Error('not a monitoring.coreos.com/v1 ServiceMonitor');
    return new ServiceMonitor(d);
  },
  'k8s.mariadb.com/v1alpha1/MariaDB': foreignModel('mariadbs'),
  'k8s.mariadb.com/v1alpha1/Database': foreignModel('databases'),
  'k8s.mariadb.com/v1alpha1/User': foreignModel('users'),
  'k8s.mariadb.com/v1alpha1/Grant': foreignModel('grants'),
  'k8s.mariadb.com/v1alpha1/Backup': foreignModel('backups'),
  'k8s.mariadb.com/v1alpha1/Restore': foreignModel('restores'),
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
  const metadata = objAtOrEmpty(desired, 'metadata');
  const previousMeta = objAtOrEmpty(previous, 'metadata');
  const lastApplied = JSON.stringify(desired);
  const changed = objAtOrEmpty(previousMeta, 'annotations')[LAST_APPLIED] !== lastApplied;
  const generation = typeof previousMeta['generation'] === 'number' ? previousMeta['generation'] + (changed ? 1 : 0) : 1;
  return {
    ...structuredClone(desired),
    metadata: {
      ...structuredClone(metadata),
      uid: previousMeta['uid'] ?? `uid-${String(metadata['name'])}`,
      generation,
      resourceVersion: String(generation),
      annotations: { ...objAtOrEmpty(metadata, 'annotations'), [LAST_APPLIED]: lastApplied },
    },
    ...(desired['kind'] === 'Service' && { spec: { ...structuredClone(objAtOrEmpty(desired, 'spec')), clusterIP: '10.96.0.10' } }),
    ...(previous?.['status'] !== undefined && { status: previous['status'] }),
  };
};

/** Observed children in v2 keys (`Kind.group/version` → `namespace/name` → object), checked. */
export const observedMap = (value: unknown): Record<string, Record<string, Obj>> =>
  checked(Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))), value, 'observed children');

/** Observed children (v2 keys) after applying every desired child. */
export const observeAll = (
  desired: readonly Obj[],
  previous: Record<string, Record<string, Obj>> = {},
  statusOf: (object: Obj) => Obj | undefined = () => undefined,
): Record<string, Record<string, Obj>> => {
  const out: Record<string, Record<string, Obj>> = {};
  for (const child of desired) {
    const meta = objAt(child, 'metadata');
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
  observedGeneration: objAt(object, 'metadata')['generation'] ?? 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [
    { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
    { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
  ],
});
