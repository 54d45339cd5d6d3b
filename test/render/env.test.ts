/**
 * The image contract, as a table: for each spec, the variables and mounts each container must have
 * (ironic-image scripts; see the quirks Q1, Q2, Q6, Q8, Q13 they work around).
 */
import fc from 'fast-check';
import t from 'tap';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { dedupeEnv } from '../../src/render/ironic/facts.js';
import { containerOf, envOf, podOf, syncFor } from '../helpers/render.js';
import { TLS_SECRET, configMap } from '../fixtures/ironic-scenarios.js';
import type { Obj } from '../helpers/hooks.js';
import { OTHER_CA_PEM, TEST_CA_PEM } from '../fixtures/tls.js';

type Case = {
  scenario: string;
  spec: Obj;
  related?: Obj[];
  container: string;
  present?: Record<string, string>;
  absent?: string[];
};

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const dhcp = { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' };

const cases: Case[] = [
  {
    scenario: 'ironic: ports, provisioning network, SQLite, auth',
    spec: { networking: provisioning },
    container: 'ironic',
    present: {
      IRONIC_LISTEN_PORT: '6385',
      IRONIC_ACCESS_PORT: '6385',
      HTTP_PORT: '6180',
      LISTEN_ALL_INTERFACES: 'true',
      PROVISIONING_IP: '192.0.2.2',
      PROVISIONING_INTERFACE: 'eth1',
      IRONIC_USE_MARIADB: 'false',
      IRONIC_EXPOSE_JSON_RPC: 'false',
      IRONIC_JSON_RPC_PORT: '6189',
      IRONIC_HTPASSWD: '<secretKeyRef>',
    },
    absent: ['IRONIC_REVERSE_PROXY_SETUP', 'IRONIC_PRIVATE_PORT', 'VMEDIA_TLS_PORT', 'IRONIC_SKIP_DBSYNC'],
  },
  {
    scenario: 'no provisioning hint: the node IP from the downward API',
    spec: {},
    container: 'ironic',
    present: { PROVISIONING_IP: '<fieldRef>' },
    absent: ['PROVISIONING_INTERFACE', 'PROVISIONING_MACS'],
  },
  {
    scenario: 'MACs only',
    spec: { networking: { macAddresses: ['52:54:00:00:00:01', '52:54:00:00:00:02'] } },
    container: 'httpd',
    present: { PROVISIONING_MACS: '52:54:00:00:00:01,52:54:00:00:00:02' },
    absent: ['PROVISIONING_IP'],
  },
  {
    scenario: 'bindInterface listens on the provisioning address only',
    spec: { networking: { ...provisioning, bindInterface: true } },
    container: 'ironic',
    present: { LISTEN_ALL_INTERFACES: 'false' },
  },
  {
    scenario: 'custom ports reach every container',
    spec: { networking: { ...provisioning, apiPort: 7385, imageServerPort: 7180, rpcPort: 7189 } },
    container: 'httpd',
    present: { IRONIC_LISTEN_PORT: '7385', IRONIC_ACCESS_PORT: '7385', HTTP_PORT: '7180' },
  },
  {
    scenario: 'TLS: ironic behind httpd on a unix socket, VMEDIA_TLS_PORT given to ironic too (Q1)',
    spec: { networking: provisioning, tls: { certificateName: 'ironic-tls' } },
    related: [TLS_SECRET],
    container: 'ironic',
    present: { IRONIC_PRIVATE_PORT: 'unix', IRONIC_REVERSE_PROXY_SETUP: 'true', VMEDIA_TLS_PORT: '6183', IRONIC_CACERT_FILE: '/certs/ironic/ca.crt' },
    absent: ['IRONIC_HTPASSWD'],
  },
  {
    scenario: 'TLS: httpd authenticates',
    spec: { networking: provisioning, tls: { certificateName: 'ironic-tls' } },
    related: [TLS_SECRET],
    container: 'httpd',
    present: { IRONIC_PRIVATE_PORT: 'unix', IRONIC_REVERSE_PROXY_SETUP: 'true', VMEDIA_TLS_PORT: '6183', IRONIC_HTPASSWD: '<secretKeyRef>' },
  },
  {
    scenario: 'TLS without virtual media TLS',
    spec: { networking: provisioning, tls: { certificateName: 'ironic-tls', disableVirtualMediaTLS: true } },
    related: [TLS_SECRET],
    container: 'ironic',
    present: { IRONIC_REVERSE_PROXY_SETUP: 'true' },
    absent: ['VMEDIA_TLS_PORT'],
  },
  {
    scenario: 'external database: MariaDB, no dbsync in the pod',
    spec: { networking: provisioning, database: { host: 'db.example.com', name: 'ironic', credentialsName: 'db' } },
    container: 'ironic',
    present: { IRONIC_USE_MARIADB: 'true', MARIADB_HOST: 'db.example.com', MARIADB_DATABASE: 'ironic', IRONIC_SKIP_DBSYNC: 'true' },
  },
  {
    scenario: 'inspection settings reach httpd, which renders inspector.ipxe (Q2)',
    spec: { networking: provisioning, inspection: { vlanInterfaces: ['eth0.100', 'eth1'], collectors: ['default', 'lldp'] } },
    container: 'httpd',
    present: { IRONIC_ENABLE_VLAN_INTERFACES: 'eth0.100,eth1', IRONIC_IPA_COLLECTORS: 'default,lldp' },
  },
  {
    scenario: 'trusted CA reaches httpd too (Q13)',
    spec: { networking: provisioning, tls: { trustedCAName: 'trusted' } },
    related: [configMap('trusted', { 'z.pem': OTHER_CA_PEM, 'a.pem': TEST_CA_PEM })],
    container: 'httpd',
    present: { WEBSERVER_CACERT_FILE: '/certs/ca/trusted/a.pem' },
  },
  {
    scenario: 'ramdisk settings are trimmed',
    spec: { networking: provisioning, deployRamdisk: { extraKernelParams: ' console=ttyS0 ', sshKey: 'ssh-ed25519 AAAA\n' } },
    container: 'ironic',
    present: { IRONIC_KERNEL_PARAMS: 'console=ttyS0', IRONIC_RAMDISK_SSH_KEY: 'ssh-ed25519 AAAA' },
  },
  {
    scenario: 'agent images by architecture',
    spec: {
      networking: provisioning,
      overrides: {
        agentImages: [
          { kernel: 'http://a/k', initramfs: 'http://a/i' },
          { kernel: 'http://b/k', initramfs: 'http://b/i', architecture: 'aarch64' },
        ],
      },
    },
    container: 'ironic',
    present: {
      DEPLOY_KERNEL_URL: 'http://a/k',
      DEPLOY_RAMDISK_URL: 'http://a/i',
      DEPLOY_KERNEL_BY_ARCH: 'aarch64:http://b/k',
      DEPLOY_RAMDISK_BY_ARCH: 'aarch64:http://b/i',
    },
  },
  {
    scenario: 'extraConfig: OS_<GROUP>__<NAME>, dashes as underscores, empty entries skipped',
    spec: { networking: provisioning, extraConfig: [{ group: 'json-rpc', name: 'max-retries', value: '5' }, { name: 'debug', value: 'true' }, { name: 'x' }] },
    container: 'ironic',
    present: { OS_JSON_RPC__MAX_RETRIES: '5', OS_DEFAULT__DEBUG: 'true' },
    absent: ['OS_DEFAULT__X'],
  },
  {
    scenario: 'externalIP',
    spec: { networking: { ...provisioning, externalIP: '203.0.113.5' } },
    container: 'ironic',
    present: { IRONIC_EXTERNAL_IP: '203.0.113.5' },
  },
  {
    scenario: 'ingress: external URLs default to the ingress host',
    spec: { networking: { disableHostNetwork: true, ingress: { host: 'ironic.example.com' } } },
    container: 'ironic',
    present: {
      IRONIC_EXTERNAL_CALLBACK_URL: 'https://ironic.example.com',
      IRONIC_EXTERNAL_HTTP_URL: 'https://ironic.example.com',
      PROVISIONING_IP: '<fieldRef>',
    },
  },
  {
    scenario: 'exporter: sensor data',
    spec: { networking: provisioning, prometheusExporter: { enabled: true } },
    container: 'ironic',
    present: { SEND_SENSOR_DATA: 'true', OS_SENSOR_DATA__INTERVAL: '160' },
  },
  {
    scenario: 'exporter container',
    spec: { networking: provisioning, prometheusExporter: { enabled: true, bindAddress: '192.0.2.2' } },
    container: 'ironic-prometheus-exporter',
    present: { FLASK_RUN_HOST: '192.0.2.2', FLASK_RUN_PORT: '9608' },
  },
  {
    scenario: 'dnsmasq: IPv4 range with a dotted mask, DNS served on the provisioning IP and announced',
    spec: { networking: { ...provisioning, dhcp: { ...dhcp, serveDNS: true, gatewayAddress: '192.0.2.1' } } },
    container: 'dnsmasq',
    present: {
      DHCP_RANGE: '192.0.2.10,192.0.2.100,255.255.255.0',
      DNS_IP: 'provisioning',
      DNS_PORT: '53',
      GATEWAY_IP: '192.0.2.1',
      PROVISIONING_IP: '192.0.2.2',
    },
  },
  {
    scenario: 'dnsmasq: IPv6 range with a prefix length, another DNS server announced and none served',
    spec: { networking: { interface: 'eth1', dhcp: { networkCIDR: 'fd00::/64', rangeBegin: 'fd00::10', rangeEnd: 'fd00::ff', dnsAddress: 'fd00::1' } } },
    container: 'dnsmasq',
    present: { DHCP_RANGE: 'fd00::10,fd00::ff,64', DNS_IP: 'fd00::1' },
    absent: ['DNS_PORT'],
  },
  {
    scenario: 'dnsmasq: no DNS server announced nor served',
    spec: { networking: { ...provisioning, dhcp } },
    container: 'dnsmasq',
    absent: ['DNS_IP', 'DNS_PORT'],
  },
  {
    scenario: 'dnsmasq: extra ranges are tagged, routers per range',
    spec: {
      networking: {
        ...provisioning,
        dhcp: {
          ...dhcp,
          gatewayAddress: '192.0.2.1',
          extraRanges: [{ networkCIDR: '198.51.100.0/24', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20' }],
        },
      },
    },
    container: 'dnsmasq',
    present: {
      DHCP_RANGE: '192.0.2.10,192.0.2.100,255.255.255.0;set:range_1,198.51.100.10,198.51.100.20,255.255.255.0',
      DHCP_OPTIONS: 'tag:range_1,option:router',
    },
  },
  {
    scenario: 'keepalived: the main VIP takes the prefix of the DHCP network',
    spec: { networking: { ...provisioning, dhcp, keepalived: { enabled: true } } },
    container: 'keepalived',
    present: { KEEPALIVED_VIRTUAL_IPS: '192.0.2.2,eth1,24' },
  },
  {
    scenario: 'keepalived, legacy mode',
    spec: { networking: { ...provisioning, ipAddressManager: 'keepalived' } },
    container: 'keepalived',
    present: { PROVISIONING_IP: '192.0.2.2', PROVISIONING_INTERFACE: 'eth1' },
    absent: ['KEEPALIVED_VIRTUAL_IPS'],
  },
  {
    scenario: 'downloader branch',
    spec: { networking: provisioning, images: { deployRamdiskBranch: 'stable/2025.1' } },
    container: 'ramdisk-downloader',
    present: { IPA_BRANCH: 'stable/2025.1' },
  },
];

for (const c of cases) {
  t.test(c.scenario, async (t) => {
    const response = await syncFor(c.spec, c.related);
    const env = envOf(containerOf(podOf(response.children), c.container));
    for (const [name, value] of Object.entries(c.present ?? {})) t.equal(env[name], value, `${c.container} ${name}`);
    for (const name of c.absent ?? []) t.notOk(name in env, `${c.container} has no ${name}`);
  });
}

t.test('no variable is ever empty (the image treats empty and unset differently)', async (t) => {
  for (const c of cases) {
    const pod = podOf((await syncFor(c.spec, c.related)).children);
    for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
      for (const e of container.env ?? []) t.ok(e.value === undefined || e.value !== '', `${c.scenario}: ${container.name} ${e.name}`);
    }
  }
});

t.test('mounts: /shared everywhere, certificates only with TLS, writable /conf /data /tmp for read-only containers (Q8)', async (t) => {
  const pod = podOf(
    (
      await syncFor({ networking: provisioning, tls: { certificateName: 'ironic-tls' }, database: { host: 'h', name: 'n', credentialsName: 'db' } }, [
        TLS_SECRET,
      ])
    ).children,
  );
  for (const name of ['ironic', 'httpd']) {
    const mounts = Object.fromEntries((containerOf(pod, name)?.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
    t.equal(mounts['/shared'], 'ironic-shared', `${name} /shared`);
    t.equal(mounts['/certs/ironic'], 'cert-ironic', `${name} /certs/ironic`);
    t.equal(mounts['/certs/vmedia'], 'cert-ironic', `${name} /certs/vmedia`);
    t.equal(mounts['/auth/mariadb'], 'auth-mariadb', `${name} /auth/mariadb`);
  }
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    if (container.securityContext?.readOnlyRootFilesystem !== true) continue;
    const paths = (container.volumeMounts ?? []).map((m) => m.mountPath);
    for (const dir of ['/conf', '/data', '/tmp']) t.ok(paths.includes(dir), `${container.name} can write ${dir}`);
  }
  const volumes = pod.volumes.map((v) => v.name);
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    for (const m of container.volumeMounts ?? []) t.ok(volumes.includes(m.name), `${container.name} mounts an existing volume ${m.name}`);
  }
});

t.test('ports: API on ironic without TLS and on httpd with TLS; hostPort only on the host network', async (t) => {
  const plain = podOf((await syncFor({ networking: provisioning })).children);
  t.same(
    containerOf(plain, 'ironic')?.ports?.map((p) => [p.name, p.containerPort, p.hostPort]),
    [['ironic-api', 6385, 6385]],
  );
  const tls = podOf((await syncFor({ networking: provisioning, tls: { certificateName: 'ironic-tls' } }, [TLS_SECRET])).children);
  t.equal(containerOf(tls, 'ironic')?.ports, undefined);
  t.same(
    containerOf(tls, 'httpd')?.ports?.map((p) => p.name),
    ['image-svc', 'ironic-api', 'image-svc-tls'],
  );
  const cluster = podOf((await syncFor({ networking: { disableHostNetwork: true } })).children);
  t.equal(cluster.hostNetwork, false);
  t.equal(cluster.dnsPolicy, 'ClusterFirst');
  t.equal(containerOf(cluster, 'ironic')?.ports?.[0]?.hostPort, undefined, 'no hostPort off the host network');
});

t.test('containers present by feature', async (t) => {
  const names = async (spec: Obj): Promise<string[]> => {
    const pod = podOf((await syncFor(spec)).children);
    return [...(pod.initContainers ?? []), ...pod.containers].map((c) => c.name);
  };
  t.same(await names({ networking: provisioning }), ['ramdisk-downloader', 'ironic', 'httpd', 'ramdisk-logs']);
  t.same(await names({ networking: provisioning, deployRamdisk: { disableDownloader: true } }), ['ironic', 'httpd', 'ramdisk-logs']);
  t.same(await names({ networking: { ...provisioning, dhcp, keepalived: { enabled: true } }, prometheusExporter: { enabled: true } }), [
    'ramdisk-downloader',
    'ironic',
    'httpd',
    'ramdisk-logs',
    'dnsmasq',
    'keepalived',
    'ironic-prometheus-exporter',
  ]);
});

t.test('dedupeEnv: each name once, at its first position, with its last value', async (t) => {
  const byRule = (vars: readonly IEnvVar[]): IEnvVar[] => {
    const names = [...new Set(vars.map((v) => v.name))];
    return names.map((name) => vars.filter((v) => v.name === name).at(-1) ?? { name });
  };
  const variable = fc.record({ name: fc.constantFrom('A', 'B', 'C', 'D'), value: fc.string({ maxLength: 3 }) });
  fc.assert(
    fc.property(fc.array(variable, { maxLength: 12 }), (vars) => JSON.stringify(dedupeEnv(vars)) === JSON.stringify(byRule(vars))),
    { numRuns: 500 },
  );
  t.same(
    dedupeEnv([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
      { name: 'A', value: '3' },
    ]),
    [
      { name: 'A', value: '3' },
      { name: 'B', value: '2' },
    ],
    "a user's value replaces ours where ours was",
  );
});
