/**
 * What a production install sets on every pod an Ironic runs: the Ironic workload (Deployment or
 * DaemonSet), the upgrade Jobs and the networking service.
 */
import t from 'tap';
import { syncIronic } from '../../src/hooks/ironic.js';
import type { SyncRequest } from '../../src/api/hook.js';
import { ironic, testContext, type Obj } from '../helpers/hooks.js';
import { syncFor, type PodSpec } from '../helpers/render.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { DEFAULT_CONTAINER_REQUESTS, IRONIC_CONTAINER_NAMES, type IronicContainerName } from '../../src/api/constants.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };

/** Every pod template of the children, by `<kind> <name>`. */
const podsOf = (children: readonly unknown[]): Record<string, PodSpec> =>
  Object.fromEntries(
    (children as Obj[]).flatMap((c) => {
      const template = (c['spec'] as Obj | undefined)?.['template'] as Obj | undefined;
      return template === undefined ? [] : [[`${String(c['kind'])} ${String((c['metadata'] as Obj)['name'])}`, template['spec'] as PodSpec]];
    }),
  );

/** A first install with a database: the pre-upgrade Job is rendered. */
const firstInstall = async (spec: Obj) => syncIronic({ parent: ironic(spec), children: {}, related: {} } as SyncRequest, testContext());

/** The same, once the pre-upgrade Job completed and the Deployment is available: the post-upgrade Job. */
const afterPreUpgrade = async (spec: Obj) => {
  const first = await firstInstall(spec);
  const complete = { conditions: [{ type: 'Complete', status: 'True' }] };
  const children = observeAll(first.children as Obj[], {}, (o) => (o['kind'] === 'Job' ? complete : undefined));
  const second = await syncIronic({ parent: ironic(spec, { status: first.status }), children, related: {} } as SyncRequest, testContext());
  const observed = observeAll(second.children as Obj[], children, (o) => (o['kind'] === 'Deployment' ? availableDeployment(o) : o['kind'] === 'Job' ? complete : undefined));
  return syncIronic({ parent: ironic(spec, { status: second.status }), children: observed, related: {} } as SyncRequest, testContext());
};

t.test('priorityClassName reaches every pod: workload, networking service, upgrade Jobs', async (t) => {
  const cases: { name: string; pods: Record<string, PodSpec>; expected: string[] }[] = [
    {
      name: 'Deployment and networking',
      pods: podsOf((await syncFor({ networking: provisioning, networkingService: { enabled: true }, priorityClassName: 'ironic-critical' })).children),
      expected: ['Deployment ironic-service', 'Deployment ironic-networking'],
    },
    {
      name: 'DaemonSet',
      pods: podsOf((await syncFor({ highAvailability: true, database, priorityClassName: 'ironic-critical' })).children),
      expected: ['DaemonSet ironic-service'],
    },
    { name: 'upgrade Job', pods: podsOf((await firstInstall({ networking: provisioning, database, priorityClassName: 'ironic-critical' })).children), expected: ['Job ironic-pre-none-to-38.0'] },
  ];
  for (const c of cases) {
    t.same(Object.keys(c.pods).sort(), [...c.expected].sort(), `${c.name}: the pods rendered`);
    for (const [name, pod] of Object.entries(c.pods)) t.equal(pod['priorityClassName'], 'ironic-critical', `${c.name}: ${name}`);
  }
  const none = podsOf((await syncFor({ networking: provisioning, priorityClassName: '' })).children);
  t.notOk('priorityClassName' in (none['Deployment ironic-service'] ?? {}), 'an empty priorityClassName is unset');
});

const dhcp = { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' };
const everything = {
  networking: { ...provisioning, dhcp, keepalived: { enabled: true } },
  prometheusExporter: { enabled: true },
  networkingService: { enabled: true },
  tls: { generateCertificate: true, ipxe: true },
};

/** `<pod>/<container>` → its resources, for every container and init container of every pod. */
const resourcesOf = (pods: Record<string, PodSpec>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(pods).flatMap(([pod, spec]) => [...(spec.initContainers ?? []), ...spec.containers].map((c) => [`${pod}/${c.name}`, c['resources']])));

t.test('no container is BestEffort: every container of every pod has CPU and memory requests', async (t) => {
  const resources = {
    ...resourcesOf(podsOf((await syncFor(everything)).children)),
    ...resourcesOf(podsOf((await syncFor({ highAvailability: true, database, tls: { generateCertificate: true } })).children)),
    ...resourcesOf(podsOf((await firstInstall({ networking: provisioning, database })).children)),
    ...resourcesOf(podsOf((await afterPreUpgrade({ networking: provisioning, database })).children)),
  };
  const containers = Object.keys(resources).map((k) => k.slice(k.indexOf('/') + 1));
  t.same([...new Set(containers)].sort(), [...IRONIC_CONTAINER_NAMES].sort(), 'every container of DEFAULT_CONTAINER_REQUESTS is rendered somewhere, and no other');
  for (const [container, value] of Object.entries(resources)) {
    const name = container.slice(container.indexOf('/') + 1) as IronicContainerName;
    t.same(value, { requests: DEFAULT_CONTAINER_REQUESTS[name] }, `${container}: the default requests`);
  }
});

t.test('spec.resources reaches its container, canonical; an override container keeps its own resources', async (t) => {
  const spec = {
    ...everything,
    resources: { ironic: { requests: { memory: '1024Mi' }, limits: { memory: '4096Mi' } }, keepalived: { limits: { cpu: '2m' } }, 'ironic-networking': { requests: { cpu: '0.2' } } },
    overrides: { containers: [{ name: 'httpd', image: 'registry.example.com/httpd:1', resources: { requests: { cpu: '1' } } }] },
  };
  const resources = resourcesOf(podsOf((await syncFor(spec)).children));
  t.same(resources['Deployment ironic-service/ironic'], { requests: { cpu: '100m', memory: '1Gi' }, limits: { memory: '4Gi' } });
  t.same(resources['Deployment ironic-service/keepalived'], { requests: { cpu: '2m', memory: '16Mi' }, limits: { cpu: '2m' } }, 'the request is capped by the limit');
  t.same(resources['Deployment ironic-networking/ironic-networking'], { requests: { cpu: '200m', memory: '128Mi' } });
  t.same(resources['Deployment ironic-service/httpd'], { requests: { cpu: '1' } }, 'the override container is the user\'s, whole');
  const jobs = resourcesOf(podsOf((await firstInstall({ networking: provisioning, database, resources: { 'database-upgrade': { requests: { cpu: '1' } } } })).children));
  t.same(jobs['Job ironic-pre-none-to-38.0/database-upgrade'], { requests: { cpu: '1', memory: '256Mi' } }, 'the upgrade Jobs too');
});

const envOf = (pods: Record<string, PodSpec>, pod: string, container: string): Record<string, string> => {
  const spec = pods[pod];
  const found = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].find((c) => c.name === container);
  return Object.fromEntries((found?.env ?? []).map((e) => [e.name, e.value ?? '<from>']));
};

const PROXY_NAMES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
const proxyOf = (env: Record<string, string>): Record<string, string> => Object.fromEntries(PROXY_NAMES.filter((n) => n in env).map((n) => [n, env[n] ?? '']));

t.test('spec.proxy reaches ironic, the IPA downloader and the upgrade Jobs, in both cases, with what must bypass it', async (t) => {
  const proxy = { httpProxy: 'http://proxy.example.com:3128', httpsProxy: 'http://proxy.example.com:3129', noProxy: '.example.com, 10.0.0.0/8' };
  const spec = { ...everything, networking: { ...everything.networking, dhcp: { ...dhcp, extraRanges: [{ networkCIDR: '198.51.100.7/24', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20' }] } }, proxy };
  const pods = podsOf((await syncFor(spec)).children);
  const noProxy = '.example.com,10.0.0.0/8,localhost,127.0.0.1,::1,.svc,192.0.2.2,192.0.2.0/24,198.51.100.0/24';
  const expected = { HTTP_PROXY: proxy.httpProxy, http_proxy: proxy.httpProxy, HTTPS_PROXY: proxy.httpsProxy, https_proxy: proxy.httpsProxy, NO_PROXY: noProxy, no_proxy: noProxy };
  t.same(proxyOf(envOf(pods, 'Deployment ironic-service', 'ironic')), expected, 'ironic');
  t.same(proxyOf(envOf(pods, 'Deployment ironic-service', 'ramdisk-downloader')), expected, 'the downloader');
  for (const container of ['httpd', 'dnsmasq', 'keepalived', 'ramdisk-logs', 'ironic-prometheus-exporter']) {
    t.same(proxyOf(envOf(pods, 'Deployment ironic-service', container)), {}, `${container} reaches nothing outside`);
  }
  t.same(proxyOf(envOf(pods, 'Deployment ironic-networking', 'ironic-networking')), {}, 'the networking service talks SSH to switches, not HTTP');
  const job = podsOf((await firstInstall({ networking: provisioning, database, proxy: { httpsProxy: 'http://proxy:3128' } })).children);
  const jobNoProxy = 'localhost,127.0.0.1,::1,.svc,192.0.2.2';
  t.same(proxyOf(envOf(job, 'Job ironic-pre-none-to-38.0', 'database-upgrade')), { HTTPS_PROXY: 'http://proxy:3128', https_proxy: 'http://proxy:3128', NO_PROXY: jobNoProxy, no_proxy: jobNoProxy }, 'the upgrade Jobs');
  const none = podsOf((await syncFor({ networking: provisioning })).children);
  t.same(proxyOf(envOf(none, 'Deployment ironic-service', 'ironic')), {}, 'no proxy, no variables');
});

t.test('the downloader: spec.proxy wins field by field over the hook server\'s IPA_*_PROXY settings', async (t) => {
  const base = testContext();
  const context = { ...base, config: { ...base.config, clusterDomain: 'cluster.local', downloaderEnv: { IPA_BASEURI: 'https://cache.example.com', HTTP_PROXY: 'http://hook-wide:1', HTTPS_PROXY: 'http://hook-wide:2', NO_PROXY: 'cache.internal' } } };
  const sync = async (spec: Obj) =>
    proxyOf(envOf(podsOf((await syncIronic({ parent: ironic(spec, { status: { installedVersion: '38.0' } }), children: {}, related: {} } as SyncRequest, context)).children), 'Deployment ironic-service', 'ramdisk-downloader'));
  const automatic = 'localhost,127.0.0.1,::1,.svc,.svc.cluster.local,192.0.2.2';
  t.same(await sync({ networking: provisioning }), {
    HTTP_PROXY: 'http://hook-wide:1',
    http_proxy: 'http://hook-wide:1',
    HTTPS_PROXY: 'http://hook-wide:2',
    https_proxy: 'http://hook-wide:2',
    NO_PROXY: `cache.internal,${automatic}`,
    no_proxy: `cache.internal,${automatic}`,
  }, 'the hook server\'s settings alone');
  t.same(await sync({ networking: provisioning, proxy: { httpsProxy: 'http://spec:3', noProxy: 'spec.internal' } }), {
    HTTP_PROXY: 'http://hook-wide:1',
    http_proxy: 'http://hook-wide:1',
    HTTPS_PROXY: 'http://spec:3',
    https_proxy: 'http://spec:3',
    NO_PROXY: `spec.internal,${automatic}`,
    no_proxy: `spec.internal,${automatic}`,
  }, 'spec.proxy fields win, the others stay');
  const onlyNoProxy = { ...base, config: { ...base.config, downloaderEnv: { NO_PROXY: 'cache.internal' } } };
  const env = envOf(podsOf((await syncIronic({ parent: ironic({ networking: provisioning }, { status: { installedVersion: '38.0' } }), children: {}, related: {} } as SyncRequest, onlyNoProxy)).children), 'Deployment ironic-service', 'ramdisk-downloader');
  t.same(proxyOf(env), { NO_PROXY: 'cache.internal', no_proxy: 'cache.internal' }, 'without a proxy, NO_PROXY is passed as given');
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const vrrpSecret = (password: string): Obj => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vrrp', namespace: 'metal3' }, data: { password: b64(password) } });

/**
 * What the keepalived image's start script (utility-images keepalived/manage-keepalived.sh) does with the file
 * at /etc/keepalived/keepalived.conf: copy it, then replace INTERFACE with the first VIP's interface and
 * CHANGEIP with the VIPs (`ip/prefix dev interface`, one per line), everywhere in the file (sed `s~...~...~g`).
 */
const startScript = (template: string, vips: string): string => {
  const entries = vips.split(' ').map((entry) => entry.split(','));
  const addresses = entries.map(([ip = '', iface = '', prefix]) => `${ip}/${prefix ?? (ip.includes(':') ? '128' : '32')} dev ${iface}`).join('\n        ');
  return template.replaceAll('INTERFACE', entries[0]?.[1] ?? '').replaceAll('CHANGEIP', addresses);
};

t.test('keepalived: the router ID and password reach the configuration the image\'s start script writes', async (t) => {
  const spec = { networking: { ...provisioning, dhcp, keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' }, additionalVIPs: [{ ipAddress: '192.0.2.3', interface: 'eth2' }] } } };
  const { children } = await syncFor(spec, [vrrpSecret(' Vr7p-pw\n')]);
  const secrets = (children as Obj[]).filter((c) => c['kind'] === 'Secret' && String((c['metadata'] as Obj)['name']).startsWith('ironic-keepalived-'));
  t.equal(secrets.length, 1, 'one Secret with the configuration (it holds the password: never a ConfigMap)');
  const template = Buffer.from(String(((secrets[0] ?? {})['data'] as Obj)['keepalived.conf']), 'base64').toString('utf8');
  const pod = podsOf(children)['Deployment ironic-service'];
  const keepalived = pod?.containers.find((c) => c.name === 'keepalived');
  t.same(keepalived?.volumeMounts, [{ name: 'keepalived-config', mountPath: '/etc/keepalived/keepalived.conf', subPath: 'keepalived.conf', readOnly: true }], 'mounted over the file the script copies');
  t.same(pod?.volumes.find((v) => v.name === 'keepalived-config'), { name: 'keepalived-config', secret: { secretName: (secrets[0]?.['metadata'] as Obj)['name'], items: [{ key: 'keepalived.conf', path: 'keepalived.conf' }] } });
  const vips = envOf(podsOf(children), 'Deployment ironic-service', 'keepalived')['KEEPALIVED_VIRTUAL_IPS'] ?? '';
  const written = startScript(template, vips);
  t.match(written, /\n {4}interface eth1\n {4}virtual_router_id 42\n/, 'the interface and the router ID');
  t.match(written, /\n {4}authentication \{\n {8}auth_type PASS\n {8}auth_pass Vr7p-pw\n {4}\}\n/, 'PASS authentication with the trimmed password');
  t.match(written, /virtual_ipaddress \{\n {8}192\.0\.2\.2\/24 dev eth1\n {8}192\.0\.2\.3\/32 dev eth2\n {4}\}/, 'the VIPs');
  t.notMatch(written, /INTERFACE|CHANGEIP/, 'no placeholder left');

  const again = await syncFor(spec, [vrrpSecret(' Vr7p-pw\n')]);
  t.same(again.children, children, 'deterministic');
  const rotated = await syncFor(spec, [vrrpSecret('n3w-pw')]);
  const rotatedName = (rotated.children as Obj[]).map((c) => String((c['metadata'] as Obj)['name'])).find((n) => n.startsWith('ironic-keepalived-'));
  t.not(rotatedName, (secrets[0]?.['metadata'] as Obj)['name'], 'a new password is a new Secret, so the pod rolls');

  const routerOnly = await syncFor({ networking: { ...provisioning, keepalived: { enabled: true, vrid: 7 } } });
  const only = (routerOnly.children as Obj[]).find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-keepalived-'));
  const onlyTemplate = Buffer.from(String((only?.['data'] as Obj)['keepalived.conf']), 'base64').toString('utf8');
  t.match(onlyTemplate, /virtual_router_id 7\n/);
  t.notMatch(onlyTemplate, /authentication/, 'no authentication without a password');
  const plain = await syncFor({ networking: { ...provisioning, keepalived: { enabled: true } } });
  t.notOk((plain.children as Obj[]).some((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-keepalived-')), 'without either, the image\'s own file');
  t.notOk('volumeMounts' in (podsOf(plain.children)['Deployment ironic-service']?.containers.find((c) => c.name === 'keepalived') ?? {}));
});

t.test('keepalived: a VRRP password keepalived would cut or misread is refused, naming the Secret', async (t) => {
  const spec = { networking: { ...provisioning, keepalived: { enabled: true, passwordRef: { name: 'vrrp' } } } };
  const cases: readonly [string, string, RegExp][] = [
    ['longer than 8', '123456789', /has 9 characters, but VRRP PASS authentication keeps only 8/],
    ['empty', ' \n', /is empty/],
    ['a space', 'a b', /printable ASCII characters other than spaces/],
    ['a comment sign', 'ab#c', /other than spaces, quotes, #, !/],
    ['a quote', 'ab"c', /quotes/],
    ['the image placeholder', 'CHANGEIP', /cannot be CHANGEIP/],
  ];
  for (const [name, password, message] of cases) {
    const { status } = await syncFor(spec, [vrrpSecret(password)]);
    const ready = ((status as Obj)['conditions'] as Obj[])[0] ?? {};
    t.equal(ready['status'], 'False', `${name}: not ready`);
    t.match(String(ready['message']), /spec\.networking\.keepalived\.passwordRef\.name/, `${name}: names the field`);
    t.match(String(ready['message']), message, name);
  }
  const missingKey = await syncFor(spec, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vrrp', namespace: 'metal3' }, data: {} }]);
  t.match(String((((missingKey.status as Obj)['conditions'] as Obj[])[0] ?? {})['message']), /is empty/, 'no password key');
});
