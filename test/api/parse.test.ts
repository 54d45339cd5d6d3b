/**
 * parseIronic / parseIronicDatabase: every default, parsed network and derived switch of the model,
 * as tables; and the refusal of anything validation refuses.
 */
import t from 'tap';
import { keepalivedSettings } from '../../src/render/ironic/features/keepalived.js';
import { DEFAULT_CONTAINER_REQUESTS, IRONIC_CONTAINER_NAMES } from '../../src/api/ironic/schema.js';
import {
  DEFAULT_DATABASE_SIZE,
  DEFAULT_EXPORTER_BIND_ADDRESS,
  DEFAULT_PORTS,
  DEFAULT_SENSOR_INTERVAL,
  MIN_SENSOR_INTERVAL,
} from '../../src/api/shared/constants.js';
import type { IronicDatabaseModel } from '../../src/api/ironic-database/model.js';
import type { IronicModel } from '../../src/api/ironic/model.js';
import { parseIronic, parsedIronicSpecs } from '../../src/api/ironic/parse.js';
import { parseIronicDatabase, parsedIronicDatabaseSpecs } from '../../src/api/ironic-database/parse.js';
import { parseIronicImageCache } from '../../src/api/ironic-image-cache/parse.js';
import { DEFAULT_VERSION } from '../../src/api/shared/version.js';

const model = (spec: unknown): IronicModel => {
  const parsed = parseIronic(spec);
  if (!parsed.ok) throw new Error(`unexpected problems: ${JSON.stringify(parsed.problems)}`);
  return parsed.model;
};

const databaseModel = (spec: unknown): IronicDatabaseModel => {
  const parsed = parseIronicDatabase(spec);
  if (!parsed.ok) throw new Error(`unexpected problems: ${JSON.stringify(parsed.problems)}`);
  return parsed.model;
};

t.test('every container gets its default requests, changed per container and per resource by spec.resources', async (t) => {
  const defaults = model({}).resources;
  t.same(Object.keys(defaults), [...IRONIC_CONTAINER_NAMES], 'every container has resources');
  for (const name of IRONIC_CONTAINER_NAMES) t.same(defaults[name], { requests: DEFAULT_CONTAINER_REQUESTS[name] }, `${name}: the default requests, no limits`);
  const changed = model({
    resources: {
      ironic: { requests: { memory: '1024Mi', 'ephemeral-storage': '1Gi' }, limits: { memory: 2147483648, cpu: '0.5' } },
      httpd: { limits: { memory: '32Mi', cpu: '1' } },
      dnsmasq: { requests: { cpu: 0 } },
    },
  }).resources;
  t.same(
    changed.ironic,
    { requests: { cpu: '100m', 'ephemeral-storage': '1Gi', memory: '1Gi' }, limits: { cpu: '500m', memory: '2147483648' } },
    'a request replaces the default of its resource; canonical and sorted',
  );
  t.same(
    changed.httpd,
    { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } },
    'a limit below the default request lowers it; a higher one does not',
  );
  t.same(changed.dnsmasq, { requests: { cpu: '0', memory: '16Mi' } }, 'a zero request is kept');
  t.same(changed.keepalived, { requests: DEFAULT_CONTAINER_REQUESTS.keepalived }, 'other containers keep their defaults');
  t.same(model({ resources: { ironic: { limits: {} } } }).resources.ironic, { requests: DEFAULT_CONTAINER_REQUESTS.ironic }, 'empty limits are no limits');
});

t.test('the default ports are the upstream ones, and the image default for iPXE over TLS (which upstream lacks)', async (t) => {
  t.same(DEFAULT_PORTS, { apiPort: 6385, imageServerPort: 6180, imageServerTLSPort: 6183, rpcPort: 6189, prometheusExporterPort: 9608, ipxeTLSPort: 8084 });
});

t.test('an empty spec gets every default', async (t) => {
  const m = model({});
  const n = m.networking;
  t.same([n.apiPort, n.imageServerPort, n.imageServerTLSPort, n.rpcPort, n.prometheusExporterPort], [6385, 6180, 6183, 6189, 9608]);
  t.equal(n.hostNetwork, true, 'the host network by default');
  t.equal(n.bindInterface, false);
  t.same(n.macAddresses, []);
  t.equal(m.version, DEFAULT_VERSION);
  t.equal(m.version, '38.0');
  t.equal(m.highAvailability, false);
  t.same(m.tls, { enabled: false, generate: false, virtualMedia: false, insecureRPC: false, ipxe: false }, 'TLS off');
  t.same(m.database, { kind: 'none' });
  t.equal(m.apiCredentialsName, undefined, 'generated credentials');
  t.same(m.images, {});
  t.same(m.ramdisk, { downloader: true, imagesByArch: [], customImages: false, servesKernel: true });
  t.same(m.inspection, { collectors: [], vlanInterfaces: [] });
  t.same(m.extraConfig, []);
  t.notOk('exporter' in m, 'no exporter is invented');
  t.notOk('networkingService' in m, 'no networking service is invented');
  t.notOk('dhcp' in n || 'keepalived' in n || 'ingress' in n, 'no DHCP, keepalived or Ingress');
  t.same(m.scheduling, { nodeSelector: {}, tolerations: [], imagePullSecrets: [] });
  t.same(m.overrides, { labels: {}, annotations: {}, containers: [], initContainers: [], volumes: [] });
});

t.test('explicit values are kept; empty strings get defaults', async (t) => {
  const m = model({
    version: 'latest',
    apiCredentialsName: '',
    networking: { apiPort: 8385, imageServerTLSPort: 8443, prometheusExporterPort: 9999, disableHostNetwork: true, externalIP: '192.0.2.2' },
  });
  t.same([m.networking.apiPort, m.networking.imageServerPort, m.networking.imageServerTLSPort, m.networking.rpcPort], [8385, 6180, 8443, 6189]);
  t.equal(m.networking.hostNetwork, false);
  t.equal(m.networking.externalIP, '192.0.2.2');
  t.equal(m.version, 'latest');
  t.equal(m.apiCredentialsName, undefined, 'an empty name means generated');
});

t.test('the exporter is modelled only when enabled, with its defaults', async (t) => {
  t.same(model({ prometheusExporter: { enabled: true } }).exporter, {
    bindAddress: DEFAULT_EXPORTER_BIND_ADDRESS,
    sensorCollectionInterval: DEFAULT_SENSOR_INTERVAL,
    serviceMonitor: true,
  });
  t.notOk('exporter' in model({ prometheusExporter: { enabled: false } }));
  t.same(model({ prometheusExporter: { enabled: true, bindAddress: '', sensorCollectionInterval: 120, disableServiceMonitor: true } }).exporter, {
    bindAddress: '0.0.0.0',
    sensorCollectionInterval: 120,
    serviceMonitor: false,
  });
});

t.test('a sensor interval below the minimum is raised to it and remembered; not positive is the default', async (t) => {
  const interval = (sensorCollectionInterval: number) => model({ prometheusExporter: { enabled: true, sensorCollectionInterval } }).exporter;
  t.match(interval(60), { sensorCollectionInterval: MIN_SENSOR_INTERVAL, sensorCollectionIntervalRaisedFrom: 60 });
  t.match(interval(119), { sensorCollectionInterval: MIN_SENSOR_INTERVAL, sensorCollectionIntervalRaisedFrom: 119 });
  t.notOk('sensorCollectionIntervalRaisedFrom' in (interval(120) ?? {}));
  t.equal(interval(300)?.sensorCollectionInterval, 300);
  t.same(interval(0), { bindAddress: DEFAULT_EXPORTER_BIND_ADDRESS, sensorCollectionInterval: DEFAULT_SENSOR_INTERVAL, serviceMonitor: true });
});

t.test('DHCP networks are parsed once: pools, masks and families', async (t) => {
  const cases = [
    {
      scenario: 'IPv4 main pool: a dotted mask',
      dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' },
      main: { begin: '192.0.2.10', end: '192.0.2.100', family: 'ipv4', prefixLength: 24, mask: '255.255.255.0' },
      families: ['ipv4'],
    },
    {
      scenario: 'IPv6 main pool: a prefix length',
      dhcp: { networkCIDR: '2001:db8::/64', rangeBegin: '2001:db8::10', rangeEnd: '2001:db8::ff' },
      main: { begin: '2001:db8::10', end: '2001:db8::ff', family: 'ipv6', prefixLength: 64, mask: '64' },
      families: ['ipv6'],
    },
  ] as const;
  for (const c of cases) {
    const dhcp = model({ version: '38.0', networking: { interface: 'eth1', ipAddress: c.main.family === 'ipv4' ? '192.0.2.2' : '2001:db8::2', dhcp: c.dhcp } })
      .networking.dhcp;
    t.same(dhcp?.main, c.main, c.scenario);
    t.same([...(dhcp?.families ?? [])], c.families, `${c.scenario}: families`);
    t.same(dhcp?.mainNetwork, { family: c.main.family, prefixLength: c.main.prefixLength });
  }
  const extra = model({
    version: '38.0',
    networking: {
      interface: 'eth1',
      ipAddress: '192.0.2.2',
      dhcp: {
        networkCIDR: '192.0.2.0/24',
        rangeBegin: '192.0.2.10',
        rangeEnd: '192.0.2.100',
        gatewayAddress: '192.0.2.1',
        extraRanges: [
          { networkCIDR: '198.51.100.0/25', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20', gatewayAddress: '198.51.100.1' },
          { networkCIDR: '2001:db8:1::/64', rangeBegin: '2001:db8:1::10', rangeEnd: '2001:db8:1::20' },
        ],
      },
    },
  }).networking.dhcp;
  t.same(extra?.extraRanges, [
    { begin: '198.51.100.10', end: '198.51.100.20', family: 'ipv4', prefixLength: 25, mask: '255.255.255.128', gatewayAddress: '198.51.100.1' },
    { begin: '2001:db8:1::10', end: '2001:db8:1::20', family: 'ipv6', prefixLength: 64, mask: '64' },
  ]);
  t.same([...(extra?.families ?? [])].sort(), ['ipv4', 'ipv6']);
  t.equal(extra?.gatewayAddress, '192.0.2.1');
  t.equal(extra?.serveDNS, false);
});

t.test('TLS is one shape: the certificate, virtual media, and CA references with legacy fields mapped', async (t) => {
  const cases = [
    {
      scenario: 'no certificate',
      tls: { disableVirtualMediaTLS: false },
      expected: { enabled: false, generate: false, virtualMedia: false, insecureRPC: false, ipxe: false },
    },
    {
      scenario: 'a certificate turns on virtual media TLS',
      tls: { certificateName: 'tls' },
      expected: { enabled: true, certificateName: 'tls', generate: false, virtualMedia: true, insecureRPC: false, ipxe: false },
    },
    {
      scenario: 'virtual media TLS can be turned off',
      tls: { certificateName: 'tls', disableVirtualMediaTLS: true },
      expected: { enabled: true, certificateName: 'tls', generate: false, virtualMedia: false, insecureRPC: false, ipxe: false },
    },
    {
      scenario: 'generated certificates turn TLS on, virtual media included',
      tls: { generateCertificate: true },
      expected: { enabled: true, generate: true, virtualMedia: true, insecureRPC: false, ipxe: false },
    },
    {
      scenario: 'a cert-manager issuer, with the defaults of its kind and group',
      tls: { issuerRef: { name: 'ca', kind: '' } },
      expected: {
        enabled: true,
        generate: false,
        issuerRef: { name: 'ca', kind: 'Issuer', group: 'cert-manager.io' },
        virtualMedia: true,
        insecureRPC: false,
        ipxe: false,
      },
    },
    {
      scenario: 'bmcCAName is a Secret, trustedCAName a ConfigMap',
      tls: { bmcCAName: 'bmc', trustedCAName: 'trusted' },
      expected: {
        enabled: false,
        generate: false,
        virtualMedia: false,
        insecureRPC: false,
        ipxe: false,
        bmcCA: { name: 'bmc', kind: 'Secret', path: 'spec.tls.bmcCAName' },
        trustedCA: { name: 'trusted', kind: 'ConfigMap', path: 'spec.tls.trustedCAName' },
      },
    },
    {
      scenario: 'the reference objects win, with the key',
      tls: { bmcCA: { name: 'bmc', kind: 'ConfigMap' }, trustedCA: { name: 'trusted', kind: 'Secret', key: 'bundle.pem' } },
      expected: {
        enabled: false,
        generate: false,
        virtualMedia: false,
        insecureRPC: false,
        ipxe: false,
        bmcCA: { name: 'bmc', kind: 'ConfigMap', path: 'spec.tls.bmcCA' },
        trustedCA: { name: 'trusted', kind: 'Secret', path: 'spec.tls.trustedCA', key: 'bundle.pem' },
      },
    },
  ];
  for (const c of cases) t.same(model({ tls: c.tls }).tls, c.expected, c.scenario);
  const ipxe = model({
    networking: { ipAddress: '192.0.2.2', ipxeTLSPort: 9084, dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } },
    tls: { certificateName: 'tls', ipxe: true },
  });
  t.same(ipxe.tls, { enabled: true, certificateName: 'tls', generate: false, virtualMedia: true, insecureRPC: false, ipxe: true }, 'iPXE over TLS');
  t.equal(ipxe.networking.ipxeTLSPort, 9084);
});

t.test('the database is none, external or managed', async (t) => {
  t.same(model({ databaseName: 'db' }).database, { kind: 'managed', name: 'db' });
  t.same(model({ database: { host: 'mariadb', name: 'ironic', credentialsName: 'creds', tlsCertificateName: '' } }).database, {
    kind: 'external',
    host: 'mariadb',
    name: 'ironic',
    credentialsName: 'creds',
  });
});

t.test('keepalived (read by its feature from the spec): the VIP mode or the legacy ipAddressManager, VRRP settings under either name', async (t) => {
  const networking = { interface: 'eth1', ipAddress: '192.0.2.2' };
  const settings = (n: Record<string, unknown>): unknown => keepalivedSettings(model({ networking: { ...networking, ...n } }));
  t.same(settings({ keepalived: { enabled: true } }), { mode: 'vips', additionalVIPs: [] });
  t.same(settings({ ipAddressManager: 'keepalived' }), { mode: 'legacy', additionalVIPs: [] });
  t.equal(settings({ keepalived: { enabled: false } }), undefined);
  t.equal(settings({}), undefined);
  t.same(settings({ keepalived: { enabled: true, vrid: 7, passwordRef: { name: 'vrrp' }, additionalVIPs: [{ ipAddress: '192.0.2.9', interface: 'eth2' }] } }), {
    mode: 'vips',
    additionalVIPs: [{ ipAddress: '192.0.2.9', interface: 'eth2' }],
    vrid: 7,
    password: { secretName: 'vrrp', path: 'spec.networking.keepalived.passwordRef.name' },
  });
  t.same(settings({ ipAddressManager: 'keepalived', keepalivedVRID: 9, keepalivedPasswordRef: { name: 'theirs' } }), {
    mode: 'legacy',
    additionalVIPs: [],
    vrid: 9,
    password: { secretName: 'theirs', path: 'spec.networking.keepalivedPasswordRef.name' },
  });
  t.same(
    settings({ keepalived: { enabled: true, passwordRef: { name: 'same' } }, keepalivedPasswordRef: { name: 'same' } }),
    { mode: 'vips', additionalVIPs: [], password: { secretName: 'same', path: 'spec.networking.keepalived.passwordRef.name' } },
    'both names: the field of this API is the one messages point at',
  );
});

t.test('ramdisk, extraConfig, networking service and overrides are typed and defaulted', async (t) => {
  const m = model({
    deployRamdisk: { disableDownloader: true },
    extraConfig: [
      { name: 'debug', value: 'true' },
      { group: 'conductor', name: 'x' },
      { group: 'pxe', name: 'boot-retry', value: '1' },
    ],
    networkingService: { enabled: true, providerNetworks: [{ type: 'idle', nativeVLAN: 10 }] },
    nodeSelector: { b: '2', a: '1' },
    overrides: {
      agentImages: [
        { kernel: 'http://x/k', initramfs: 'http://x/i' },
        { kernel: 'http://x/ka', initramfs: 'http://x/ia', architecture: 'aarch64' },
      ],
      labels: { z: '1', a: '2' },
      containers: [{ name: 'sidecar', image: 'busybox' }],
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
    },
  });
  t.same(m.ramdisk, {
    downloader: false,
    defaultImages: { kernel: 'http://x/k', initramfs: 'http://x/i' },
    imagesByArch: [{ architecture: 'aarch64', kernel: 'http://x/ka', initramfs: 'http://x/ia' }],
    customImages: true,
    servesKernel: false,
  });
  t.same(
    m.extraConfig,
    [
      { group: 'DEFAULT', name: 'debug', value: 'true' },
      { group: 'pxe', name: 'boot-retry', value: '1' },
    ],
    'entries without a value are dropped',
  );
  t.same(m.networkingService?.providerNetworks, [{ type: 'idle', mode: 'access', nativeVLAN: 10, allowedVLANs: [] }]);
  t.same(Object.keys(m.scheduling.nodeSelector), ['a', 'b'], 'sorted');
  t.same(Object.keys(m.overrides.labels), ['a', 'z'], 'sorted');
  t.same(m.overrides.containers, [{ name: 'sidecar', image: 'busybox' }]);
  t.equal(m.scheduling.tolerations.length, 1);
});

t.test('an invalid spec is refused with its problems, never a model', async (t) => {
  const cases = [
    { scenario: 'an unknown field type', spec: { networking: { apiPort: 'x' } }, path: 'spec.networking.apiPort' },
    {
      scenario: 'a broken CIDR',
      spec: {
        networking: { interface: 'eth1', ipAddress: '192.0.2.2', dhcp: { networkCIDR: '192.0.2.0/33', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } },
      },
      path: 'spec.networking.dhcp.networkCIDR',
    },
    {
      scenario: 'an override container that is not a container',
      spec: { overrides: { containers: [{ name: 'x', ports: 'nope' }] } },
      path: 'spec.overrides.containers[0]',
    },
    { scenario: 'not an object', spec: 42, path: 'spec' },
  ];
  for (const c of cases) {
    const parsed = parseIronic(c.spec);
    t.equal(parsed.ok, false, c.scenario);
    if (!parsed.ok)
      t.ok(
        parsed.problems.some((p) => p.path.startsWith(c.path)),
        `${c.scenario}: ${c.path} is named (${parsed.problems.map((p) => p.path).join(', ')})`,
      );
  }
});

t.test('parseIronic never mutates its input and is deterministic', async (t) => {
  const input = {
    networking: {
      apiPort: 7385,
      interface: 'eth1',
      ipAddress: '192.0.2.2',
      dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' },
    },
    prometheusExporter: { enabled: true },
  };
  const before = structuredClone(input);
  const first = model(input);
  t.same(input, before);
  t.same(model(structuredClone(input)), first);
});

t.test('a spec is parsed once: the same frozen answer each time, equal to parsing a copy there and then, the memo bounded', async (t) => {
  const spec = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, prometheusExporter: { enabled: true } };
  const first = parseIronic(spec);
  t.equal(parseIronic(structuredClone(spec)), first, 'the same spec (by content) answers the kept model');
  t.ok(Object.isFrozen(first) && first.ok && Object.isFrozen(first.model.networking), 'frozen, so no caller can change what the next one gets');
  t.notOk(Object.isFrozen(spec) || Object.isFrozen(spec.networking), "the caller's spec is not frozen");
  t.same(parseIronic(spec, spec), first, 'with an old spec it is parsed there and then, to the same model');
  const refused = parseIronic({ networking: { interface: 'eth1', ipAddress: '192.0.2.999' } });
  t.equal(refused.ok, false);
  t.equal(parseIronic({ networking: { interface: 'eth1', ipAddress: '192.0.2.999' } }), refused, 'a refusal is kept as well');
  const withUndefined = parseIronic({ ...spec, tls: undefined });
  t.not(withUndefined, first, 'a spec that is no exact JSON is not looked up by its JSON');
  for (let i = 0; i < 100; i += 1) parseIronic({ networking: { interface: `eth${i}` } });
  t.ok(parsedIronicSpecs.size() <= 64, `${parsedIronicSpecs.size()} specs kept`);
  t.same(parseIronic(spec), first, 'forgetting changes no answer');
});

t.test('database and image cache specs are parsed once per content (with the old database spec), frozen, the memo bounded', async (t) => {
  const spec = { storage: { size: '20Gi' } };
  const first = parseIronicDatabase(spec);
  t.equal(parseIronicDatabase(structuredClone(spec)), first, 'the same spec answers the kept model');
  t.ok(Object.isFrozen(first), 'frozen');
  const old = { engine: 'MariaDB' };
  const withOld = parseIronicDatabase(spec, old);
  t.not(withOld, first, 'another old spec is another question');
  t.equal(parseIronicDatabase(spec, structuredClone(old)), withOld, 'and is kept by its content too');
  t.same(withOld, first, 'here with the same answer');
  const changed = parseIronicDatabase({ ...spec, engine: 'MariaDBOperator' }, old);
  t.equal(changed.ok, false, 'the engine cannot change: the old spec is part of the question');
  for (let i = 0; i < 100; i += 1) parseIronicDatabase({ storage: { size: `${i + 1}Gi` } });
  t.ok(parsedIronicDatabaseSpecs.size() <= 64, `${parsedIronicDatabaseSpecs.size()} kept`);
  const cache = { architectures: [{ name: 'x86_64' }] };
  t.equal(parseIronicImageCache(structuredClone(cache)), parseIronicImageCache(cache), 'an image cache spec too');
});

t.test('parseIronicDatabase', async (t) => {
  t.same(databaseModel({}), {
    engine: 'Builtin',
    replicas: 1,
    imagePullSecrets: [],
    storage: { size: '10Gi', ephemeral: false, whenDeleted: 'Retain' },
    nodeSelector: {},
    maxConductors: 3,
  });
  t.same(databaseModel({ imagePullSecrets: [{ name: 'a' }, { name: 'b' }] }).imagePullSecrets, ['a', 'b'], 'pull secret names, in order');
  t.equal(databaseModel({ maxConductors: 7 }).maxConductors, 7, 'maxConductors as given');
  t.match(databaseModel({ engine: 'MariaDBOperator' }), { engine: 'MariaDBOperator', replicas: 3 }, 'three Galera nodes by default');
  t.match(databaseModel({ engine: 'MariaDBOperator', replicas: 5, priorityClassName: 'db-critical' }), { replicas: 5, priorityClassName: 'db-critical' });
  t.equal(parseIronicDatabase({ engine: 'MariaDBOperator' }, { engine: 'Builtin' }).ok, false, 'an engine change is refused');
  t.equal(DEFAULT_DATABASE_SIZE, '10Gi');
  t.same(databaseModel({ storage: { storageClassName: '' } }).storage, { size: '10Gi', ephemeral: false, whenDeleted: 'Retain' }, 'an empty class is no class');
  t.same(databaseModel({ image: 'mariadb', storage: { size: '50Gi', storageClassName: 'fast', whenDeleted: 'Delete' }, credentialsName: 'c' }), {
    engine: 'Builtin',
    replicas: 1,
    image: 'mariadb',
    credentialsName: 'c',
    imagePullSecrets: [],
    storage: { storageClassName: 'fast', size: '50Gi', ephemeral: false, whenDeleted: 'Delete' },
    nodeSelector: {},
    maxConductors: 3,
  });
  const refused = parseIronicDatabase({ storage: { size: '0' } });
  t.equal(refused.ok, false, 'a zero size is refused');
});

t.test('property: parsing never throws and is deterministic, whatever the input', async (t) => {
  const { default: fc } = await import('fast-check');
  const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('192.0.2.2', 'not-an-ip', ''));
  const cidr = fc.oneof(
    fc.constantFrom('192.0.2.0/24', 'fd00::/64', 'bad'),
    fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 33 })).map(([a, p]) => `${a}/${p}`),
  );
  const spec = fc.oneof(
    fc.anything(),
    fc.record(
      {
        networking: fc.record(
          { interface: fc.string(), ipAddress: ip, dhcp: fc.record({ networkCIDR: cidr, rangeBegin: ip, rangeEnd: ip }, { requiredKeys: [] }) },
          { requiredKeys: [] },
        ),
        tls: fc.record(
          {
            certificateName: fc.string(),
            bmcCAName: fc.string(),
            trustedCA: fc.record({ name: fc.string(), kind: fc.constantFrom('Secret', 'ConfigMap', 'x') }),
          },
          { requiredKeys: [] },
        ),
        overrides: fc.record(
          { containers: fc.array(fc.anything(), { maxLength: 2 }), tolerations: fc.array(fc.anything(), { maxLength: 2 }) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  );
  fc.assert(
    fc.property(spec, (s) => {
      const first = parseIronic(s);
      t.same(parseIronic(structuredClone(s)), first);
      const database = parseIronicDatabase(s);
      return first.ok || first.problems.length > 0 ? database.ok || database.problems.length > 0 : false;
    }),
    { numRuns: 300 },
  );
});

t.test('quantities are rendered in the canonical text the API server stores, so nothing is re-sent', async (t) => {
  const db = databaseModel({ storage: { size: '10240Mi' }, resources: { requests: { cpu: '0.5', memory: '1024Mi' }, limits: { cpu: 1, memory: '1.5Gi' } } });
  t.equal(db.storage.size, '10Gi');
  t.same(db.resources, { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1536Mi' } });
  const m = model({
    overrides: {
      containers: [{ name: 'sidecar', image: 'busybox', resources: { requests: { cpu: '1000m', memory: '2048Ki' } } }],
      initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { memory: 1073741824 } } }],
      volumes: [{ name: 'cache', emptyDir: { sizeLimit: '1024Mi' } }],
    },
  });
  t.same(m.overrides.containers[0]?.resources, { requests: { cpu: '1', memory: '2Mi' } });
  t.same(m.overrides.initContainers[0]?.resources, { limits: { memory: '1073741824' } }, 'a plain number is decimal: no binary suffix');
  t.same(m.overrides.volumes[0], { name: 'cache', emptyDir: { sizeLimit: '1Gi' } });
});
