/**
 * spec.proxy with an IPv6 provisioning network: Ironic calls the agents with Python's requests, which ignores
 * IPv6 networks in NO_PROXY (psf/requests#6313). The rendered NO_PROXY is checked with the real requests
 * (Debian's python3-requests, which .ci/run installs): every address dnsmasq may hand out bypasses the proxy.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { addressesInRange } from '../../src/api/shared/net.js';
import type { ObjectMap } from '../../src/api/shared/hook.js';
import type { Obj } from '../helpers/hooks.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { envOf, podOf, containerOf, syncFor } from '../helpers/render.js';

const PYTHONS = ['/usr/bin/python3', 'python3'];

/** A Python that has requests, or nothing. */
const python = PYTHONS.find((p) => spawnSync(p, ['-c', 'import requests'], { stdio: 'ignore' }).status === 0);

/** What requests decides for each URL under this NO_PROXY: true when it bypasses the proxy. */
const bypasses = (noProxy: string, urls: readonly string[]): boolean[] => {
  const script =
    'import json, sys\nfrom requests.utils import should_bypass_proxies\nurls, no_proxy = json.load(sys.stdin)\nprint(json.dumps([bool(should_bypass_proxies(u, no_proxy=no_proxy)) for u in urls]))';
  const run = spawnSync(python ?? 'python3', ['-c', script], { input: JSON.stringify([urls, noProxy]), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as boolean[];
};

const spec = (rangeEnd: string) => ({
  networking: { interface: 'eth1', ipAddress: 'fd00::2', dhcp: { networkCIDR: 'fd00::/64', rangeBegin: 'fd00::10', rangeEnd } },
  proxy: { httpsProxy: 'http://proxy.example.com:3128', httpProxy: 'http://proxy.example.com:3128' },
});

const agentURL = (address: string): string => `http://[${address}]:9999/v1/commands/`;

t.test('addressesInRange lists a range in canonical text, and refuses what it cannot list', async (t) => {
  t.same(addressesInRange('fd00::fe', 'FD00:0::101', 10), ['fd00::fe', 'fd00::ff', 'fd00::100', 'fd00::101']);
  t.same(addressesInRange('192.0.2.254', '192.0.2.255', 2), ['192.0.2.254', '192.0.2.255']);
  t.equal(addressesInRange('fd00::1', 'fd00::ff', 10), undefined, 'more than the limit');
  t.equal(addressesInRange('fd00::2', 'fd00::1', 10), undefined, 'backwards');
  t.equal(addressesInRange('192.0.2.1', 'fd00::1', 10), undefined, 'two families');
  t.equal(addressesInRange('nope', 'fd00::1', 10), undefined, 'not an address');
});

t.test('every address of a small IPv6 DHCP range bypasses the proxy in Python requests', async (t) => {
  if (python === undefined) {
    t.fail('no Python with requests here: install python3-requests (.ci/run does)');
    return;
  }
  const response = await syncFor(spec('fd00::ff'));
  const noProxy = envOf(containerOf(podOf(response.children), 'ironic'))['NO_PROXY'] ?? '';
  const inRange = addressesInRange('fd00::10', 'fd00::ff', 256) ?? [];
  t.equal(inRange.length, 240);
  t.same(
    bypasses(noProxy, inRange.map(agentURL)),
    inRange.map(() => true),
    'each address dnsmasq may hand out',
  );
  t.same(bypasses(noProxy, [agentURL('fd00::2')]), [true], 'the provisioning address');
  t.same(bypasses(noProxy, ['https://example.com/ipa.tar']), [false], 'the internet still goes through the proxy');
  t.same(bypasses('fd00::/64', [agentURL('fd00::10')]), [false], 'the network alone is not enough for requests (why the addresses are listed)');
  t.match(noProxy, /(^|,)fd00::\/64(,|$)/, 'the network stays listed for curl and other clients');
  t.notMatch(JSON.stringify(response.status), /Python requests/, 'no note in the status');
});

t.test('an IPv6 range too large to list is noted in the Ready message, with what to do', async (t) => {
  const first = await syncFor(spec('fd00::ffff'));
  const children = observeAll(first.children as Obj[], {}, (o) => (o['kind'] === 'Deployment' ? availableDeployment(o) : undefined));
  const response = await syncFor(spec('fd00::ffff'), [], { children: children as unknown as ObjectMap });
  const noProxy = envOf(containerOf(podOf(response.children), 'ironic'))['NO_PROXY'] ?? '';
  t.ok(noProxy.length < 500, 'NO_PROXY does not list 65,000 addresses');
  t.match(
    JSON.stringify(response.status),
    /IPv6 DHCP range fd00::10-fd00::ffff has more than 256 addresses.*narrow the range, or let the proxy reach the provisioning network/,
  );
});
