/**
 * The examples name a namespace that examples/namespace/ creates with the Pod Security level the Ironic
 * pods need: `privileged`, since the pods the hooks render break the `baseline` level (host network, host
 * ports, NET_ADMIN for dnsmasq and keepalived).
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { hookResponse, testServer } from '../helpers/hooks.js';
import { readYamlDocuments, type Obj } from './kustomize.js';
import { Type, type Static } from '@sinclair/typebox';
import { isChild } from '../helpers/children.js';
import { checked } from '../helpers/json.js';
import { present } from '../support/paths.js';

const ENFORCE = 'pod-security.kubernetes.io/enforce';
const NAMESPACES = 'examples/namespace';
const examples = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const namespaces = readdirSync(NAMESPACES)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => readYamlDocuments(join(NAMESPACES, f)));
const Metadata = Type.Object({
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const metadataOf = (object: Obj): Static<typeof Metadata> => checked(Metadata, object['metadata'] ?? {}, 'metadata');

/** Capabilities the `baseline` Pod Security level allows to add (Kubernetes Pod Security Standards). */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** What in a pod the `baseline` level refuses (the checks that concern the pods rendered here). */
const baselineViolations = (pod: IPodSpec): string[] => {
  const containers = [...(pod.initContainers ?? []), ...pod.containers];
  return [
    ...(pod.hostNetwork === true ? ['hostNetwork'] : []),
    ...(pod.hostPID === true ? ['hostPID'] : []),
    ...(pod.hostIPC === true ? ['hostIPC'] : []),
    ...(pod.volumes ?? []).filter((v) => v.hostPath !== undefined).map((v) => `hostPath volume ${v.name}`),
    ...containers.flatMap((c) => [
      ...(c.securityContext?.privileged === true ? [`${c.name}: privileged`] : []),
      ...(c.ports ?? []).filter((p) => (p.hostPort ?? 0) !== 0).map((p) => `${c.name}: hostPort ${p.hostPort ?? 0}`),
      ...(c.securityContext?.capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap)).map((cap) => `${c.name}: capability ${cap}`),
    ]),
  ];
};

t.test('examples/namespace/ holds valid Namespaces at the privileged level', async (t) => {
  t.ok(namespaces.length > 0);
  for (const namespace of namespaces) {
    t.equal(namespace['kind'], 'Namespace');
    t.doesNotThrow(() => new Namespace(namespace).validate(), String(metadataOf(namespace).name));
    t.equal(metadataOf(namespace).labels?.[ENFORCE], 'privileged', `${String(metadataOf(namespace).name)} enforces privileged`);
  }
});

t.test('every object of every example is in a namespace that examples/namespace/ creates, and says so', async (t) => {
  const created = new Set(namespaces.map((n) => metadataOf(n).name));
  for (const file of examples) {
    for (const object of readYamlDocuments(join('examples', file))) {
      const { name, namespace } = metadataOf(object);
      t.ok(namespace !== undefined && created.has(namespace), `${file}: ${String(object['kind'])} ${String(name)} in ${String(namespace)}`);
    }
    t.match(
      readFileSync(join('examples', file), 'utf8'),
      /^#[^\n]*\n(#[^\n]*\n)*# .*privileged.*\n# .*kubectl apply -f examples\/namespace\//,
      `${file} tells to create the namespace first`,
    );
  }
});

t.test('the Ironic pods of the examples need the privileged level', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  for (const file of ['minimal.yaml', 'dhcp.yaml']) {
    const parent = readYamlDocuments(join('examples', file)).find((o) => o['kind'] === 'Ironic');
    const response = await app.inject({
      method: 'POST',
      url: '/ironic/sync',
      payload: { parent: { ...parent, metadata: { ...metadataOf(parent ?? {}), uid: 'u-1', generation: 1 } }, children: {}, related: {} },
    });
    const { children } = hookResponse(response);
    const workloads = children.filter((c) => isChild('Deployment')(c) || isChild('DaemonSet')(c));
    t.ok(workloads.length > 0, `${file} renders its workload`);
    for (const workload of workloads) {
      const pod = present(workload.spec?.template.spec, 'the pod spec');
      const violations = baselineViolations(pod);
      t.ok(violations.includes('hostNetwork'), `${file}: host network (${violations.join(', ')})`);
      if (file === 'dhcp.yaml')
        t.ok(
          violations.some((v) => v.endsWith('capability NET_ADMIN')),
          `${file}: NET_ADMIN for dnsmasq and keepalived`,
        );
    }
  }
});
