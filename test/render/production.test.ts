/**
 * What a production install sets on every pod an Ironic runs: the Ironic workload (Deployment or
 * DaemonSet), the upgrade Jobs and the networking service.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncIronic } from '../../src/hooks/ironic.js';
import { ironic, syncRequest, testContext, type Obj } from '../helpers/hooks.js';
import { podSpecOf, podTemplateOf, syncFor, type PodSpec } from '../helpers/render.js';
import { availableDeployment, observeAll } from '../helpers/k8s.js';
import { contentHash } from '../../src/render/meta.js';
import { DEFAULT_CONTAINER_REQUESTS, IRONIC_CONTAINER_NAMES } from '../../src/api/ironic/schema.js';
import { objAt, objsAt, valueAt } from '../support/paths.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };

/** Every pod template of the children, by `<kind> <name>`. */
const podsOf = (children: readonly unknown[]): Record<string, PodSpec> =>
  Object.fromEntries(
    objsAt(children).flatMap((c) => {
      const template = podTemplateOf(c);
      return template === undefined ? [] : [[`${String(c['kind'])} ${String(objAt(c, 'metadata')['name'])}`, podSpecOf(template.spec)]];
    }),
  );

/** A first install with a database: the pre-upgrade Job is rendered. */
const firstInstall = async (spec: Obj) => syncIronic(syncRequest({ parent: ironic(spec), children: {}, related: {} }), testContext());

/** The same, once the pre-upgrade Job completed and the Deployment is available: the post-upgrade Job. */
const afterPreUpgrade = async (spec: Obj) => {
  const first = await firstInstall(spec);
  const complete = { conditions: [{ type: 'Complete', status: 'True' }] };
  const children = observeAll(objsAt(first, 'children'), {}, (o) => (o['kind'] === 'Job' ? complete : undefined));
  const second = await syncIronic(syncRequest({ parent: ironic(spec, { status: first.status }), children, related: {} }), testContext());
  const observed = observeAll(objsAt(second, 'children'), children, (o) =>
    o['kind'] === 'Deployment' ? availableDeployment(o) : o['kind'] === 'Job' ? complete : undefined,
  );
  return syncIronic(syncRequest({ parent: ironic(spec, { status: second.status }), children: observed, related: {} }), testContext());
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
    {
      name: 'upgrade Job',
      pods: podsOf((await firstInstall({ networking: provisioning, database, priorityClassName: 'ironic-critical' })).children),
      expected: ['Job ironic-pre-none-to-38.0'],
    },
  ];
  for (const c of cases) {
    t.same(Object.keys(c.pods).sort(), [...c.expected].sort(), `${c.name}: the pods rendered`);
    for (const [name, pod] of Object.entries(c.pods)) t.equal(pod.priorityClassName, 'ironic-critical', `${c.name}: ${name}`);
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
  Object.fromEntries(
    Object.entries(pods).flatMap(([pod, spec]) => [...(spec.initContainers ?? []), ...spec.containers].map((c) => [`${pod}/${c.name}`, c.resources])),
  );

t.test('no container is BestEffort: every container of every pod has CPU and memory requests', async (t) => {
  const resources = {
    ...resourcesOf(podsOf((await syncFor(everything)).children)),
    ...resourcesOf(podsOf((await syncFor({ highAvailability: true, database, tls: { generateCertificate: true } })).children)),
    ...resourcesOf(podsOf((await firstInstall({ networking: provisioning, database })).children)),
    ...resourcesOf(podsOf((await afterPreUpgrade({ networking: provisioning, database })).children)),
  };
  const containers = Object.keys(resources).map((k) => k.slice(k.indexOf('/') + 1));
  t.same(
    [...new Set(containers)].sort(),
    [...IRONIC_CONTAINER_NAMES].sort(),
    'every container of DEFAULT_CONTAINER_REQUESTS is rendered somewhere, and no other',
  );
  for (const [container, value] of Object.entries(resources)) {
    const name = IRONIC_CONTAINER_NAMES.find((n) => n === container.slice(container.indexOf('/') + 1));
    t.same(value, { requests: name === undefined ? undefined : DEFAULT_CONTAINER_REQUESTS[name] }, `${container}: the default requests`);
  }
});

t.test('spec.resources reaches its container, canonical; an override container keeps its own resources', async (t) => {
  const spec = {
    ...everything,
    resources: {
      ironic: { requests: { memory: '1024Mi' }, limits: { memory: '4096Mi' } },
      keepalived: { limits: { cpu: '2m' } },
      'ironic-networking': { requests: { cpu: '0.2' } },
    },
    overrides: { containers: [{ name: 'httpd', image: 'registry.example.com/httpd:1', resources: { requests: { cpu: '1' } } }] },
  };
  const resources = resourcesOf(podsOf((await syncFor(spec)).children));
  t.same(resources['Deployment ironic-service/ironic'], { requests: { cpu: '100m', memory: '1Gi' }, limits: { memory: '4Gi' } });
  t.same(
    resources['Deployment ironic-service/keepalived'],
    { requests: { cpu: '2m', memory: '16Mi' }, limits: { cpu: '2m' } },
    'the request is capped by the limit',
  );
  t.same(resources['Deployment ironic-networking/ironic-networking'], { requests: { cpu: '200m', memory: '128Mi' } });
  t.same(resources['Deployment ironic-service/httpd'], { requests: { cpu: '1' } }, "the override container is the user's, whole");
  const jobs = resourcesOf(
    podsOf((await firstInstall({ networking: provisioning, database, resources: { 'database-upgrade': { requests: { cpu: '1' } } } })).children),
  );
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
  const spec = {
    ...everything,
    networking: {
      ...everything.networking,
      dhcp: { ...dhcp, extraRanges: [{ networkCIDR: '198.51.100.7/24', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20' }] },
    },
    proxy,
  };
  const pods = podsOf((await syncFor(spec)).children);
  const noProxy = '.example.com,10.0.0.0/8,localhost,127.0.0.1,::1,.svc,192.0.2.2,192.0.2.0/24,198.51.100.0/24';
  const expected = {
    HTTP_PROXY: proxy.httpProxy,
    http_proxy: proxy.httpProxy,
    HTTPS_PROXY: proxy.httpsProxy,
    https_proxy: proxy.httpsProxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
  t.same(proxyOf(envOf(pods, 'Deployment ironic-service', 'ironic')), expected, 'ironic');
  t.same(proxyOf(envOf(pods, 'Deployment ironic-service', 'ramdisk-downloader')), expected, 'the downloader');
  for (const container of ['httpd', 'dnsmasq', 'keepalived', 'ramdisk-logs', 'ironic-prometheus-exporter']) {
    t.same(proxyOf(envOf(pods, 'Deployment ironic-service', container)), {}, `${container} reaches nothing outside`);
  }
  t.same(proxyOf(envOf(pods, 'Deployment ironic-networking', 'ironic-networking')), {}, 'the networking service talks SSH to switches, not HTTP');
  const job = podsOf((await firstInstall({ networking: provisioning, database, proxy: { httpsProxy: 'http://proxy:3128' } })).children);
  const jobNoProxy = 'localhost,127.0.0.1,::1,.svc,192.0.2.2';
  t.same(
    proxyOf(envOf(job, 'Job ironic-pre-none-to-38.0', 'database-upgrade')),
    { HTTPS_PROXY: 'http://proxy:3128', https_proxy: 'http://proxy:3128', NO_PROXY: jobNoProxy, no_proxy: jobNoProxy },
    'the upgrade Jobs',
  );
  const none = podsOf((await syncFor({ networking: provisioning })).children);
  t.same(proxyOf(envOf(none, 'Deployment ironic-service', 'ironic')), {}, 'no proxy, no variables');
});

t.test("the downloader: spec.proxy wins field by field over the hook server's IPA_*_PROXY settings", async (t) => {
  const base = testContext();
  const context = {
    ...base,
    config: {
      ...base.config,
      clusterDomain: 'cluster.local',
      ipaSettings: {
        IPA_BASEURI: 'https://cache.example.com',
        HTTP_PROXY: 'http://hook-wide:1',
        HTTPS_PROXY: 'http://hook-wide:2',
        NO_PROXY: 'cache.internal',
      },
    },
  };
  const sync = async (spec: Obj) =>
    proxyOf(
      envOf(
        podsOf(
          (await syncIronic(syncRequest({ parent: ironic(spec, { status: { installedVersion: '38.0' } }), children: {}, related: {} }), context)).children,
        ),
        'Deployment ironic-service',
        'ramdisk-downloader',
      ),
    );
  const automatic = 'localhost,127.0.0.1,::1,.svc,.svc.cluster.local,192.0.2.2';
  t.same(
    await sync({ networking: provisioning }),
    {
      HTTP_PROXY: 'http://hook-wide:1',
      http_proxy: 'http://hook-wide:1',
      HTTPS_PROXY: 'http://hook-wide:2',
      https_proxy: 'http://hook-wide:2',
      NO_PROXY: `cache.internal,${automatic}`,
      no_proxy: `cache.internal,${automatic}`,
    },
    "the hook server's settings alone",
  );
  t.same(
    await sync({ networking: provisioning, proxy: { httpsProxy: 'http://spec:3', noProxy: 'spec.internal' } }),
    {
      HTTP_PROXY: 'http://hook-wide:1',
      http_proxy: 'http://hook-wide:1',
      HTTPS_PROXY: 'http://spec:3',
      https_proxy: 'http://spec:3',
      NO_PROXY: `spec.internal,${automatic}`,
      no_proxy: `spec.internal,${automatic}`,
    },
    'spec.proxy fields win, the others stay',
  );
  const onlyNoProxy = { ...base, config: { ...base.config, ipaSettings: { NO_PROXY: 'cache.internal' } } };
  const env = envOf(
    podsOf(
      (
        await syncIronic(
          syncRequest({ parent: ironic({ networking: provisioning }, { status: { installedVersion: '38.0' } }), children: {}, related: {} }),
          onlyNoProxy,
        )
      ).children,
    ),
    'Deployment ironic-service',
    'ramdisk-downloader',
  );
  t.same(proxyOf(env), { NO_PROXY: 'cache.internal', no_proxy: 'cache.internal' }, 'without a proxy, NO_PROXY is passed as given');
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const vrrpSecret = (password: string, uid = '3f2a9c4e-0d1b-4e6f-9a7c-5b8d2e1f0a63'): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'vrrp', namespace: 'metal3', uid, resourceVersion: '7' },
  data: { password: b64(password) },
});

/** The keepalived image's start script, unchanged (test/fixtures/keepalived/SOURCE.md). */
const START_SCRIPT = readFileSync(new URL('../fixtures/keepalived/manage-keepalived.sh', import.meta.url), 'utf8');

/** `text` with `from` replaced once; throws when the script no longer has it (the fixture must be looked at again). */
const replaceOnce = (text: string, from: string, to: string): string => {
  if (!text.includes(from)) throw new Error(`manage-keepalived.sh no longer contains ${from}`);
  return text.replace(from, to);
};

/**
 * Runs the image's start script (bash) on `template` as the pod would with KEEPALIVED_VIRTUAL_IPS=`vips`:
 * it copies the file and replaces INTERFACE and CHANGEIP everywhere in it (sed); only the template path and
 * the final exec of keepalived are redirected. Returns the file keepalived would read.
 */
const startScript = (template: string, vips: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'keepalived-'));
  try {
    writeFileSync(join(dir, 'template.conf'), template);
    let script = replaceOnce(
      START_SCRIPT,
      "KEEPALIVED_DEFAULT_CONF='/etc/keepalived/keepalived.conf'",
      `KEEPALIVED_DEFAULT_CONF='${join(dir, 'template.conf')}'`,
    );
    script = replaceOnce(script, 'exec /usr/sbin/keepalived', 'exit 0; exec /usr/sbin/keepalived');
    execFileSync('bash', ['-c', script], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        CUSTOM_CONF_DIR: join(dir, 'conf'),
        CUSTOM_DATA_DIR: join(dir, 'data'),
        KEEPALIVED_VIRTUAL_IPS: vips,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return readFileSync(join(dir, 'conf', 'keepalived', 'keepalived.conf'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** What each block of our template may hold: keywords with their arguments, and nested blocks. */
const KEEPALIVED_GRAMMAR: Record<string, { readonly statements: Record<string, RegExp>; readonly blocks: Record<string, RegExp> }> = {
  top: { statements: {}, blocks: { vrrp_instance: /^\S+$/ } },
  vrrp_instance: {
    statements: { state: /^(MASTER|BACKUP)$/, interface: /^[A-Za-z0-9._-]+$/, virtual_router_id: /^[0-9]+$/, priority: /^[0-9]+$/, advert_int: /^[0-9]+$/ },
    blocks: { authentication: /^$/, virtual_ipaddress: /^$/ },
  },
  authentication: { statements: { auth_type: /^PASS$/, auth_pass: /^\S{1,8}$/ }, blocks: {} },
  virtual_ipaddress: { statements: {}, blocks: {} },
};

/** A line of virtual_ipaddress: `address/prefix dev interface`. */
const VIP_LINE = /^[0-9A-Fa-f.:]+\/[0-9]+ dev [A-Za-z0-9._-]+$/;

/** The lines keepalived would not take as configuration of our template's blocks (with their numbers). */
const invalidKeepalivedLines = (config: string): string[] => {
  const stack = ['top'];
  return config.split('\n').flatMap((raw, i) => {
    const line = raw.trim();
    const block = stack[stack.length - 1] ?? 'top';
    const grammar = KEEPALIVED_GRAMMAR[block];
    const bad = [`${i + 1}: ${raw}`];
    if (line === '' || (block === 'top' && /^[!#]/.test(raw))) return [];
    if (line === '}') return stack.length > 1 && stack.pop() !== undefined ? [] : bad;
    const [keyword = '', ...rest] = line.split(/\s+/);
    if (line.endsWith('{')) {
      const args = rest.slice(0, -1).join(' ');
      const pattern = grammar?.blocks[keyword];
      stack.push(keyword);
      return pattern?.test(args) === true ? [] : bad;
    }
    if (block === 'virtual_ipaddress') return VIP_LINE.test(line) ? [] : bad;
    return grammar?.statements[keyword]?.test(rest.join(' ')) === true ? [] : bad;
  });
};

t.test('keepalived: every line of the configuration the start script writes is valid, whatever the VIPs', async (t) => {
  t.same(invalidKeepalivedLines('! c\nvrrp_instance VI_1 {\n    state MASTER\n}\n'), [], 'the checker accepts a valid file');
  t.same(
    invalidKeepalivedLines('vrrp_instance VI_1 {\n}\n    192.0.2.3/32 dev eth2 are replaced\n}\n'),
    ['3:     192.0.2.3/32 dev eth2 are replaced', '4: }'],
    'and finds stray lines',
  );
  const vips = [
    [],
    [{ ipAddress: '192.0.2.3', interface: 'eth2' }],
    [
      { ipAddress: '192.0.2.3', interface: 'eth2', prefix: 24 },
      { ipAddress: '2001:db8::3', interface: 'eth3' },
    ],
  ];
  for (const additionalVIPs of vips) {
    for (const keepalived of [{ vrid: 9 }, { passwordRef: { name: 'vrrp' } }, { vrid: 9, passwordRef: { name: 'vrrp' } }]) {
      const spec = { networking: { ...provisioning, dhcp, keepalived: { enabled: true, additionalVIPs, ...keepalived } } };
      const { children } = await syncFor(spec, [vrrpSecret('Vr7p-pw')]);
      const secret = objsAt(children).find((c) => c['kind'] === 'Secret' && String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-'));
      const template = Buffer.from(String(objAt(secret, 'data')['keepalived.conf']), 'base64').toString('utf8');
      const written = startScript(template, envOf(podsOf(children), 'Deployment ironic-service', 'keepalived')['KEEPALIVED_VIRTUAL_IPS'] ?? '');
      const label = `${additionalVIPs.length} additional VIPs, ${Object.keys(keepalived).join(' and ')}`;
      t.same(invalidKeepalivedLines(written), [], `${label}: no line outside what keepalived reads`);
      t.equal(written.split('\n').filter((l) => VIP_LINE.test(l.trim())).length, additionalVIPs.length + 1, `${label}: every VIP in virtual_ipaddress`);
    }
  }
});

t.test("keepalived: the router ID and password reach the configuration the image's start script writes", async (t) => {
  const spec = {
    networking: {
      ...provisioning,
      dhcp,
      keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' }, additionalVIPs: [{ ipAddress: '192.0.2.3', interface: 'eth2' }] },
    },
  };
  const { children } = await syncFor(spec, [vrrpSecret(' Vr7p-pw\n')]);
  const secrets = objsAt(children).filter((c) => c['kind'] === 'Secret' && String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-'));
  t.equal(secrets.length, 1, 'one Secret with the configuration (it holds the password: never a ConfigMap)');
  const template = Buffer.from(String(objAt(secrets[0] ?? {}, 'data')['keepalived.conf']), 'base64').toString('utf8');
  const pod = podsOf(children)['Deployment ironic-service'];
  const keepalived = pod?.containers.find((c) => c.name === 'keepalived');
  t.same(
    keepalived?.volumeMounts,
    [{ name: 'keepalived-config', mountPath: '/etc/keepalived/keepalived.conf', subPath: 'keepalived.conf', readOnly: true }],
    'mounted over the file the script copies',
  );
  t.same(
    pod?.volumes.find((v) => v.name === 'keepalived-config'),
    { name: 'keepalived-config', secret: { secretName: objAt(secrets[0], 'metadata')['name'], items: [{ key: 'keepalived.conf', path: 'keepalived.conf' }] } },
  );
  const vips = envOf(podsOf(children), 'Deployment ironic-service', 'keepalived')['KEEPALIVED_VIRTUAL_IPS'] ?? '';
  const written = startScript(template, vips);
  t.match(written, /\n {4}interface eth1\n {4}virtual_router_id 42\n/, 'the interface and the router ID');
  t.match(written, /\n {4}authentication \{\n {8}auth_type PASS\n {8}auth_pass Vr7p-pw\n {4}\}\n/, 'PASS authentication with the trimmed password');
  t.match(written, /virtual_ipaddress \{\n {8}192\.0\.2\.2\/24 dev eth1\n {8}192\.0\.2\.3\/32 dev eth2\n {4}\}/, 'the VIPs');
  t.notMatch(written, /INTERFACE|CHANGEIP/, 'no placeholder left');

  const again = await syncFor(spec, [vrrpSecret(' Vr7p-pw\n')]);
  t.same(again.children, children, 'deterministic');
  const rotated = await syncFor(spec, [vrrpSecret('n3w-pw')]);
  const rotatedName = objsAt(rotated.children)
    .map((c) => String(objAt(c, 'metadata')['name']))
    .find((n) => n.startsWith('ironic-keepalived-'));
  t.not(rotatedName, objAt(secrets[0], 'metadata')['name'], 'a new password is a new Secret, so the pod rolls');

  const routerOnly = await syncFor({ networking: { ...provisioning, keepalived: { enabled: true, vrid: 7 } } });
  const only = objsAt(routerOnly.children).find((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-'));
  const onlyTemplate = Buffer.from(String(objAt(only, 'data')['keepalived.conf']), 'base64').toString('utf8');
  t.match(onlyTemplate, /virtual_router_id 7\n/);
  t.notMatch(onlyTemplate, /authentication/, 'no authentication without a password');
  const plain = await syncFor({ networking: { ...provisioning, keepalived: { enabled: true } } });
  t.notOk(
    objsAt(plain.children).some((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-')),
    "without either, the image's own file",
  );
  t.notOk('volumeMounts' in (podsOf(plain.children)['Deployment ironic-service']?.containers.find((c) => c.name === 'keepalived') ?? {}));
});

t.test('keepalived: the name of the configuration Secret, in the pod spec, does not let anyone try passwords against it', async (t) => {
  const spec = { networking: { ...provisioning, keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' } } } };
  const nameOf = (children: readonly unknown[]): string => {
    const secret = objsAt(children).find((c) => c['kind'] === 'Secret' && String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-'));
    return String(valueAt(secret, 'metadata', 'name'));
  };
  const { children } = await syncFor(spec, [vrrpSecret('Vr7p-pw')]);
  const name = nameOf(children);
  const volume = podsOf(children)['Deployment ironic-service']?.volumes.find((v) => v.name === 'keepalived-config');
  t.same(
    volume,
    { name: 'keepalived-config', secret: { secretName: name, items: [{ key: 'keepalived.conf', path: 'keepalived.conf' }] } },
    'the name is what the pod spec shows',
  );
  // What anyone who can read the pod spec but not Secrets could do: the template is known but for the password.
  const secret = objsAt(children).find((c) => String(objAt(c, 'metadata')['name']) === name);
  const template = Buffer.from(String(objAt(secret, 'data')['keepalived.conf']), 'base64').toString('utf8');
  const guess = (password: string): string => {
    const candidate = template.replace('auth_pass Vr7p-pw', `auth_pass ${password}`);
    return `ironic-keepalived-${contentHash(candidate).slice(0, 10)}`;
  };
  t.not(guess('Vr7p-pw'), name, 'the right password does not give the name from the template alone');
  t.equal(nameOf((await syncFor(spec, [vrrpSecret('Vr7p-pw')])).children), name, 'the same password and Secret: the same name (no churn)');
  t.not(nameOf((await syncFor(spec, [vrrpSecret('n3w-pw')])).children), name, 'a new password: a new name, so the pod rolls');
  t.not(nameOf((await syncFor(spec, [vrrpSecret('Vr7p-pw', '0b6e1d2c-7a8f-4c3b-9e5d-1f2a3b4c5d6e')])).children), name, "the key is the Secret's uid");
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
    const ready = objsAt(status, 'conditions')[0] ?? {};
    t.equal(ready['status'], 'False', `${name}: not ready`);
    t.match(String(ready['message']), /spec\.networking\.keepalived\.passwordRef\.name/, `${name}: names the field`);
    t.match(String(ready['message']), message, name);
  }
  const missingKey = await syncFor(spec, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vrrp', namespace: 'metal3' }, data: {} }]);
  t.match(String(objsAt(missingKey.status, 'conditions')[0]?.['message']), /is empty/, 'no password key');
});
