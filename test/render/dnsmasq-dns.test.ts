/**
 * serveDNS on a real network: a "node" and a "host" network namespace joined by a link. On the node, the
 * rendered dnsmasq container's environment goes to a model of ironic-image's rundnsmasq
 * (test/support/rundnsmasq-model.sh) that execs Debian's dnsmasq; the node's resolver (what the pod's
 * /etc/resolv.conf names: the cluster DNS) is a stand-in that knows one name. The host gets a lease with ISC
 * dhclient and asks the DNS server the lease names, over UDP (test/support/dns.ts). Needs root, to create
 * namespaces; skipped with a message where that is refused.
 */
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { containerOf, podOf, syncFor } from '../helpers/render.js';
import { deleteNamespace, dhclientScript, must, networkTestCanRun, waitFor } from '../support/netns.js';

const PREFIX = `s${String(process.pid % 100000)}`;
const NODE = `${PREFIX}-node`;
const HOST = `${PREFIX}-host`;
const PROVISIONING_IP = '192.0.2.2';
/** The cluster DNS Service's address, as the pod's /etc/resolv.conf names it; a stand-in answers there. */
const CLUSTER_DNS = '10.96.0.10';
const KNOWN = { name: 'images.example.test', address: '198.51.100.7' };
const MODEL = resolve('test/support/rundnsmasq-model.sh');
const DNS_TOOL = resolve('test/support/dns.ts');

const SPEC = {
  networking: {
    interface: 'eth1',
    ipAddress: PROVISIONING_IP,
    dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100', serveDNS: true },
  },
};

/** The node and the host, each with an `eth1` on one link, and the node's stand-in cluster DNS address. */
const buildNetwork = (): void => {
  for (const name of [NODE, HOST]) {
    must('netns', 'add', name);
    must('-n', name, 'link', 'set', 'lo', 'up');
  }
  must('link', 'add', `${PREFIX}n`, 'netns', NODE, 'type', 'veth', 'peer', 'name', `${PREFIX}h`, 'netns', HOST);
  must('-n', NODE, 'link', 'set', `${PREFIX}n`, 'name', 'eth1', 'up');
  must('-n', HOST, 'link', 'set', `${PREFIX}h`, 'name', 'eth1', 'up');
  must('-n', NODE, 'addr', 'add', `${PROVISIONING_IP}/24`, 'dev', 'eth1');
  // On loopback, where dnsmasq does not listen (the image's except-interface=lo).
  must('-n', NODE, 'addr', 'add', `${CLUSTER_DNS}/32`, 'dev', 'lo');
};

/** The rendered dnsmasq container's variables (all plain values for this spec). */
const renderedEnv = async (): Promise<Record<string, string>> => {
  const dnsmasq = containerOf(podOf((await syncFor(SPEC)).children), 'dnsmasq');
  const env: Record<string, string> = {};
  for (const e of dnsmasq?.env ?? []) {
    if (e.value === undefined) throw new Error(`dnsmasq variable ${e.name} comes from ${JSON.stringify(e.valueFrom)}: the test does not resolve it`);
    env[e.name] = e.value;
  }
  return env;
};

/** A dhclient script that configures the address and writes the DNS servers it was given. */
const clientScript = (log: string): string => dhclientScript(log, '$reason $new_ip_address $new_domain_name_servers');

t.test('serveDNS: the DNS server each lease names answers, and forwards to the resolver of the pod', async (t) => {
  const programs = ['/usr/sbin/dnsmasq', '/usr/sbin/dhclient'];
  if (!networkTestCanRun(t, `${PREFIX}-probe`, programs, 'dnsmasq and dhclient are installed (.ci/run installs dnsmasq-base and isc-dhcp-client)')) return;

  const dir = mkdtempSync(join(tmpdir(), 'dnsmasq-dns-'));
  const children: ChildProcess[] = [];
  t.teardown(() => {
    for (const name of [NODE, HOST]) deleteNamespace(name);
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  buildNetwork();

  const env = await renderedEnv();
  t.match(env, { DNS_IP: 'provisioning', DNS_PORT: '53', PROVISIONING_IP }, "rundnsmasq's variables: the provisioning IP announced, DNS on port 53");

  const log = (what: string): string => {
    const file = join(dir, `${what}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };
  const start = (what: string, command: string[], variables: Record<string, string> = {}): void => {
    const out = openSync(join(dir, `${what}.log`), 'a');
    children.push(spawn('ip', ['netns', 'exec', NODE, ...command], { stdio: ['ignore', out, out], env: { PATH: process.env['PATH'] ?? '', ...variables } }));
  };
  start('cluster-dns', [process.execPath, DNS_TOOL, 'serve', CLUSTER_DNS, `${KNOWN.name}=${KNOWN.address}`]);
  const resolvConf = join(dir, 'resolv.conf');
  writeFileSync(resolvConf, `nameserver ${CLUSTER_DNS}\n`);
  start('dnsmasq', [MODEL], { ...env, MODEL_ROOT: join(dir, 'root'), MODEL_RESOLV_FILE: resolvConf });
  const ready = await waitFor(() => (log('dnsmasq').includes('dnsmasq: started') && log('cluster-dns').includes('listening') ? true : undefined), 20);
  t.ok(ready, 'dnsmasq and the cluster DNS stand-in run', { dnsmasq: log('dnsmasq'), clusterDNS: log('cluster-dns') });
  if (ready === undefined) return;
  t.match(readFileSync(join(dir, 'root', 'conf', 'dnsmasq', 'dnsmasq.conf'), 'utf8'), /\nport=53\n/, 'the rendered configuration turns DNS on');

  const conf = join(dir, 'dhclient.conf');
  const script = join(dir, 'dhclient.sh');
  const events = join(dir, 'lease.log');
  writeFileSync(conf, 'timeout 25;\nretry 1;\nrequest subnet-mask, broadcast-address, routers, domain-name-servers;\n');
  writeFileSync(script, clientScript(events));
  chmodSync(script, 0o755);
  const files = ['-lf', join(dir, 'host.leases'), '-pf', join(dir, 'host.pid'), '-sf', script];
  spawnSync('ip', ['netns', 'exec', HOST, 'dhclient', '-1', '-cf', conf, ...files, 'eth1'], { timeout: 40_000 });
  const lease = existsSync(events) ? readFileSync(events, 'utf8').trim().split('\n').at(-1) : undefined;
  const [reason, address, ...servers] = (lease ?? '').split(' ');
  t.equal(reason, 'BOUND', `the host gets a lease (${address ?? 'none'})`);
  t.same(servers, [PROVISIONING_IP], 'the lease names the provisioning IP as DNS server');
  const server = servers[0] ?? PROVISIONING_IP;

  const ask = (name: string): unknown => {
    const r = spawnSync('ip', ['netns', 'exec', HOST, process.execPath, DNS_TOOL, 'ask', server, name], { encoding: 'utf8', timeout: 20_000 });
    return r.status === 0 ? JSON.parse(r.stdout) : { failed: r.stderr };
  };
  t.same(ask(KNOWN.name), { rcode: 0, addresses: [KNOWN.address] }, 'the host resolves a name through it: dnsmasq forwards to the cluster DNS');
  t.same(ask('unknown.example.test'), { rcode: 3, addresses: [] }, 'a name the cluster DNS does not know is NXDOMAIN, not a timeout');
  t.match(log('dnsmasq'), `forwarded ${KNOWN.name} to ${CLUSTER_DNS}`, 'dnsmasq logs the query it forwarded');
  t.match(log('cluster-dns'), `query ${KNOWN.name} type 1 from ${CLUSTER_DNS}: ${KNOWN.address}`, 'the cluster DNS answered the node');
});
