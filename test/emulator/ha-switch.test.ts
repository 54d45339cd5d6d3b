/**
 * Toggling highAvailability on a converged Ironic with a database (ha.yaml: Galera, mariadb-operator overlay), walked to the end under the strict
 * emulator: the old workload is scaled to no pod first, kept for its pods' grace period (the hook server
 * and the cluster share one clock), then deleted, and only then is the new one created; Ready again, and
 * no write once converged. Never are pods of both workloads running on the database at once, counting the
 * pods the kubelet stand-in keeps for their grace period after a scale-down or a (background) deletion.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAtOrEmpty, present } from '../support/paths.js';

const WORKLOADS = new Set(['Deployment', 'DaemonSet']);

const workloads = (emulator: Emulator): KubeResource[] => emulator.children('Ironic', 'ironic').filter((c) => WORKLOADS.has(c.kind));

/** The workloads (`Kind ns/name`) with pods at this moment, terminating ones (scaled down or deleted, in their grace period) included. */
const withPods = (emulator: Emulator, seen: Set<string>): string[] => {
  for (const w of workloads(emulator)) seen.add(`${w.kind} ${w.metadata.namespace ?? ''}/${w.metadata.name}`);
  return [...seen].filter((id) => {
    const [kind = '', key = ''] = id.split(' ');
    const [namespace = '', name = ''] = key.split('/');
    return emulator.podsOf(kind, name, namespace) > 0;
  });
};

const toggle = async (t: Test, from: boolean, example = 'examples/ha.yaml'): Promise<Emulator> => {
  const emulator = await startEmulator({ tickSeconds: 5, overlay: 'mariadb-operator' });
  t.teardown(() => emulator.close());
  // ha.yaml (a database, the control-plane node, no fixed IP address), with highAvailability as `from` says.
  const objects = emulator.apply(readFileSync(example, 'utf8'));
  const ironic = present(objects.find((o) => o.kind === 'Ironic'));
  const withHa = (on: boolean): KubeResource => ({ ...ironic, spec: { ...objAtOrEmpty(ironic, 'spec'), highAvailability: on } });
  if (!from) emulator.apply(withHa(false));
  t.ok((await emulator.runUntilStable({ autoReady: true, maxRounds: 10 })).stable, 'converged before the switch');
  const [before] = workloads(emulator).map((w) => w.kind);
  emulator.apply(withHa(!from));
  let both = 0;
  const moments: string[] = [];
  const seen = new Set<string>();
  const check = (): void => {
    const running = withPods(emulator, seen);
    if (running.length > 1) {
      both += 1;
      moments.push(`${emulator.now}: ${running.join(', ')}`);
    }
  };
  let result;
  for (let round = 0; round < 40; round += 1) {
    emulator.settleWorkloads();
    check();
    result = await emulator.round();
    check();
    if (
      result.writes.length === 0 &&
      result.syncs.every((s) => s.error === undefined) &&
      workloads(emulator).length === 1 &&
      workloads(emulator)[0]?.kind !== before
    )
      break;
  }
  t.equal(both, 0, 'never two workloads with pods at once, terminating pods included');
  t.same(moments, []);
  t.ok(seen.size >= 2, 'both workloads were watched');
  t.same(
    workloads(emulator).map((w) => w.kind),
    [from ? 'Deployment' : 'DaemonSet'],
    'the new workload only',
  );
  const settled = await emulator.runUntilStable({ autoReady: true, maxRounds: 10 });
  t.ok(settled.stable, `settled (${settled.rounds} rounds)`);
  t.same(settled.errors, []);
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True' });
  for (let i = 0; i < 3; i += 1) {
    emulator.settleWorkloads();
    t.same((await emulator.round()).writes, [], `resync ${i + 1} after the switch writes nothing`);
  }
  const deletes = emulator.writes.filter((w) => w.verb === 'delete' && WORKLOADS.has(w.object.split(' ')[0] ?? '')).map((w) => w.object.split(' ')[0]);
  t.same(deletes, [before], 'the old workload was deleted');
  return emulator;
};

t.test('highAvailability false → true: Deployment scaled to 0, grace period, deleted, DaemonSet created', async (t) => {
  await toggle(t, false);
});
t.test('highAvailability true → false: DaemonSet onto no node, grace period, deleted, Deployment created', async (t) => {
  await toggle(t, true);
});
t.test('with DHCP and keepalived (ha-dhcp.yaml), false → true: the same, and the DaemonSet serves DHCP', async (t) => {
  const emulator = await toggle(t, false, 'examples/ha-dhcp.yaml');
  const children = emulator.children('Ironic', 'ironic');
  const daemonSet = children.find((c) => c.kind === 'DaemonSet');
  const containers = JSON.stringify(objAtOrEmpty(daemonSet, 'spec', 'template', 'spec')['containers'] ?? []);
  t.match(containers, /"name":"dnsmasq"/, 'dnsmasq on every node');
  t.match(containers, /dhcp-failover/, 'behind the failover script');
  t.match(containers, /DHCP_PEERS_API/, 'and writes the fallback script from the local API');
});
