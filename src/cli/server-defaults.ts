/**
 * What the API server does to a built-in object before it stores it, for the kinds our hooks create:
 * quantities canonicalised (`cpu: 1` → `"1"`, `1024Mi` → `"1Gi"`, `0.5` → `"500m"`), defaulted fields of
 * workloads, pod templates, PVC templates and Services (a Service port's targetPort defaults to its
 * port, an int-or-string), and the immutable fields an update must not change (422 Invalid).
 * Metacontroller compares the desired object with this stored form (reflect.DeepEqual), so a desired
 * value in another form is sent again on every sync.
 */
import { canonicalQuantity } from '../api/shared/quantity.js';
import { deepEqual, isRecord, type Json, type KubeResource } from './objects.js';

type Defaults = Readonly<Record<string, unknown>>;

/** Fields absent in `value` take the default (maps are defaulted inside, recursively). */
const withDefaults = (value: Json, defaults: Defaults): Json => {
  const out: Json = { ...value };
  for (const [key, fallback] of Object.entries(defaults)) {
    const current = out[key];
    if (current === undefined) out[key] = structuredClone(fallback);
    else if (isRecord(current) && isRecord(fallback)) out[key] = withDefaults(current, fallback);
  }
  return out;
};

const mapOf = (value: unknown): Json => (isRecord(value) ? value : {});

const canonicalMap = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, q]) => [key, typeof q === 'string' || typeof q === 'number' ? (canonicalQuantity(String(q)) ?? q) : q]),
  );
};

const canonicalResources = (resources: unknown): unknown => {
  if (!isRecord(resources)) return resources;
  return {
    ...resources,
    ...(resources['limits'] !== undefined && { limits: canonicalMap(resources['limits']) }),
    ...(resources['requests'] !== undefined && { requests: canonicalMap(resources['requests']) }),
  };
};

const PROBE_DEFAULTS: Defaults = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };

const probe = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const defaulted = withDefaults(value, PROBE_DEFAULTS);
  return isRecord(defaulted['httpGet']) ? { ...defaulted, httpGet: withDefaults(defaulted['httpGet'], { path: '/', scheme: 'HTTP' }) } : defaulted;
};

const imagePullPolicyOf = (image: unknown): string =>
  typeof image === 'string' && (image.endsWith(':latest') || !/:[^/]+$/.test(image.replace(/@.*$/, ''))) && !image.includes('@') ? 'Always' : 'IfNotPresent';

const container = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const defaulted = withDefaults(value, {
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: imagePullPolicyOf(value['image']),
  });
  const ports = Array.isArray(defaulted['ports'])
    ? defaulted['ports'].map((p: unknown) => (isRecord(p) ? withDefaults(p, { protocol: 'TCP' }) : p))
    : undefined;
  return {
    ...defaulted,
    ...(defaulted['resources'] !== undefined && { resources: canonicalResources(defaulted['resources']) }),
    ...(ports !== undefined && { ports }),
    ...Object.fromEntries(['livenessProbe', 'readinessProbe', 'startupProbe'].filter((k) => defaulted[k] !== undefined).map((k) => [k, probe(defaulted[k])])),
  };
};

const volume = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const out: Json = { ...value };
  for (const source of ['secret', 'configMap'] as const) if (isRecord(out[source])) out[source] = withDefaults(out[source], { defaultMode: 420 });
  const size = isRecord(out['emptyDir']) ? out['emptyDir']['sizeLimit'] : undefined;
  if (typeof size === 'string' || typeof size === 'number') out['emptyDir'] = { ...mapOf(out['emptyDir']), sizeLimit: canonicalQuantity(String(size)) ?? size };
  return out;
};

const listOf = (value: unknown, each: (item: unknown) => unknown): unknown => (Array.isArray(value) ? value.map(each) : value);

const POD_SPEC_DEFAULTS: Defaults = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

const podSpec = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const defaulted = withDefaults(value, POD_SPEC_DEFAULTS);
  return {
    ...defaulted,
    containers: listOf(defaulted['containers'], container),
    ...(defaulted['initContainers'] !== undefined && { initContainers: listOf(defaulted['initContainers'], container) }),
    ...(defaulted['volumes'] !== undefined && { volumes: listOf(defaulted['volumes'], volume) }),
  };
};

const template = (value: unknown): unknown => (isRecord(value) ? { ...value, spec: podSpec(value['spec']) } : value);

const pvcSpec = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const defaulted = withDefaults(value, { volumeMode: 'Filesystem' });
  return { ...defaulted, ...(defaulted['resources'] !== undefined && { resources: canonicalResources(defaulted['resources']) }) };
};

const claimTemplate = (value: unknown): unknown =>
  isRecord(value) ? { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...value, spec: pvcSpec(value['spec']) } : value;

const servicePort = (value: unknown): unknown => (isRecord(value) ? withDefaults(value, { protocol: 'TCP', targetPort: value['port'] }) : value);

const WORKLOAD_SPECS: Readonly<Record<string, (spec: Json) => Json>> = {
  Deployment: (spec) => ({
    ...withDefaults(spec, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 }),
    ...(spec['strategy'] === undefined && { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } }),
    template: template(spec['template']),
  }),
  StatefulSet: (spec) => ({
    ...withDefaults(spec, {
      replicas: 1,
      revisionHistoryLimit: 10,
      podManagementPolicy: 'OrderedReady',
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    }),
    ...(spec['updateStrategy'] === undefined && { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } }),
    template: template(spec['template']),
    ...(spec['volumeClaimTemplates'] !== undefined && { volumeClaimTemplates: listOf(spec['volumeClaimTemplates'], claimTemplate) }),
  }),
  DaemonSet: (spec) => ({
    ...withDefaults(spec, { revisionHistoryLimit: 10 }),
    ...(spec['updateStrategy'] === undefined && { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } }),
    template: template(spec['template']),
  }),
  Job: (spec) => ({
    ...withDefaults(spec, { backoffLimit: 6, completions: 1, parallelism: 1, completionMode: 'NonIndexed', suspend: false }),
    template: template(spec['template']),
  }),
  PersistentVolumeClaim: (spec) => pvcSpec(spec) as Json,
  Service: (spec) => {
    if (spec['type'] === 'ExternalName') return spec;
    const defaulted = withDefaults(spec, {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
    return { ...defaulted, ...(defaulted['ports'] !== undefined && { ports: listOf(defaulted['ports'], servicePort) }) };
  },
};

/** The object as the API server stores it (a kind it has no defaults for is returned as it is). */
export const serverDefaulted = (object: KubeResource): KubeResource => {
  const defaults = WORKLOAD_SPECS[object.kind];
  return defaults === undefined || !isRecord(object['spec']) ? object : { ...object, spec: defaults(mapOf(object['spec'])) };
};

const at = (value: unknown, path: readonly string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

/** JSON, or `null` for nothing. */
const jsonText = (value: unknown): string => (value === undefined ? 'null' : JSON.stringify(value));

/** Fields an update cannot change, per kind (path from the object root). */
const IMMUTABLE: Readonly<Record<string, readonly (readonly string[])[]>> = {
  Deployment: [['spec', 'selector']],
  DaemonSet: [['spec', 'selector']],
  StatefulSet: [
    ['spec', 'selector'],
    ['spec', 'serviceName'],
    ['spec', 'volumeClaimTemplates'],
    ['spec', 'podManagementPolicy'],
  ],
  Job: [
    ['spec', 'template'],
    ['spec', 'selector'],
    ['spec', 'completions'],
  ],
  Service: [['spec', 'clusterIP']],
  PersistentVolumeClaim: [
    ['spec', 'storageClassName'],
    ['spec', 'volumeMode'],
    ['spec', 'accessModes'],
  ],
};

/**
 * Why the API server refuses an update (422 Invalid), as it says it: `spec.selector: Invalid value: ...:
 * field is immutable`; empty when the update is allowed. A Secret or ConfigMap with `immutable: true`
 * keeps its data.
 */
export const immutableFieldProblems = (stored: KubeResource, updated: KubeResource): string[] => {
  if ((stored.kind === 'Secret' || stored.kind === 'ConfigMap') && stored['immutable'] === true) {
    const changed = ['data', 'stringData', 'binaryData', 'immutable'].filter((f) => !deepEqual(stored[f], updated[f]));
    return changed.length === 0 ? [] : [`${changed.join(', ')}: Forbidden: field is immutable when \`immutable\` is set`];
  }
  return (IMMUTABLE[stored.kind] ?? [])
    .filter((path) => at(stored, path) !== undefined && !deepEqual(at(stored, path), at(updated, path)))
    .map((path) => `${path.join('.')}: Invalid value: ${jsonText(at(updated, path))}: field is immutable`);
};

const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
};

const itemsAt = (value: unknown, key: string): unknown[] => (isRecord(value) && Array.isArray(value[key]) ? value[key] : []);

/** `path[i].field: Duplicate value: "x"` for every item whose field repeats an earlier one (seen is shared). */
const duplicates = (items: readonly unknown[], path: string, field: string, seen = new Set<string>(), invalid = false): string[] =>
  items.flatMap((item, i) => {
    const value = isRecord(item) ? item[field] : undefined;
    if (typeof value !== 'string' || value === '') return [];
    if (!seen.has(value)) {
      seen.add(value);
      return [];
    }
    return [
      invalid
        ? `${path}[${i}].${field}: Invalid value: ${JSON.stringify(value)}: must be unique`
        : `${path}[${i}].${field}: Duplicate value: ${JSON.stringify(value)}`,
    ];
  });

/**
 * Keys the API server's validation wants unique (422 Invalid), as it says it: container names (across
 * init containers and containers, ValidatePodSpec's validateContainers), volume names, port names and
 * mount paths of a container, and Service port names. Duplicate env names are allowed (a warning only,
 * "hides previous definition"), so they are stored as given.
 */
export const duplicateKeyProblems = (object: KubeResource): string[] => {
  const path = POD_SPEC_PATHS[object.kind];
  if (path === undefined) return object.kind === 'Service' ? duplicates(itemsAt(object['spec'], 'ports'), 'spec.ports', 'name') : [];
  const spec = at(object, path);
  const prefix = path.join('.');
  const names = new Set<string>();
  const containerProblems = (['initContainers', 'containers'] as const).flatMap((list) => {
    const containers = itemsAt(spec, list);
    return [
      ...duplicates(containers, `${prefix}.${list}`, 'name', names),
      ...containers.flatMap((c, i) => [
        ...duplicates(itemsAt(c, 'ports'), `${prefix}.${list}[${i}].ports`, 'name'),
        ...duplicates(itemsAt(c, 'volumeMounts'), `${prefix}.${list}[${i}].volumeMounts`, 'mountPath', new Set(), true),
      ]),
    ];
  });
  return [...containerProblems, ...duplicates(itemsAt(spec, 'volumes'), `${prefix}.volumes`, 'name')];
};
