/**
 * Realistic sync requests: what Metacontroller sends for a parent of each kind (src/kinds), first
 * without children (the warm-up), then, once the response has been applied, with every child observed.
 */
import { PARENT_KINDS, type MetricLabel, type ParentKind } from '../kinds/index.js';
import { applied, availableDeployment, certificate, fieldsV1, readyStatefulSet, rsaKey, userObject, type Obj } from './objects.js';

const NAMESPACE = 'baremetal-operator-system';
const NAME = 'ironic';
const HOOKS = ['customize', 'sync', 'finalize'] as const;

/** The CompositeController of a kind as the base manifests declare it, which Metacontroller sends whole with every call. */
const controller = (kind: ParentKind): Obj => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'CompositeController',
  metadata: {
    name: kind.controllerName,
    uid: '11111111-2222-4333-8444-555555555555',
    resourceVersion: '4242',
    generation: 1,
    labels: { 'app.kubernetes.io/part-of': 'ironic-metacontroller' },
  },
  spec: {
    parentResource: { apiVersion: kind.apiVersion, resource: kind.plural },
    generateSelector: true,
    resyncPeriodSeconds: 300,
    childResources: kind.childTypes
      .filter((child) => child.overlay === undefined)
      .map(({ type, strategy }) => ({ apiVersion: type.apiVersion, resource: type.resource, updateStrategy: { method: strategy } })),
    hooks: Object.fromEntries(
      HOOKS.map((hook) => [hook, { version: 'v2', webhook: { url: `http://ironic-hooks.ironic-system.svc:8080/${kind.hookPath}/${hook}`, timeout: '10s' } }]),
    ),
  },
  status: {},
});

/** The parent as the API server returns it: kubectl's annotation and managedFields, Metacontroller's finalizer. */
const parent = (kind: ParentKind, spec: Obj, status: Obj | undefined): Obj => {
  const desired = { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: NAME, namespace: NAMESPACE }, spec };
  return {
    ...desired,
    metadata: {
      name: NAME,
      namespace: NAMESPACE,
      uid: '7f1e4c7e-0000-4000-8000-000000000001',
      resourceVersion: '987654',
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
      finalizers: [`metacontroller.io/compositecontroller-${kind.controllerName}`],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(desired) },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: kind.apiVersion,
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: fieldsV1(desired),
        },
        {
          manager: 'metacontroller',
          operation: 'Update',
          apiVersion: kind.apiVersion,
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: fieldsV1({ metadata: { finalizers: [] } }),
        },
      ],
    },
    ...(status !== undefined && { status }),
  };
};

/** The `related` map in v2 keys. */
const relatedMap = (objects: readonly Obj[]): Obj => {
  const out: Record<string, Obj> = {};
  for (const object of objects) {
    const meta = object['metadata'] as Obj;
    (out[`${String(object['kind'])}.${String(object['apiVersion'])}`] ??= {})[`${String(meta['namespace'])}/${String(meta['name'])}`] = object;
  }
  return out;
};

/** What the workload controllers report once a child of this kind has rolled out. */
const observedStatus = (kind: unknown): Obj | undefined => {
  if (kind === 'Deployment') return availableDeployment();
  if (kind === 'StatefulSet') return readyStatefulSet();
  return kind === 'Service' ? { loadBalancer: {} } : undefined;
};

/** Observed children (v2 keys) once `children` have been applied, the Deployment available. */
export const observedChildren = (children: readonly Obj[]): Obj => {
  const out: Record<string, Obj> = {};
  children.forEach((child, index) => {
    const meta = child['metadata'] as Obj;
    const group = `${String(child['kind'])}.${String(child['apiVersion'])}`;
    const status = observedStatus(child['kind']);
    (out[group] ??= {})[`${typeof meta['namespace'] === 'string' ? meta['namespace'] : NAMESPACE}/${String(meta['name'])}`] = applied(
      child,
      100 + index,
      status,
    );
  });
  return out;
};

export type Scenario = {
  readonly name: string;
  /** The kind of the parent: its hooks are the ones called. */
  readonly kind: ParentKind;
  readonly spec: Obj;
  readonly related: readonly Obj[];
};

/** The sync request of a scenario, without children (first sync) or with the observed ones. */
export const syncRequest = (scenario: Scenario, children: Obj, status: Obj | undefined): Obj => ({
  controller: controller(scenario.kind),
  parent: parent(scenario.kind, scenario.spec, status),
  children,
  related: relatedMap(scenario.related),
});

const networking = { interface: 'eth1', ipAddress: '192.0.2.2', macAddresses: ['52:54:00:aa:bb:01', '52:54:00:aa:bb:02'] };

/** Ironic: minimal; TLS with a serving certificate (~4 KiB of PEM); large: TLS, CAs, DHCP, many options. */
const ironicScenarios = (kind: ParentKind): Scenario[] => {
  const key = rsaKey();
  const caKey = rsaKey();
  const ca = certificate('metal3-ca', caKey, 1);
  const tlsSecret = userObject(
    'Secret',
    'ironic-tls',
    NAMESPACE,
    { 'tls.crt': certificate('ironic.example.com', key, 2, { commonName: 'metal3-ca', key: caKey }), 'tls.key': key, 'ca.crt': ca },
    1,
  );
  const bundle = Array.from({ length: 24 }, (_, i) => certificate(`trusted-root-${i}.example.com`, caKey, 100 + i)).join('');
  const large: Scenario = {
    name: 'large',
    kind,
    spec: {
      version: '38.0',
      networking: {
        ...networking,
        dhcp: {
          networkCIDR: '192.0.2.0/24',
          rangeBegin: '192.0.2.10',
          rangeEnd: '192.0.2.200',
          gatewayAddress: '192.0.2.1',
          serveDNS: true,
          hosts: Array.from({ length: 40 }, (_, i) => `52:54:00:00:01:${i.toString(16).padStart(2, '0')},192.0.2.${50 + i}`),
        },
      },
      tls: {
        certificateName: 'ironic-tls',
        bmcCA: { kind: 'Secret', name: 'bmc-ca' },
        trustedCA: { kind: 'ConfigMap', name: 'trusted-ca', key: 'bundle.pem' },
      },
      extraConfig: Array.from({ length: 40 }, (_, i) => ({
        group: i % 2 === 0 ? 'conductor' : 'deploy',
        name: `option_${i}`,
        value: `value-${i}-${'x'.repeat(32)}`,
      })),
      prometheusExporter: { enabled: true, sensorCollectionInterval: 120 },
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
    },
    related: [
      tlsSecret,
      userObject('Secret', 'bmc-ca', NAMESPACE, { 'ca.crt': ca }, 2),
      userObject('ConfigMap', 'trusted-ca', NAMESPACE, { 'bundle.pem': bundle, 'unused.pem': ca }, 3),
    ],
  };
  return [
    { name: 'minimal', kind, spec: { networking }, related: [] },
    { name: 'tls', kind, spec: { networking, tls: { certificateName: 'ironic-tls' } }, related: [tlsSecret] },
    large,
  ];
};

/** IronicDatabase: persistent storage and resources, as examples/managed-database.yaml. */
const databaseScenarios = (kind: ParentKind): Scenario[] => [
  {
    name: 'database',
    kind,
    spec: { storage: { size: '20Gi' }, resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } } },
    related: [],
  },
];

/** IronicImageCache: two architectures, as examples/image-cache.yaml. */
const imageCacheScenarios = (kind: ParentKind): Scenario[] => [
  {
    name: 'image-cache',
    kind,
    spec: {
      agentBranch: 'stable/2025.1',
      architectures: [{ name: 'x86_64' }, { name: 'aarch64', filename: 'ipa-centos9-stable-2025.1-aarch64.tar.gz' }],
      storage: { size: '5Gi' },
    },
    related: [],
  },
];

/** The scenarios of each kind: a kind without scenarios does not compile. */
const SCENARIOS: Readonly<Record<MetricLabel, (kind: ParentKind) => Scenario[]>> = {
  Ironic: ironicScenarios,
  IronicDatabase: databaseScenarios,
  IronicImageCache: imageCacheScenarios,
};

/** The scenarios of every parent kind, in the order of the kinds. */
export const scenarios = (): Scenario[] => PARENT_KINDS.flatMap((kind) => SCENARIOS[kind.metricLabel](kind));
