/**
 * The day-2 matrix: a change a user makes to a live object, on a converged example, run to stability under
 * the strict emulator. For every row: no sync fails and no write is refused; a parent never says Ready=True
 * for its new generation while its children are not yet the ones it converges to; each workload rolls at
 * most as the row says; no credentials or certificates are minted unless the row asks for them; and once
 * converged, resyncs write nothing. README "Changing a live object" is the same table in words.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import type { Write } from '../../src/cli/cluster.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { renewedCertificate } from '../fixtures/tls.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../support/emulator.js';
import { objAtOrEmpty, present } from '../support/paths.js';

const NS = 'baremetal-operator-system';
const WORKLOAD_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);
const isParent = (o: KubeResource): boolean => PARENT_KINDS.some((k) => k.kind === o.kind);

/** A parent of the example with its spec merged with `patch` (one level deep for objects). */
const withSpec = (objects: readonly KubeResource[], kind: string, patch: Record<string, unknown>): KubeResource => {
  const parent = present(objects.find((o) => o.kind === kind));
  const spec = objAtOrEmpty(parent, 'spec');
  const merged: Record<string, unknown> = { ...spec };
  for (const [key, value] of Object.entries(patch)) {
    const before = spec[key];
    merged[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value) && typeof before === 'object' && before !== null && !Array.isArray(before)
        ? { ...before, ...value }
        : value;
  }
  return { ...parent, spec: merged };
};

const secret = (name: string, type: string, stringData: Record<string, string>): KubeResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  type,
  stringData,
});

type Row = {
  /** What the user does, as the README says it. */
  readonly change: string;
  readonly example: string;
  readonly options?: EmulatorOptions;
  readonly apply: (objects: readonly KubeResource[]) => readonly KubeResource[];
  /** An object deleted instead (`Kind name`): a workload someone removed, recreated as it was. */
  readonly remove?: string;
  /** Workloads (`Kind name`) that roll exactly once; every other workload is not updated. */
  readonly rolls: readonly string[];
  /** Secrets that may be created (credentials or certificates the change asks for). */
  readonly newSecrets?: RegExp;
};

const ROWS: readonly Row[] = [
  {
    change: 'Ironic: extra kernel parameters for the ramdisk',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { deployRamdisk: { extraKernelParams: 'console=ttyS0' } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: an SSH key for the ramdisk',
    example: 'minimal.yaml',
    apply: (o) => [
      withSpec(o, 'Ironic', { deployRamdisk: { sshKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host' } }),
    ],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: another provisioning address',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { networking: { ipAddress: '192.0.2.3' } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: the Prometheus exporter on',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { prometheusExporter: { enabled: true, disableServiceMonitor: true } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: pod labels and annotations',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { overrides: { labels: { team: 'metal' }, annotations: { 'example.com/owner': 'metal' } } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: a node selector',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: resources of the containers',
    example: 'minimal.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { resources: { ironic: { requests: { cpu: '500m', memory: '1Gi' } } } })],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: API credentials of your own instead of the generated ones',
    example: 'minimal.yaml',
    apply: (o) => [
      secret('my-credentials', 'kubernetes.io/basic-auth', { username: 'metal3', password: 'a-long-random-password-of-mine' }),
      withSpec(o, 'Ironic', { apiCredentialsName: 'my-credentials' }),
    ],
    rolls: ['Deployment ironic-service'],
    newSecrets: /^(ironic-htpasswd-[0-9a-f]+|ironic-clouds)$/,
  },
  {
    change: 'Ironic: a new password in your API credentials Secret',
    example: 'tls-credentials.yaml',
    apply: () => [secret('ironic-credentials', 'kubernetes.io/basic-auth', { username: 'metal3', password: 'another-long-random-password' })],
    rolls: ['Deployment ironic-service'],
    newSecrets: /^(ironic-htpasswd-[0-9a-f]+|ironic-clouds)$/,
  },
  {
    change: 'Ironic: a renewed certificate in your TLS Secret',
    example: 'tls-credentials.yaml',
    apply: () => {
      const { crt, key } = renewedCertificate();
      return [secret('ironic-tls', 'kubernetes.io/tls', { 'tls.crt': crt, 'tls.key': key })];
    },
    rolls: ['Deployment ironic-service'],
    // The client hand-off carries the certificate clients trust.
    newSecrets: /^ironic-clouds$/,
  },
  {
    change: 'Ironic: its Deployment deleted by someone',
    example: 'minimal.yaml',
    apply: () => [],
    remove: 'Deployment ironic-service',
    rolls: [],
  },
  {
    change: 'IronicDatabase: its StatefulSet deleted by someone (the claims stay)',
    example: 'managed-database.yaml',
    apply: () => [],
    remove: 'StatefulSet ironic-db-database',
    rolls: [],
  },
  {
    change: 'IronicImageCache: its StatefulSet deleted by someone (the claims stay)',
    example: 'image-cache.yaml',
    apply: () => [],
    remove: 'StatefulSet ipa-ipa-cache',
    rolls: [],
  },
  {
    change: 'Ironic: DHCP range',
    example: 'dhcp.yaml',
    apply: (o) => [
      withSpec(o, 'Ironic', {
        networking: { dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.20', rangeEnd: '192.0.2.200', gatewayAddress: '192.0.2.1', serveDNS: true } },
      }),
    ],
    rolls: ['Deployment ironic-service'],
  },
  {
    change: 'Ironic: iPXE over TLS on',
    example: 'dhcp.yaml',
    apply: (o) => [withSpec(o, 'Ironic', { tls: { generateCertificate: true, ipxe: true } })],
    rolls: ['Deployment ironic-service'],
    newSecrets: /^(ironic-tls-ca-[0-9a-f]+|ironic-clouds)$/,
  },
  {
    change: 'IronicDatabase: resources',
    example: 'managed-database.yaml',
    apply: (o) => [withSpec(o, 'IronicDatabase', { resources: { requests: { cpu: '200m', memory: '512Mi' }, limits: { memory: '2Gi' } } })],
    rolls: ['StatefulSet ironic-db-database'],
  },
  {
    change: 'IronicDatabase: a node selector',
    example: 'managed-database.yaml',
    apply: (o) => [withSpec(o, 'IronicDatabase', { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } })],
    rolls: ['StatefulSet ironic-db-database'],
  },
  {
    change: 'IronicImageCache: another agent branch',
    example: 'image-cache.yaml',
    apply: (o) => [withSpec(o, 'IronicImageCache', { agentBranch: 'stable/2025.2' })],
    rolls: ['StatefulSet ipa-ipa-cache'],
  },
  {
    change: 'IronicImageCache: resources',
    example: 'image-cache.yaml',
    apply: (o) => [withSpec(o, 'IronicImageCache', { resources: { httpd: { requests: { cpu: '50m', memory: '64Mi' } } } })],
    rolls: ['StatefulSet ipa-ipa-cache'],
  },
];

/** What the children of a parent are, without what the API server or the controllers write. */
const childState = (emulator: Emulator, parent: KubeResource): string =>
  JSON.stringify(
    emulator
      .children(parent.kind, parent.metadata.name, parent.metadata.namespace)
      .map((c) => {
        const { status: _status, metadata, ...rest } = c as KubeResource & { status?: unknown };
        return { name: `${c.kind} ${metadata.name}`, labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {}, ...rest };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
  );

/**
 * A parent after one round: whether it said Ready=True for its current generation, its children then, and whether
 * that round wrote one of its workloads (a Ready=True written with it was computed from the previous pods).
 */
type Moment = { readonly round: number; readonly parent: string; readonly ready: boolean; readonly children: string; readonly workloadWritten: boolean };

const workloadUpdates = (writes: readonly Write[]): string[] =>
  writes
    .filter((w) => w.verb === 'update')
    .map((w) => w.object)
    .filter((o) => WORKLOAD_KINDS.has(o.split(' ')[0] ?? ''))
    .map((o) => o.replace(/ [^/]+\//, ' '));

for (const row of ROWS) {
  t.test(row.change, async (t) => {
    const emulator = await startEmulator(row.options ?? {});
    t.teardown(() => emulator.close());
    const objects = emulator.apply(readFileSync(`examples/${row.example}`, 'utf8'));
    const parents = objects.filter(isParent);
    const first = await emulator.runUntilStable({ autoReady: true, maxRounds: 12 });
    t.ok(first.stable, `${row.example} converges first`);
    const before = new Map(parents.map((p) => [p.metadata.name, childState(emulator, p)]));

    emulator.apply(row.apply(objects));
    const removed = row.remove?.split(' ');
    if (removed !== undefined) emulator.delete(removed[0] ?? '', removed[1] ?? '', NS);
    const moments: Moment[] = [];
    const writes: Write[] = [];
    const errors: string[] = [];
    let stable = false;
    for (let round = 1; round <= 16 && !stable; round += 1) {
      emulator.settleWorkloads();
      const result = await emulator.round();
      writes.push(...result.writes);
      errors.push(...result.syncs.filter((s) => s.error !== undefined).map((s) => `${s.parent}: ${s.error ?? ''}`));
      for (const p of parents) {
        const live = present(emulator.get(p.kind, p.metadata.name, p.metadata.namespace));
        const ready = emulator.ready(p.kind, p.metadata.name, p.metadata.namespace)?.status === 'True';
        const current = emulator.status(p.kind, p.metadata.name, p.metadata.namespace)['observedGeneration'] === live.metadata.generation;
        const own = new Set(
          emulator.children(p.kind, p.metadata.name, p.metadata.namespace).map((c) => `${c.kind} ${c.metadata.namespace ?? ''}/${c.metadata.name}`),
        );
        const workloadWritten = result.writes.some(
          (w) => (w.verb === 'update' || w.verb === 'create') && WORKLOAD_KINDS.has(w.object.split(' ')[0] ?? '') && own.has(w.object),
        );
        moments.push({ round, parent: `${p.kind} ${p.metadata.name}`, ready: ready && current, children: childState(emulator, p), workloadWritten });
      }
      stable = result.writes.length === 0 && result.cacheCurrent && errors.length === 0;
    }
    t.same(errors, [], 'no sync failed and no write was refused');
    t.ok(stable, 'stable');
    t.same(
      emulator.history.flatMap((r) => r.syncs.flatMap((s) => s.warnings)),
      [],
      'no warning',
    );

    for (const p of parents) {
      const name = `${p.kind} ${p.metadata.name}`;
      t.match(emulator.ready(p.kind, p.metadata.name, p.metadata.namespace), { status: 'True' }, `${name} is Ready in the end`);
      const final = childState(emulator, p);
      const early = moments.filter((m) => m.parent === name && m.ready && (m.children !== final || m.workloadWritten)).map((m) => m.round);
      t.same(early, [], `${name} is never Ready for its generation before its children are the final ones`);
    }
    const changed = parents.some((p) => before.get(p.metadata.name) !== childState(emulator, p));
    if (row.remove === undefined) t.ok(changed, 'the change reached the children');
    else {
      t.notOk(changed, `${row.remove} is back as it was`);
      t.ok(
        writes.some((w) => w.verb === 'create' && w.object === row.remove?.replace(' ', ` ${NS}/`)),
        `${row.remove} was created again`,
      );
    }

    const updates = workloadUpdates(writes);
    for (const workload of new Set([...updates, ...row.rolls]))
      t.equal(
        updates.filter((u) => u === workload).length,
        row.rolls.includes(workload) ? 1 : 0,
        `${workload} rolls ${row.rolls.includes(workload) ? 'once' : 'never'} (${updates.join(', ')})`,
      );

    const minted = writes
      .filter((w) => w.verb === 'create' && w.object.startsWith('Secret '))
      .map((w) => w.object.replace(/^Secret [^/]+\//, ''))
      .filter((name) => !row.newSecrets?.test(name));
    t.same(minted, [], 'no credentials or certificates minted that the change did not ask for');

    for (let i = 0; i < 3; i += 1) {
      emulator.settleWorkloads();
      t.same((await emulator.round()).writes, [], `resync ${i + 1} writes nothing`);
    }
  });
}
