/**
 * The content of referenced TLS Secrets is checked where the references are resolved: tls.crt holds a
 * certificate valid at the time of the request, tls.key is its key, ca.crt (when given) signed it. A broken
 * one gives Ready=False naming the Secret and the key, never its content, and keeps the children; every
 * missing or broken reference is reported in the same condition.
 */
import t from 'tap';
import { resolveTLSSecret, type Lookup } from '../../src/render/references.js';
import { FIXED_NOW, ironic, objectMap, syncBody, testServer, type Obj } from '../helpers/hooks.js';
import { related, secret, syncedChildren } from '../fixtures/ironic-scenarios.js';
import { ironicDatabase, syncedDatabaseChildren } from '../fixtures/database-scenarios.js';
import { imageCache } from '../fixtures/image-cache-scenarios.js';
import { FIXED_RPC_CA } from '../fixtures/rpc-ca.js';
import { OTHER_CA_PEM, TEST_CA_PEM, TEST_EXPIRED_LEAF, TEST_LEAF } from '../fixtures/tls.js';
import { objAt } from '../support/paths.js';

const PATH = 'spec.tls.certificateName';
const lookupOf = (data: Record<string, string>): Lookup => ({
  related: objectMap(related(secret('tls', data))),
  namespace: 'metal3',
});
const resolve = (data: Record<string, string>, now = FIXED_NOW): string | undefined => {
  const resolved = resolveTLSSecret(lookupOf(data), 'tls', PATH, now);
  return resolved.ok ? undefined : resolved.problem.message;
};

const PREFIX = `Secret metal3/tls named in ${PATH}: `;
const NOT_A_CERT = 'tls.crt holds no PEM certificate that parses: put the certificate (-----BEGIN CERTIFICATE-----) in tls.crt';
const NOT_A_KEY = 'tls.key holds no PEM private key that parses: put the private key (-----BEGIN PRIVATE KEY-----) in tls.key';
const WRONG_KEY = 'tls.key is not the private key of the certificate in tls.crt: put the key it was issued for';
const NOT_SIGNED = 'ca.crt did not sign the certificate in tls.crt: put the CA that issued it in ca.crt, or the certificate with its intermediates in tls.crt';

const cases: readonly { name: string; data: Record<string, string>; now?: string; message?: string }[] = [
  { name: 'a certificate, its key and its CA', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': TEST_CA_PEM } },
  { name: 'without ca.crt', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem } },
  { name: 'an empty ca.crt (ACME)', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': '' } },
  { name: 'the chain in tls.crt', data: { 'tls.crt': `${TEST_LEAF.certPem}${TEST_CA_PEM}`, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': TEST_CA_PEM } },
  { name: 'a self-signed CA as its own ca.crt', data: { 'tls.crt': FIXED_RPC_CA.certPem, 'tls.key': FIXED_RPC_CA.keyPem, 'ca.crt': FIXED_RPC_CA.certPem } },
  { name: 'issued a few minutes ahead of our clock', now: '2025-12-31T22:30:00Z', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem } },
  { name: 'not a certificate', data: { 'tls.crt': 'not a cert', 'tls.key': TEST_LEAF.keyPem }, message: NOT_A_CERT },
  { name: 'a key that is no key', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': 'not a key' }, message: NOT_A_KEY },
  { name: 'neither', data: { 'tls.crt': 'not a cert', 'tls.key': 'not a key' }, message: `${NOT_A_CERT}; ${NOT_A_KEY}` },
  { name: "another certificate's key", data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_EXPIRED_LEAF.keyPem }, message: WRONG_KEY },
  {
    name: 'an expired certificate',
    data: { 'tls.crt': TEST_EXPIRED_LEAF.certPem, 'tls.key': TEST_EXPIRED_LEAF.keyPem },
    message: 'the certificate in tls.crt expired on 2025-07-01T00:00:00Z: renew it',
  },
  {
    name: 'a certificate not valid yet',
    now: '2025-06-01T00:00:00Z',
    data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem },
    message: 'the certificate in tls.crt is not valid before 2025-12-31T23:00:00Z: check the clock of its issuer, or wait',
  },
  { name: 'a CA that did not sign it', data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': OTHER_CA_PEM }, message: NOT_SIGNED },
  {
    name: 'a CA that is no certificate',
    data: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': 'not a CA' },
    message: 'ca.crt holds no PEM certificate that parses: put the CA that issued the certificate in ca.crt, or remove the key',
  },
  {
    name: 'expired, with the wrong key and CA',
    data: { 'tls.crt': TEST_EXPIRED_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': OTHER_CA_PEM },
    message: `${WRONG_KEY}; the certificate in tls.crt expired on 2025-07-01T00:00:00Z: renew it; ${NOT_SIGNED}`,
  },
];

for (const c of cases) {
  t.test(`${c.name}: ${c.message === undefined ? 'usable' : 'refused, naming the Secret and the key'}`, async (t) => {
    t.equal(resolve(c.data, c.now), c.message === undefined ? undefined : `${PREFIX}${c.message}`);
  });
}

t.test('a content read before answers the same at any time: what it says is kept by its hash, the dates checked on each call', async (t) => {
  for (const c of [...cases].reverse()) t.equal(resolve(c.data, c.now), c.message === undefined ? undefined : `${PREFIX}${c.message}`, c.name);
  const valid = { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem };
  t.equal(resolve(valid), undefined);
  t.match(resolve(valid, '2099-01-01T00:00:00Z'), /the certificate in tls\.crt expired on 2034-03-20T00:00:00Z: renew it/, 'the same content, later');
});

t.test('no message quotes the content of the Secret', async (t) => {
  const bodies = [TEST_LEAF.certPem, TEST_LEAF.keyPem, TEST_EXPIRED_LEAF.keyPem, OTHER_CA_PEM].flatMap((pem) =>
    pem.split(/\r?\n/).filter((l) => l.length > 20 && !l.startsWith('-----')),
  );
  for (const c of cases) {
    const message = resolve(c.data, c.now) ?? '';
    t.notOk(
      bodies.some((line) => message.includes(line)),
      c.name,
    );
    t.notOk(
      ['not a cert', 'not a key', 'not a CA'].some((fake) => message.includes(fake)),
      `${c.name}: the fake value is not echoed`,
    );
  }
});

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const conditionOf = (body: ReturnType<typeof syncBody>): Obj => objAt(body.status.conditions[0]);

t.test('an Ironic whose TLS Secret holds no certificate is not Ready, and keeps its children', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedChildren(app, { parent: ironic({ networking: provisioning }), children: {}, related: {} });
  const parent = ironic({ networking: provisioning, tls: { certificateName: 'ironic-tls' } });
  const broken = related(secret('ironic-tls', { 'tls.crt': 'not a cert', 'tls.key': TEST_LEAF.keyPem }));
  const body = syncBody(await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children, related: broken } }));
  t.match(conditionOf(body), {
    status: 'False',
    reason: 'InvalidReference',
    message: `Secret metal3/ironic-tls named in spec.tls.certificateName: ${NOT_A_CERT}`,
  });
  t.equal(body.children.length, Object.values(children).flatMap((g) => Object.keys(g)).length, 'children kept');
});

t.test('every missing or broken reference of an Ironic is in one condition', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const spec = {
    networking: provisioning,
    apiCredentialsName: 'creds',
    databaseName: 'db',
    tls: { certificateName: 'ironic-tls', bmcCA: { kind: 'ConfigMap', name: 'bmc' } },
  };
  const broken = related(secret('ironic-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem, 'ca.crt': OTHER_CA_PEM }));
  const body = syncBody(await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children: {}, related: broken } }));
  t.match(conditionOf(body), { status: 'False', reason: 'MissingReference' });
  t.equal(
    conditionOf(body)['message'],
    [
      `Secret metal3/ironic-tls named in spec.tls.certificateName: ${NOT_SIGNED}`,
      'ConfigMap metal3/bmc named in spec.tls.bmcCA was not found: create it, or fix the name',
      'IronicDatabase metal3/db named in spec.databaseName was not found: create it, or fix the name',
      'Secret metal3/creds named in spec.apiCredentialsName was not found: create it with username and password, or clear spec.apiCredentialsName to have one generated',
    ].join('; '),
  );
});

t.test('an IronicDatabase reports its credentials and its TLS Secret together', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedDatabaseChildren(app, { parent: ironicDatabase({}), children: {}, related: {} });
  const parent = ironicDatabase({ credentialsName: 'creds', tlsCertificateName: 'db-tls' });
  const expired = related(secret('db-tls', { 'tls.crt': TEST_EXPIRED_LEAF.certPem, 'tls.key': TEST_EXPIRED_LEAF.keyPem }));
  const body = syncBody(await app.inject({ method: 'POST', url: '/ironicdatabase/sync', payload: { parent, children, related: expired } }));
  t.match(conditionOf(body), { status: 'False', reason: 'MissingReference' });
  t.equal(
    conditionOf(body)['message'],
    [
      'Secret metal3/creds named in spec.credentialsName was not found: create it with username and password, or clear spec.credentialsName to have one generated',
      'Secret metal3/db-tls named in spec.tlsCertificateName: the certificate in tls.crt expired on 2025-07-01T00:00:00Z: renew it',
    ].join('; '),
  );
  t.equal(body.children.length, 4, 'children kept');
});

t.test('CA bundles hold certificates: every key of the BMC CA, the chosen key of the trusted CA', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const configMap = (name: string, data: Record<string, string>): Obj => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'metal3' },
    data,
  });
  const spec = {
    networking: provisioning,
    tls: { bmcCA: { kind: 'ConfigMap', name: 'bmc' }, trustedCA: { kind: 'ConfigMap', name: 'trusted', key: 'bundle.pem' } },
  };
  const sync = async (...objects: Obj[]): Promise<Obj> =>
    conditionOf(
      syncBody(await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent: ironic(spec), children: {}, related: related(...objects) } })),
    );
  const good = [
    configMap('bmc', { 'a.pem': TEST_CA_PEM, 'b.pem': OTHER_CA_PEM }),
    configMap('trusted', { 'bundle.pem': TEST_CA_PEM, 'other.txt': 'not used' }),
  ];
  t.not((await sync(...good))['reason'], 'InvalidReference', 'certificates in every BMC key and in the chosen trusted key; other trusted keys are not read');
  t.match(await sync(configMap('bmc', { 'a.pem': TEST_CA_PEM, 'b.pem': 'junk', 'c.pem': '' }), configMap('trusted', { 'bundle.pem': 'junk' })), {
    status: 'False',
    reason: 'InvalidReference',
    message: [
      'ConfigMap metal3/bmc named in spec.tls.bmcCA: keys "b.pem", "c.pem" hold no PEM certificate that parses: put the CA certificates (-----BEGIN CERTIFICATE-----) there',
      'ConfigMap metal3/trusted named in spec.tls.trustedCA: key "bundle.pem" holds no PEM certificate that parses: put the CA certificates (-----BEGIN CERTIFICATE-----) there',
    ].join('; '),
  });
});

t.test('a CA bundle read before never answers for one of the other kind with the same data', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  // The same data: a Secret's is base64 of the PEM (a CA), a ConfigMap's is that base64 text itself (no PEM).
  const data = { 'ca.pem': Buffer.from(TEST_CA_PEM).toString('base64') };
  const object = (kind: 'Secret' | 'ConfigMap'): Obj => ({ apiVersion: 'v1', kind, metadata: { name: 'bmc', namespace: 'metal3' }, data });
  const reasonWith = async (kind: 'Secret' | 'ConfigMap'): Promise<unknown> => {
    const spec = { networking: provisioning, tls: { bmcCA: { kind, name: 'bmc' } } };
    const body = { parent: ironic(spec), children: {}, related: related(object(kind)) };
    return conditionOf(syncBody(await app.inject({ method: 'POST', url: '/ironic/sync', payload: body })))['reason'];
  };
  for (const order of [
    ['Secret', 'ConfigMap'],
    ['ConfigMap', 'Secret'],
  ] as const) {
    const answers = [await reasonWith(order[0]), await reasonWith(order[1])];
    const [secret, configMap] = order[0] === 'Secret' ? answers : [answers[1], answers[0]];
    t.not(secret, 'InvalidReference', `${order.join(' then ')}: the Secret holds a CA once decoded`);
    t.equal(configMap, 'InvalidReference', `${order.join(' then ')}: the ConfigMap holds base64 text, no PEM`);
  }
});

t.test('an IronicImageCache whose TLS Secret has a key of another certificate is not Ready', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const parent = imageCache({ tlsCertificateName: 'ipa-tls' });
  const wrongKey = related(secret('ipa-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_EXPIRED_LEAF.keyPem }));
  const body = syncBody(await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload: { parent, children: {}, related: wrongKey } }));
  t.match(conditionOf(body), {
    status: 'False',
    reason: 'InvalidReference',
    message: `Secret metal3/ipa-tls named in spec.tlsCertificateName: ${WRONG_KEY}`,
  });
  t.same(body.children, [], 'nothing rendered');
});
