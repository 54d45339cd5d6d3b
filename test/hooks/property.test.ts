/**
 * Property tests: whatever the spec, the hooks answer 200 with a Ready condition (never a crash), and
 * the same request always gets the same response.
 */
import t from 'tap';
import fc from 'fast-check';
import { ironic, syncBody, testServer } from '../helpers/hooks.js';
import { ironicDatabase } from '../fixtures/database-scenarios.js';
import { imageCache } from '../fixtures/image-cache-scenarios.js';
import { objAt } from '../support/paths.js';

const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('192.0.2.2', 'fd00::2', 'not-an-ip', ''));
const cidr = fc.oneof(
  fc.constantFrom('192.0.2.0/24', 'fd00::/64', '10.0.0.0/8', 'bad'),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 33 })).map(([a, p]) => `${a}/${p}`),
);
const word = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('eth1', 'latest', '38.0', '37.0', '1.0'));

const networking = fc.record(
  {
    interface: word,
    ipAddress: ip,
    apiPort: fc.oneof(fc.integer({ min: -1, max: 70000 }), fc.constant(6385)),
    bindInterface: fc.boolean(),
    disableHostNetwork: fc.boolean(),
    externalIP: ip,
    macAddresses: fc.array(word, { maxLength: 2 }),
    dhcp: fc.record(
      {
        networkCIDR: cidr,
        rangeBegin: ip,
        rangeEnd: ip,
        serveDNS: fc.boolean(),
        extraRanges: fc.array(fc.record({ networkCIDR: cidr, rangeBegin: ip, rangeEnd: ip }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    keepalived: fc.record({ enabled: fc.boolean() }),
    ingress: fc.record({ host: word }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

const spec = fc.record(
  {
    version: word,
    highAvailability: fc.boolean(),
    apiCredentialsName: word,
    databaseName: word,
    imageCacheName: word,
    images: fc.record({ deployRamdiskBranch: word, deployRamdiskDownloader: word }, { requiredKeys: [] }),
    database: fc.record({ host: word, name: word, credentialsName: word }, { requiredKeys: [] }),
    networking,
    tls: fc.record({ certificateName: word, insecureRPC: fc.boolean(), disableVirtualMediaTLS: fc.boolean() }, { requiredKeys: [] }),
    prometheusExporter: fc.record({ enabled: fc.boolean(), bindAddress: ip }, { requiredKeys: ['enabled'] }),
    extraConfig: fc.array(fc.record({ group: word, name: word, value: word }, { requiredKeys: [] }), { maxLength: 3 }),
    overrides: fc.record(
      {
        containers: fc.array(fc.oneof(fc.record({ name: word, image: word }), fc.anything()), { maxLength: 2 }),
        labels: fc.dictionary(word, word, { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

t.test('the Ironic sync hook answers every spec with a status, deterministically', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  await fc.assert(
    fc.asyncProperty(fc.oneof(spec, fc.anything()), async (s) => {
      const payload = { parent: ironic(s), children: {}, related: {} };
      const a = await app.inject({ method: 'POST', url: '/ironic/sync', payload });
      const b = await app.inject({ method: 'POST', url: '/ironic/sync', payload });
      if (a.statusCode !== 200) throw new Error(`status ${a.statusCode}: ${a.body}`);
      const body = syncBody(a);
      if (body.status.conditions[0]?.['type'] !== 'Ready') throw new Error('no Ready condition');
      // Generated passwords differ between the two calls only through the fake counter: compare the status.
      if (JSON.stringify(objAt(b.json())['status']) !== JSON.stringify(body.status)) throw new Error('status is not deterministic');
    }),
    { numRuns: 150 },
  );
  t.pass('no crash');
});

t.test('the IronicDatabase sync hook answers every spec with a status', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const dbSpec = fc.record(
    {
      credentialsName: word,
      image: word,
      tlsCertificateName: word,
      storage: fc.record(
        { size: fc.oneof(word, fc.constant('10Gi')), ephemeral: fc.boolean(), whenDeleted: fc.constantFrom('Retain', 'Delete', 'x'), storageClassName: word },
        { requiredKeys: [] },
      ),
      resources: fc.record(
        { requests: fc.dictionary(word, fc.oneof(word, fc.integer())), limits: fc.dictionary(word, fc.oneof(word, fc.integer())) },
        { requiredKeys: [] },
      ),
      nodeSelector: fc.dictionary(word, word, { maxKeys: 2 }),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(dbSpec, fc.anything()), async (s) => {
      const r = await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent: ironicDatabase(s), children: {}, related: {} } });
      if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}: ${r.body}`);
    }),
    { numRuns: 150 },
  );
  t.pass('no crash');
});

t.test('the IronicImageCache sync hook answers every spec with a status, deterministically', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const architecture = fc.record({ name: fc.constantFrom('x86_64', 'aarch64', 'ppc64le', ''), filename: word }, { requiredKeys: [] });
  const cacheSpec = fc.record(
    {
      agentBranch: word,
      agentDownloadURL: fc.oneof(word, fc.webUrl()),
      agentDownloaderImage: word,
      agentMinimumModificationTime: fc.oneof(
        word,
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      ),
      architectures: fc.array(architecture, { maxLength: 3 }),
      proxy: fc.record({ httpProxy: word, httpsProxy: word, noProxy: word }, { requiredKeys: [] }),
      storage: fc.record({ size: fc.oneof(word, fc.constant('5Gi')), ephemeral: fc.boolean(), storageClassName: word }, { requiredKeys: [] }),
      nodeSelector: fc.dictionary(word, word, { maxKeys: 2 }),
      tolerations: fc.array(fc.oneof(fc.record({ key: word, operator: fc.constantFrom('Exists', 'Equal', 'x') }, { requiredKeys: [] }), fc.anything()), {
        maxLength: 2,
      }),
      tlsCertificateName: word,
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(cacheSpec, fc.anything()), async (s) => {
      const payload = { parent: imageCache(s), children: {}, related: {} };
      const a = await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload });
      const b = await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload });
      if (a.statusCode !== 200) throw new Error(`status ${a.statusCode}: ${a.body}`);
      if (syncBody(a).status.conditions[0]?.['type'] !== 'Ready') throw new Error('no Ready condition');
      if (a.body !== b.body) throw new Error('not deterministic');
    }),
    { numRuns: 150 },
  );
  t.pass('no crash');
});
