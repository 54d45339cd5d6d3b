/**
 * Generators of Ironic and IronicDatabase objects for the CEL parity test. Each generator concentrates on
 * the fields a group of CEL rules reads, drawing values from small pools that include the edge cases the
 * two implementations could read differently: empty and blank strings, false booleans, empty lists,
 * absent fields. Every generated spec is valid against the TypeBox schema (the test checks it), so the
 * semantic rules of validateIronic / validateIronicDatabase run on it.
 */
import fc from 'fast-check';

export type Json = Record<string, unknown>;

/** A whole object as the API server sees it. */
export type KubeObject = { readonly apiVersion: string; readonly kind: string; readonly metadata: { readonly name: string }; readonly spec: Json };

/** An object, and the stored object it replaces on an update (absent on create). */
export type Sample = { readonly object: KubeObject; readonly old?: KubeObject };

const GROUP_VERSION = 'ironic.metal3.io/v1alpha1';

/** Every key of `model` (plain objects only: fast-check may otherwise build objects without a prototype). */
const allOf = (model: Readonly<Record<string, fc.Arbitrary<unknown>>>): fc.Arbitrary<Json> => fc.record(model, { noNullPrototype: true });

const withoutUndefined = (record: Json): Json => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/** Some of the keys of `model`, each present or absent with even odds (fc.record would keep most keys). */
const someOf = (model: Readonly<Record<string, fc.Arbitrary<unknown>>>): fc.Arbitrary<Json> =>
  fc
    .record(Object.fromEntries(Object.entries(model).map(([key, arbitrary]) => [key, fc.option(arbitrary, { nil: undefined, freq: 2 })])), {
      noNullPrototype: true,
    })
    .map(withoutUndefined);

const ironicObject = (spec: Json): KubeObject => ({ apiVersion: GROUP_VERSION, kind: 'Ironic', metadata: { name: 'ironic' }, spec });

/** An update when `old` is given, else a create. */
const sample = (object: KubeObject, old: KubeObject | undefined): Sample => (old === undefined ? { object } : { object, old });

const ironicSamples = (specs: fc.Arbitrary<Json>, oldSpecs: fc.Arbitrary<Json> = specs): fc.Arbitrary<Sample> =>
  fc.tuple(specs, fc.option(oldSpecs, { nil: undefined })).map(([spec, old]) => sample(ironicObject(spec), old === undefined ? undefined : ironicObject(old)));

// --- Value pools ---------------------------------------------------------------------------------------

const text = fc.constantFrom('', ' ', 'a', 'b');
const nonEmptyName = fc.constantFrom(' ', 'a', 'b');
const ip = fc.constantFrom('', '192.0.2.2', '2001:db8::2');
const iface = fc.constantFrom('', 'eth0');
const macs = fc.constantFrom([], ['52:54:00:00:00:01']);
const url = fc.constantFrom('https://a.example.com', 'https://b.example.com:6385/x');

const database = allOf({ credentialsName: fc.constant('db-credentials'), host: fc.constantFrom('a', 'b'), name: fc.constantFrom('x', 'y') });
const databaseName = fc.constantFrom('a', 'b');

const extraRange = fc.constant({ networkCIDR: '198.51.100.0/24', rangeBegin: '198.51.100.10', rangeEnd: '198.51.100.20' });

const dhcp = someOf({
  serveDNS: fc.boolean(),
  dnsAddress: fc.constantFrom('', '192.0.2.1', '192.0.2.53'),
  networkCIDR: fc.constantFrom('', '192.0.2.0/24'),
  rangeBegin: fc.constantFrom('', '192.0.2.10'),
  rangeEnd: fc.constantFrom('', '192.0.2.20'),
  extraRanges: fc.array(extraRange, { maxLength: 1 }),
});

const keepalived = allOf({ enabled: fc.boolean() });

const networking = someOf({
  bindInterface: fc.boolean(),
  dhcp,
  disableHostNetwork: fc.boolean(),
  externalCallbackURL: url,
  externalIP: ip,
  imageServerExternalURL: url,
  ingress: fc.constant({ host: 'ironic.example.com' }),
  interface: iface,
  ipAddress: ip,
  ipAddressManager: fc.constantFrom('', 'keepalived'),
  keepalived,
  macAddresses: macs,
});

const caReference = allOf({ name: nonEmptyName, kind: fc.constantFrom('Secret', 'ConfigMap') });

/** A TLS profile of any type, with or without the Custom-only fields. */
const tlsProfile = fc
  .tuple(
    fc.constantFrom('Old', 'Intermediate', 'Modern', 'Custom'),
    someOf({
      minTLSVersion: fc.constantFrom('VersionTLS10', 'VersionTLS12', 'VersionTLS13'),
      ciphers: fc.constantFrom([], ['AES128-SHA']),
      curves: fc.constant(['X25519']),
    }),
  )
  .map(([type, rest]) => ({ ...rest, type }));

const tls = someOf({
  bmcCA: caReference,
  bmcCAName: text,
  certificateName: text,
  generateCertificate: fc.boolean(),
  issuerRef: fc.constantFrom({ name: 'ca' }, { name: 'ca', kind: 'ClusterIssuer', group: 'cert-manager.io' }),
  insecureRPC: fc.boolean(),
  ipxe: fc.boolean(),
  profile: tlsProfile,
  trustedCA: caReference,
  trustedCAName: text,
});

const providerNetwork = someOf({
  mode: fc.constantFrom('access', 'trunk', 'hybrid'),
  allowedVLANs: fc.constantFrom([], ['20'], ['20-30', '40']),
}).chain((network) => fc.constantFrom('idle', 'inspection', 'cleaning').map((type) => ({ type, nativeVLAN: 10, ...network })));

/**
 * Agent image URLs: good ones, hostless http(s) ones, and ones with spaces at the end or inside. A leading
 * space is the API server's `uri` format's to refuse (Go's url.ParseRequestURI), before any CEL rule runs,
 * so the samples, which must be schema-valid, have spaces only where the format accepts them.
 */
const agentURL = fc.constantFrom(
  'https://images.example.com/ipa.kernel',
  'http://192.0.2.1:6180/ipa',
  'HTTPS://images.example.com/ipa',
  'file:///shared/ipa',
  'oci://registry.example.com/ipa:latest',
  'http:///path',
  'https:///x',
  'http:/x',
  'https://images.example.com/ipa ',
  'https://images.example.com/ipa  ',
  'http:///x ',
  'https://images.example.com/ipa x',
);

const agentImage = someOf({ architecture: fc.constantFrom('', 'x86_64', 'aarch64'), kernel: agentURL, initramfs: agentURL }).map((images) => ({
  kernel: 'https://images.example.com/ipa.kernel',
  initramfs: 'https://images.example.com/ipa.initramfs',
  ...images,
}));

// --- Ironic ----------------------------------------------------------------------------------------------

/** The database fields, high availability, and an old spec with other database fields (transitions). */
export const databaseSamples: fc.Arbitrary<Sample> = ironicSamples(someOf({ highAvailability: fc.boolean(), database, databaseName }));

/** `spec` plus `field: value`, always present. */
const withField = (spec: fc.Arbitrary<Json>, field: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Json> =>
  fc.tuple(spec, value).map(([rest, v]) => ({ ...rest, [field]: v }));

const haSpec = someOf({ highAvailability: fc.boolean(), databaseName });

/** Networking (host network, external access, DHCP, keepalived) with and without high availability. */
export const networkingSamples: fc.Arbitrary<Sample> = ironicSamples(withField(haSpec, 'networking', networking));

/** Networking with keepalived, often with the deprecated ipAddressManager too. */
export const keepalivedSamples: fc.Arbitrary<Sample> = ironicSamples(
  withField(
    haSpec,
    'networking',
    withField(someOf({ interface: iface, ipAddress: ip, ipAddressManager: fc.constantFrom('', 'keepalived') }), 'keepalived', keepalived),
  ),
);

/** DHCP blocks, mostly without high availability (which refuses DHCP as a whole). */
export const dhcpSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    highAvailability: fc.constantFrom(false, false, false, true),
    databaseName,
    networking: fc.tuple(someOf({ interface: iface, ipAddress: ip, macAddresses: macs }), dhcp).map(([n, d]) => ({ ...n, dhcp: d })),
  }),
);

/** TLS: CA references and their legacy fields, insecureRPC with and without high availability. */
export const tlsSamples: fc.Arbitrary<Sample> = ironicSamples(withField(haSpec, 'tls', tls));

/** iPXE over TLS with and without DHCP and with every kind of provisioning address. */
export const ipxeSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    tls: someOf({ ipxe: fc.boolean(), generateCertificate: fc.boolean() }),
    networking: someOf({ ipAddress: fc.constantFrom('', '192.0.2.2', '2001:db8::2', 'a:b'), interface: iface, dhcp }),
    nodeSelector: someOf({ 'kubernetes.io/arch': fc.constantFrom('amd64', 'arm64', ''), 'kubernetes.io/os': fc.constant('linux') }),
  }),
);

/** Addresses with and without IPv6 zones (and a '%' in a non-address), with every source of certificates. */
export const zoneSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    tls: someOf({ generateCertificate: fc.boolean(), issuerRef: fc.constant({ name: 'ca' }), certificateName: fc.constantFrom('', 'tls') }),
    networking: someOf({
      ipAddress: fc.constantFrom('', '192.0.2.2', 'fe80::2', 'fe80::2%eth1', 'a%b'),
      externalIP: fc.constantFrom('', '2001:db8::2', 'fe80::3%eth0'),
    }),
  }),
);

/** Provider networks of the networking service, enabled or not. */
export const providerNetworkSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({ networkingService: allOf({ enabled: fc.boolean(), providerNetworks: fc.array(providerNetwork, { minLength: 1, maxLength: 3 }) }) }),
);

/** Agent images, with repeated architectures. */
export const agentImageSamples: fc.Arbitrary<Sample> = ironicSamples(allOf({ overrides: allOf({ agentImages: fc.array(agentImage, { maxLength: 3 }) }) }));

// --- IronicDatabase --------------------------------------------------------------------------------------

const databaseObject = ([name, spec]: readonly [string, Json]): KubeObject => ({ apiVersion: GROUP_VERSION, kind: 'IronicDatabase', metadata: { name }, spec });

const storageFields = {
  storageClassName: fc.constantFrom('', 'fast', 'slow'),
  size: fc.constantFrom('1Gi', '20Gi'),
};

const databaseSamplesOf = (specs: fc.Arbitrary<Json>): fc.Arbitrary<Sample> => {
  const objects = fc.tuple(fc.constantFrom('db', 'd'.repeat(43), 'd'.repeat(44)), specs).map(databaseObject);
  return fc.tuple(objects, fc.option(objects, { nil: undefined })).map(([object, old]) => sample(object, old));
};

/** IronicDatabase objects (names near the length limit, storage or none), created or updated. */
export const ironicDatabaseSamples: fc.Arbitrary<Sample> = databaseSamplesOf(someOf({ storage: someOf({ ephemeral: fc.boolean(), ...storageFields }) }));

/** IronicDatabase objects with a TLS profile (and a certificate or not: the rules apply either way). */
export const databaseTlsProfileSamples: fc.Arbitrary<Sample> = databaseSamplesOf(allOf({ tlsProfile: tlsProfile }));

/** IronicDatabase objects with storage whose ephemeral field is set. */
export const storageSamples: fc.Arbitrary<Sample> = databaseSamplesOf(allOf({ storage: withField(someOf(storageFields), 'ephemeral', fc.boolean()) }));

/** The exporter's sensor interval around its minimum (the exporter enabled or not: the rule applies either way). */
export const exporterSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    prometheusExporter: someOf({ sensorCollectionInterval: fc.constantFrom(0, 1, 60, 119, 120, 121, 160, 3600) }).map((e) => ({ enabled: true, ...e })),
  }),
);

/** Heartbeat intervals and timeouts around the ratio the rule asks for (within the schema's ranges), or unset. */
export const conductorSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    conductor: someOf({ heartbeatInterval: fc.constantFrom(1, 5, 10, 11, 20, 300), heartbeatTimeout: fc.constantFrom(3, 14, 15, 29, 30, 33, 60, 3600) }),
  }),
);

/** spec.resources with known and unknown container names. */
export const resourcesSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    resources: fc
      .uniqueArray(fc.constantFrom('ironic', 'httpd', 'ramdisk-logs', 'database-upgrade', 'sidecar', 'Ironic', ''), { maxLength: 3 })
      .map((names) => Object.fromEntries(names.map((name) => [name, { requests: { cpu: '10m' } }]))),
  }),
);

const proxyURL = fc.constantFrom(
  '',
  'http://proxy.example.com:3128',
  'HTTPS://u:p@proxy/',
  'http://user@proxy:3128',
  'http://proxy/a@b',
  'http://u p@x',
  'u:p@proxy:3128',
  'https://proxy.example.com/x?y#z',
  'http://',
  'http:///x',
  'http://a b',
  ' http://a',
  'http://a ',
  'socks5://a',
  'proxy:3128',
);

/** spec.proxy with good and bad URLs. */
export const proxySamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({ proxy: someOf({ httpProxy: proxyURL, httpsProxy: proxyURL, noProxy: fc.constantFrom('', '.svc') }) }),
);

/** keepalived with and without its VRRP settings, enabled or not, on a valid provisioning network. */
export const vrrpSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    networking: allOf({
      interface: fc.constant('eth0'),
      ipAddress: fc.constant('192.0.2.2'),
      keepalived: someOf({ vrid: fc.constantFrom(1, 42, 255), passwordRef: fc.constant({ name: 'vrrp' }) }).chain((k) =>
        fc.boolean().map((enabled) => ({ enabled, ...k })),
      ),
    }),
  }),
);

/** The VRRP settings under both names (this API's and upstream's), equal or not, with keepalived in either form or off. */
export const upstreamVrrpSamples: fc.Arbitrary<Sample> = ironicSamples(
  allOf({
    networking: fc
      .tuple(
        someOf({ keepalivedVRID: fc.constantFrom(1, 42), keepalivedPasswordRef: fc.constantFrom({ name: 'vrrp' }, { name: 'other', kind: 'Secret' }) }),
        someOf({ vrid: fc.constantFrom(1, 42), passwordRef: fc.constantFrom({ name: 'vrrp' }, { name: 'other' }) }),
        fc.constantFrom('vips', 'legacy', 'none', 'disabled'),
      )
      .map(([theirs, ours, mode]) => ({
        interface: 'eth0',
        ipAddress: '192.0.2.2',
        ...theirs,
        ...(mode === 'legacy' && { ipAddressManager: 'keepalived' }),
        ...(mode === 'vips' && { keepalived: { enabled: true, ...ours } }),
        ...(mode === 'disabled' && { keepalived: { enabled: false } }),
      })),
  }),
);

/** IronicDatabase objects with an engine, Galera replicas (odd or not) and storage (ephemeral or not), created or updated across engines. */
export const engineSamples: fc.Arbitrary<Sample> = databaseSamplesOf(
  someOf({
    engine: fc.constantFrom('Builtin', 'MariaDBOperator'),
    replicas: fc.constantFrom(3, 4, 5, 8, 9),
    storage: someOf({ size: fc.constantFrom('1Gi'), ephemeral: fc.boolean() }),
  }),
);

const s3Bucket = someOf({ tls: fc.boolean(), caSecretName: fc.constantFrom('ca') }).map((s3) => ({
  endpoint: 'minio:9000',
  bucket: 'backups',
  credentialsSecretName: 's3',
  ...s3,
}));

/** IronicDatabase objects (either engine) with backups to a claim, a bucket, both or neither. */
export const backupSamples: fc.Arbitrary<Sample> = databaseSamplesOf(
  someOf({
    engine: fc.constantFrom('Builtin', 'MariaDBOperator'),
    backup: someOf({ persistentVolumeClaim: someOf({ size: fc.constantFrom('1Gi') }), s3: s3Bucket }).map((b) => ({ schedule: '@daily', ...b })),
  }),
);

/** IronicDatabase objects (either engine) restored from a claim, a bucket, both or neither. */
export const restoreSamples: fc.Arbitrary<Sample> = databaseSamplesOf(
  someOf({
    engine: fc.constantFrom('Builtin', 'MariaDBOperator'),
    restoreFrom: someOf({ claimName: fc.constantFrom('old-backups'), s3: s3Bucket }).map((r) => ({ backup: 'latest', ...r })),
  }),
);

/** Galera (or not) IronicDatabase objects whose storage size and class change or not, sizes written several ways. */
export const galeraStorageSamples: fc.Arbitrary<Sample> = databaseSamplesOf(
  someOf({
    engine: fc.constantFrom('Builtin', 'MariaDBOperator'),
    storage: someOf({ size: fc.constantFrom('1Gi', '1024Mi', '10Gi', '20Gi', '15000Mi'), storageClassName: fc.constantFrom('', 'fast') }),
  }),
);

/** Ironic objects naming an image cache (or not), with the download settings it replaces. */
export const imageCacheNameSamples: fc.Arbitrary<Sample> = ironicSamples(
  someOf({
    imageCacheName: fc.constantFrom('ipa', 'other'),
    tls: someOf({ ipxe: fc.boolean() }),
    images: someOf({ deployRamdiskBranch: text, deployRamdiskDownloader: text }),
    overrides: someOf({
      agentImages: fc.constantFrom([], [{ kernel: 'https://images.example.com/ipa.kernel', initramfs: 'https://images.example.com/ipa.initramfs' }]),
    }),
  }),
);

// --- IronicImageCache ------------------------------------------------------------------------------------

const cacheObject = ([name, spec]: readonly [string, Json]): KubeObject => ({ apiVersion: GROUP_VERSION, kind: 'IronicImageCache', metadata: { name }, spec });

const cacheSamplesOf = (specs: fc.Arbitrary<Json>): fc.Arbitrary<Sample> => {
  const objects = fc.tuple(fc.constantFrom('ipa', 'c'.repeat(42), 'c'.repeat(43)), specs).map(cacheObject);
  return fc.tuple(objects, fc.option(objects, { nil: undefined })).map(([object, old]) => sample(object, old));
};

/** IronicImageCache objects (names near the length limit, storage or none), created or updated. */
export const ironicImageCacheSamples: fc.Arbitrary<Sample> = cacheSamplesOf(someOf({ storage: someOf({ ephemeral: fc.boolean(), ...storageFields }) }));

/** IronicImageCache objects with storage whose ephemeral field is set. */
export const cacheStorageSamples: fc.Arbitrary<Sample> = cacheSamplesOf(allOf({ storage: withField(someOf(storageFields), 'ephemeral', fc.boolean()) }));

/** IronicImageCache objects with one or two architectures, repeated or not. */
export const cacheArchitectureSamples: fc.Arbitrary<Sample> = cacheSamplesOf(
  allOf({
    architectures: fc.array(
      someOf({ filename: fc.constantFrom('ipa.tar.gz') }).chain((a) => fc.constantFrom('x86_64', 'aarch64').map((name) => ({ name, ...a }))),
      { minLength: 1, maxLength: 2 },
    ),
  }),
);

/** IronicImageCache objects with a proxy of good and bad URLs. */
export const cacheProxySamples: fc.Arbitrary<Sample> = cacheSamplesOf(
  allOf({ proxy: someOf({ httpProxy: proxyURL, httpsProxy: proxyURL, noProxy: fc.constantFrom('', '.svc') }) }),
);

/** IronicImageCache objects with resources of known and unknown container names. */
export const cacheResourcesSamples: fc.Arbitrary<Sample> = cacheSamplesOf(
  allOf({
    resources: fc
      .uniqueArray(fc.constantFrom('download-x86-64', 'download-aarch64', 'prune', 'httpd', 'ironic', 'download-x86_64', ''), { maxLength: 3 })
      .map((names) => Object.fromEntries(names.map((name) => [name, { requests: { cpu: '10m' } }]))),
  }),
);
