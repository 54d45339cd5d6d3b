/**
 * DHCP with high availability, on a real network: three "nodes" and four "hosts" in network namespaces on one
 * bridge. Every node runs Debian's keepalived with the rendered VRRP template, and the rendered dnsmasq
 * container's start script (its command and environment, as the pod has them) around a model of ironic-image's
 * rundnsmasq (test/support/rundnsmasq-model.sh) that execs Debian's dnsmasq. The hosts ask with ISC dhclient.
 * The serving node is then removed (its processes killed, its namespace and link deleted), and later the next
 * one's keepalived stops: each node's DHCP socket is then sampled, to measure the window in which two nodes could
 * answer. Needs root, to create namespaces; skipped with a message where that is refused.
 */
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { containerOf, podOf, syncFor } from '../helpers/render.js';
import { deleteNamespace, dhclientScript, ip, must, networkTestCanRun, waitFor } from '../support/netns.js';
import { objAt } from '../support/paths.js';

const VIP = '192.0.2.2';
const PREFIX = `d${String(process.pid % 100000)}`;
const NODES = ['n1', 'n2', 'n3'] as const;
const HOSTS = ['h1', 'h2', 'h3', 'h4'] as const;
const NODE_ADDRESSES: Record<string, string> = { n1: '192.0.2.11', n2: '192.0.2.12', n3: '192.0.2.13' };
const MODEL = resolve('test/support/rundnsmasq-model.sh');
/** What the README promises: a new DHCP server within this time of the loss of the serving node. */
const FAILOVER_SECONDS = 10;
/** How long the old server may take to stop: the start script's next check (every second), then dnsmasq's exit. */
const STOP_SECONDS = 5;
/**
 * At most this long two nodes could answer DHCP when the address moves between live nodes: the node that lost it
 * runs dnsmasq until its start script's next check (every second), while the new holder may already serve.
 */
const OVERLAP_SECONDS = 2;

const ns = (name: string): string => `${PREFIX}-${name}`;

/** The bridge, the node and host namespaces, each with an `eth1` on the bridge. */
const buildNetwork = (): void => {
  must('netns', 'add', ns('sw'));
  must('-n', ns('sw'), 'link', 'add', 'br0', 'type', 'bridge');
  must('-n', ns('sw'), 'link', 'set', 'br0', 'up');
  for (const name of [...NODES, ...HOSTS]) {
    must('netns', 'add', ns(name));
    must('link', 'add', `${PREFIX}${name}`, 'type', 'veth', 'peer', 'name', 'eth1', 'netns', ns(name));
    must('link', 'set', `${PREFIX}${name}`, 'netns', ns('sw'));
    must('-n', ns('sw'), 'link', 'set', `${PREFIX}${name}`, 'master', 'br0', 'up');
    must('-n', ns(name), 'link', 'set', 'lo', 'up');
    must('-n', ns(name), 'link', 'set', 'eth1', 'up');
  }
  for (const node of NODES) must('-n', ns(node), 'addr', 'add', `${NODE_ADDRESSES[node] ?? ''}/24`, 'dev', 'eth1');
};

/** Kills every process of a node or host and deletes its namespace and its link to the bridge. */
const removeNamespace = (name: string): void => {
  deleteNamespace(ns(name));
  ip('-n', ns('sw'), 'link', 'del', `${PREFIX}${name}`);
};

const holdsVIP = (node: string): boolean => ip('-n', ns(node), '-o', 'addr', 'show', 'dev', 'eth1', 'to', VIP).stdout.trim() !== '';

/** A UDP socket on port 67 (0x0043) in /proc/net/udp's lines (`sl: local_address:port ...`). */
const DHCP_SOCKET = /^\s*\d+: [0-9A-F]{8}:0043 /m;

/**
 * Whether a DHCP server (dnsmasq's socket on port 67) listens in the network namespace of the process `pid`: its
 * /proc/<pid>/net/udp lists the sockets of that namespace. A file read, so it can be looked at every few ms.
 */
const listensForDHCP = (pid: number): boolean => DHCP_SOCKET.test(readFileSync(`/proc/${String(pid)}/net/udp`, 'utf8'));

/** One look at a node's DHCP socket: what it saw, at some moment between `from` and `to` (performance.now(), ms). */
type Look = { from: number; to: number; listening: boolean };

const look = (pid: number): Look => {
  const from = performance.now();
  const listening = listensForDHCP(pid);
  return { from, to: performance.now(), listening };
};

/**
 * Looks at the DHCP socket of each node (by the pid of a process in its namespace) every 10 ms until `done`
 * says so, or for at most `seconds`.
 */
const watchDHCP = async (
  pids: ReadonlyMap<string, number>,
  seconds: number,
  done: (latest: ReadonlyMap<string, boolean>) => boolean,
): Promise<Map<string, Look[]>> => {
  const looks = new Map([...pids.keys()].map((n) => [n, [] as Look[]]));
  const deadline = performance.now() + seconds * 1000;
  for (;;) {
    const latest = new Map([...pids].map(([n, pid]) => [n, look(pid)]));
    for (const [n, l] of latest) looks.get(n)?.push(l);
    if (done(new Map([...latest].map(([n, l]) => [n, l.listening]))) || performance.now() >= deadline) return looks;
    await sleep(10);
  }
};

/**
 * The window (ms) in which both nodes listened for DHCP, bounded by the looks: `starting` began after the start of
 * its last look that saw nothing (or `since`) and before the end of its first look that saw a socket; `stopping`
 * stopped after the start of its last look that saw one (or `since`) and before the end of the first that saw none.
 */
const overlapOf = (starting: readonly Look[], stopping: readonly Look[], since: number): { least: number; most: number } | undefined => {
  const up = starting.findIndex((l) => l.listening);
  const down = stopping.findIndex((l) => !l.listening);
  const startedBy = starting[up]?.to;
  const stoppedBy = stopping[down]?.to;
  if (startedBy === undefined || stoppedBy === undefined) return undefined;
  const startedAfter = starting[up - 1]?.from ?? since;
  const stoppedAfter = stopping[down - 1]?.from ?? since;
  return { least: Math.max(0, stoppedAfter - startedBy), most: Math.max(0, stoppedBy - startedAfter) };
};

/** The Ironic as the test renders it: HA with keepalived (a router ID, so that the template is ours) and DHCP. */
const SPEC = {
  highAvailability: true,
  database: { host: 'mariadb', name: 'ironic', credentialsName: 'db-creds' },
  networking: {
    interface: 'eth1',
    ipAddress: VIP,
    keepalived: { enabled: true, vrid: 51 },
    dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100', gatewayAddress: '192.0.2.1' },
  },
};
const DB_SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db-creds', namespace: 'baremetal-operator-system', uid: 'db-uid' },
  data: { username: Buffer.from('ironic').toString('base64'), password: Buffer.from('secret').toString('base64') },
};

type Rendered = { command: string[]; env: Record<string, string>; keepalived: string; vips: string };

const rendered = async (): Promise<Rendered> => {
  const { children } = await syncFor(SPEC, [DB_SECRET]);
  const pod = podOf(children);
  const dnsmasq = containerOf(pod, 'dnsmasq');
  const keepalived = containerOf(pod, 'keepalived');
  const secret = children.map((c) => objAt(c)).find((c) => c['kind'] === 'Secret' && String(objAt(c['metadata'])['name']).startsWith('ironic-keepalived-'));
  const template = Buffer.from(String(objAt(objAt(secret)['data'])['keepalived.conf']), 'base64').toString('utf8');
  const secretValue = (name: string, key: string): string => {
    const found = children.map((c) => objAt(c)).find((c) => c['kind'] === 'Secret' && objAt(c['metadata'])['name'] === name);
    return Buffer.from(String(objAt(objAt(found)['data'])[key]), 'base64').toString('utf8');
  };
  const env: Record<string, string> = {};
  for (const e of dnsmasq?.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName') env[e.name] = 'NODE';
    else if (ref?.name !== undefined) env[e.name] = secretValue(ref.name, ref.key);
    else throw new Error(`dnsmasq variable ${e.name} comes from ${JSON.stringify(e.valueFrom)}: the test does not resolve it`);
  }
  const vips = keepalived?.env?.find((e) => e.name === 'KEEPALIVED_VIRTUAL_IPS')?.value ?? '';
  return { command: dnsmasq?.command ?? [], env, keepalived: template, vips };
};

/** The image's manage-keepalived.sh: INTERFACE is the first VIP's interface, CHANGEIP the `ip/prefix dev iface` list. */
const keepalivedConf = (template: string, vips: string): string => {
  const entries = vips.split(' ').map((entry) => entry.split(','));
  const addresses = entries.map(([address = '', iface = '', prefix = '32']) => `${address}/${prefix} dev ${iface}`).join('\n        ');
  return template.replaceAll('INTERFACE', entries[0]?.[1] ?? '').replaceAll('CHANGEIP', addresses);
};

/** A dhclient script that configures the address and writes what it was given, one line per event. */
const clientScript = (log: string): string =>
  dhclientScript(
    log,
    'reason=$reason ip=$new_ip_address server=$new_dhcp_server_identifier filename=$new_filename next_server=$new_next_server server_name=$new_server_name',
    true,
  );

/** What each host says it is: iPXE (option 175), UEFI x86 firmware (client-arch 7), or BIOS PXE. */
const CLIENTS: Record<string, string> = {
  h1: 'option ipxe-encap code 175 = string;\nsend ipxe-encap 01:01:01;\n',
  h2: '',
  h3: 'option client-arch code 93 = unsigned integer 16;\nsend client-arch 7;\n',
  h4: '',
};

type Lease = { reason: string; ip: string; server: string; filename: string; next_server: string; server_name: string };

const parseLease = (line: string): Lease => {
  const fields = Object.fromEntries(line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return {
    reason: fields['reason'] ?? '',
    ip: fields['ip'] ?? '',
    server: fields['server'] ?? '',
    filename: fields['filename'] ?? '',
    next_server: fields['next_server'] ?? '',
    server_name: fields['server_name'] ?? '',
  };
};

t.test('DHCP with high availability: one server, the one holding the virtual IP, and a new one within seconds', async (t) => {
  const programs = ['/usr/sbin/dnsmasq', '/usr/sbin/dhclient', '/usr/sbin/keepalived'];
  if (
    !networkTestCanRun(
      t,
      ns('probe'),
      programs,
      'dnsmasq, dhclient and keepalived are installed (.ci/run installs dnsmasq-base, isc-dhcp-client and keepalived)',
    )
  )
    return;

  const dir = mkdtempSync(join(tmpdir(), 'dhcp-failover-'));
  const children: ChildProcess[] = [];
  t.teardown(() => {
    for (const name of [...NODES, ...HOSTS, 'sw']) removeNamespace(name);
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  buildNetwork();

  const pod = await rendered();
  t.equal(pod.command[0], '/bin/bash', 'dnsmasq starts through the failover script');
  t.equal(pod.command.at(-1), '/bin/rundnsmasq', "and the script runs the image's rundnsmasq");
  t.equal(pod.env['IRONIC_IP'], VIP, 'dnsmasq names the virtual IP');

  const start = (node: string, what: string, command: string[], env: Record<string, string> = {}): ChildProcess => {
    const out = openSync(join(dir, `${what}-${node}.log`), 'a');
    const child = spawn('ip', ['netns', 'exec', ns(node), ...command], { stdio: ['ignore', out, out], env: { PATH: process.env['PATH'] ?? '', ...env } });
    children.push(child);
    return child;
  };
  const log = (what: string, node: string): string => {
    const file = join(dir, `${what}-${node}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };
  // Each node's Ironic API stands in a small server on the node's loopback: it checks the credentials and lists
  // the conductors by the addresses they registered (one of them dead); the image's python3.12 is Debian's /usr/bin/python3.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'python3.12'), '#!/bin/sh\nexec /usr/bin/python3 "$@"\n');
  chmodSync(join(bin, 'python3.12'), 0o755);
  const conductors = [...NODES.map((n) => ({ hostname: NODE_ADDRESSES[n], alive: true })), { hostname: '192.0.2.99', alive: false }];
  const api = new URL(pod.env['DHCP_PEERS_API'] ?? '');
  const expected = `Basic ${Buffer.from(`${pod.env['DHCP_PEERS_USERNAME'] ?? ''}:${pod.env['DHCP_PEERS_PASSWORD'] ?? ''}`).toString('base64')}`;
  const fakeAPI = [
    'import http.server, json, sys',
    'class H(http.server.BaseHTTPRequestHandler):',
    '    def do_GET(self):',
    `        ok = self.path == "/v1/conductors" and self.headers.get("Authorization") == ${JSON.stringify(expected)} and self.headers.get("X-OpenStack-Ironic-API-Version") == "1.49"`,
    `        body = json.dumps({"conductors": json.loads(${JSON.stringify(JSON.stringify(conductors))})} if ok else {"error": "refused"}).encode()`,
    '        self.send_response(200 if ok else 401)',
    '        self.end_headers()',
    '        self.wfile.write(body)',
    '    def log_message(self, *args):',
    '        pass',
    `http.server.HTTPServer((${JSON.stringify(api.hostname)}, ${api.port}), H).serve_forever()`,
  ].join('\n');
  const peersFile = (node: string): string => join(dir, `root-${node}`, 'shared', 'html', 'ha-peers.ipxe');
  const keepaliveds = new Map<string, ChildProcess>();
  // The start script of each node's dnsmasq (`ip netns exec` execs it: the pid stays) lives in the node's namespace.
  const watchers = new Map<string, number>();
  for (const node of NODES) {
    start(node, 'api', ['/usr/bin/python3', '-c', fakeAPI]);
    const conf = join(dir, `keepalived-${node}.conf`);
    writeFileSync(conf, keepalivedConf(pod.keepalived, pod.vips));
    keepaliveds.set(
      node,
      start(node, 'keepalived', [
        'keepalived',
        '--dont-fork',
        '--log-console',
        '--vrrp',
        `--use-file=${conf}`,
        `--pid=${dir}/ka-${node}.pid`,
        `--vrrp_pid=${dir}/kav-${node}.pid`,
      ]),
    );
    // The container's command, with the model in place of /bin/rundnsmasq, and the container's environment.
    const watcher = start(node, 'dnsmasq', [...pod.command.slice(0, -1), MODEL], {
      ...pod.env,
      NODE_NAME: node,
      MODEL_ROOT: join(dir, `root-${node}`),
      DHCP_PEERS_FILE: peersFile(node),
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    });
    watchers.set(node, watcher.pid ?? 0);
  }

  const servers = (): string[] => NODES.filter((n) => log('dnsmasq', n).includes('dnsmasq: started'));
  const holder = await waitFor(() => {
    const holders = NODES.filter(holdsVIP);
    return holders.length === 1 && servers().length === 1 ? holders[0] : undefined;
  }, 20);
  t.ok(holder, 'one node holds the virtual IP and runs dnsmasq');
  if (holder === undefined) return;
  t.same(servers(), [holder], 'only the node with the virtual IP runs dnsmasq');
  t.match(log('dnsmasq', holder), `dhcp-failover: ${VIP} is on ${holder}: serving DHCP`, 'its log names the node that serves');
  t.match(readFileSync(join(dir, `root-${holder}`, 'conf', 'dnsmasq', 'dnsmasq.conf'), 'utf8'), /\ndhcp-authoritative\n/, 'dnsmasq is authoritative');

  t.equal(pod.env['DHCP_PEERS_FILE'], '/shared/html/ha-peers.ipxe', 'the fallback script is served by httpd');
  const peers = [
    '#!ipxe',
    ...NODES.map(
      (n) =>
        `chain --autofree --timeout 10000 http://${NODE_ADDRESSES[n] ?? ''}:6180/pxelinux.cfg/\${mac:hexhyp} || echo no boot configuration on ${NODE_ADDRESSES[n] ?? ''}`,
    ),
    'chain --autofree inspector.ipxe',
    '',
  ].join('\n');
  const content = (node: string): string | undefined => (existsSync(peersFile(node)) ? readFileSync(peersFile(node), 'utf8') : undefined);
  // Written at once (the API may not answer yet: then inspection only), and again every ten seconds.
  const written = await waitFor(() => (content(holder) === peers ? true : undefined), 15);
  t.ok(written, "the serving node writes boot.ipxe's fallback: the per-host file on every live conductor, then inspection", {
    found: content(holder) ?? 'nothing',
  });
  t.notOk(
    NODES.some((n) => n !== holder && existsSync(peersFile(n))),
    'only the serving node writes it',
  );

  const ask = (host: string): Lease | undefined => {
    const conf = join(dir, `dhclient-${host}.conf`);
    const script = join(dir, `dhclient-${host}.sh`);
    const events = join(dir, `lease-${host}.log`);
    writeFileSync(conf, `timeout 25;\nretry 1;\n${CLIENTS[host] ?? ''}`);
    writeFileSync(script, clientScript(events));
    chmodSync(script, 0o755);
    const files = ['-lf', join(dir, `${host}.leases`), '-pf', join(dir, `${host}.pid`), '-sf', script];
    spawnSync('ip', ['netns', 'exec', ns(host), 'dhclient', '-x', ...files, 'eth1']);
    spawnSync('ip', ['netns', 'exec', ns(host), 'dhclient', '-1', '-cf', conf, ...files, 'eth1'], { timeout: 40_000 });
    const lines = existsSync(events) ? readFileSync(events, 'utf8').trim().split('\n') : [];
    const last = lines.at(-1);
    return last === undefined || last === '' ? undefined : parseLease(last);
  };

  const leases = new Map<string, Lease | undefined>();
  for (const host of ['h1', 'h2', 'h3']) leases.set(host, ask(host));
  const h1 = leases.get('h1');
  t.match(h1, { reason: 'BOUND', server: NODE_ADDRESSES[holder], filename: `http://${VIP}:6180/boot.ipxe` }, 'iPXE gets the chain URL on the virtual IP');
  // The image's dhcp-boot lines give IRONIC_IP as the server name; the TFTP server (next server) is the
  // address of the node that answered, which serves TFTP as well.
  const tftp = { next_server: NODE_ADDRESSES[holder], server_name: VIP };
  t.match(leases.get('h2'), { reason: 'BOUND', filename: '/undionly.kpxe', ...tftp }, 'BIOS PXE gets undionly.kpxe from the node that answered');
  t.match(leases.get('h3'), { reason: 'BOUND', filename: '/snponly-x86_64.efi', ...tftp }, 'UEFI gets the x86 snponly from the node that answered');
  const before = [...leases.values()].map((l) => l?.ip);
  t.equal(new Set(before).size, 3, `three hosts, three addresses (${before.join(', ')})`);

  // The serving node is lost.
  const lost = Date.now();
  removeNamespace(holder);
  const next = await waitFor(() => servers().find((n) => n !== holder && holdsVIP(n)), FAILOVER_SECONDS + 5);
  const failover = (Date.now() - lost) / 1000;
  t.ok(next, 'another node took the virtual IP and serves DHCP');
  t.ok(failover <= FAILOVER_SECONDS, `a new DHCP server within ${String(FAILOVER_SECONDS)} s (took ${failover.toFixed(1)} s)`);
  if (next === undefined || h1 === undefined) return;
  t.ok(await waitFor(() => (content(next) === peers ? true : undefined), 15), 'the new server writes the fallback script too');

  // h1 asks again for the lease the lost node gave it (INIT-REBOOT): the new server, authoritative, confirms it.
  const renewed = ask('h1');
  t.match(renewed, { reason: 'REBOOT', ip: h1.ip, server: NODE_ADDRESSES[next] }, 'the lease handed out by the lost node is confirmed by the new server');
  // A new host gets an address nobody holds (dnsmasq pings before it offers one it knows nothing about).
  const h4 = ask('h4');
  t.ok(h4 !== undefined && !before.includes(h4.ip), `a new host gets a free address (${h4?.ip ?? 'none'})`);
  t.same(
    servers().filter((n) => n !== holder),
    [next],
    'still one server',
  );

  // keepalived stops on the new holder: the last node takes the address, and the new holder's start script stops
  // its dnsmasq at its next check. Until then both could answer DHCP: their sockets are watched from the stop on.
  const last = NODES.find((n) => n !== holder && n !== next) ?? '';
  const stopping = performance.now();
  keepaliveds.get(next)?.kill('SIGTERM');
  const pids = new Map([next, last].map((n) => [n, watchers.get(n) ?? 0]));
  const looks = await watchDHCP(pids, FAILOVER_SECONDS + STOP_SECONDS, (latest) => latest.get(last) === true && latest.get(next) === false);
  const [ofNext = [], ofLast = []] = [looks.get(next), looks.get(last)];
  t.ok(holdsVIP(last) && log('dnsmasq', last).includes('dnsmasq: started'), 'the last node holds the address and serves');
  const said = await waitFor(() => (log('dnsmasq', next).includes(`dhcp-failover: ${VIP} left ${next}: DHCP stopped`) ? true : undefined), STOP_SECONDS);
  const seconds = (ms: number | undefined): string => (ms === undefined ? 'never' : (ms / 1000).toFixed(2));
  const stoppedBy = ofNext.find((l) => !l.listening)?.to;
  t.ok(said, `the node without the address stops dnsmasq and says so (by ${seconds(stoppedBy === undefined ? undefined : stoppedBy - stopping)} s)`, {
    log: log('dnsmasq', next),
  });
  t.notOk(listensForDHCP(watchers.get(next) ?? 0), 'nothing listens on port 67 there any more');
  const overlap = overlapOf(ofLast, ofNext, stopping);
  t.ok(overlap, `both changes seen within ${String(FAILOVER_SECONDS + STOP_SECONDS)} s (${String(ofNext.length)} looks)`);
  if (overlap === undefined) return;
  t.ok(
    overlap.most <= OVERLAP_SECONDS * 1000,
    `two nodes could answer DHCP for ${seconds(overlap.least)} to ${seconds(overlap.most)} s (at most ${String(OVERLAP_SECONDS)} s)`,
  );
});
