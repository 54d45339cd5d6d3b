/**
 * The client hand-off: status.access says where the API, the image server, the credentials and the CA are;
 * `<name>-clouds` holds a clouds.yaml that openstacksdk reads as it is.
 */
import fc from 'fast-check';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { cloudsText, type CloudsFile } from '../../src/render/ironic/handoff.js';
import { childOf, syncFor } from '../helpers/render.js';
import { TLS_SECRET, secret } from '../fixtures/ironic-scenarios.js';
import type { Obj } from '../helpers/hooks.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const decode = (value: unknown): string => Buffer.from(String(value), 'base64').toString('utf8');

const cases: ReadonlyArray<{ scenario: string; spec: Obj; related?: Obj[]; access: Obj }> = [
  {
    scenario: 'plain HTTP on the provisioning network',
    spec: { networking: provisioning },
    access: { apiURL: 'http://ironic.metal3.svc', externalAPIURL: 'http://192.0.2.2:6385', imageServerURL: 'http://192.0.2.2:6180', credentialsName: 'ironic-api-credentials', cloudsSecretName: 'ironic-clouds' },
  },
  {
    scenario: 'TLS: https everywhere, virtual media on its TLS port, the CA named',
    spec: { networking: provisioning, tls: { certificateName: 'ironic-tls' } },
    related: [TLS_SECRET],
    access: {
      apiURL: 'https://ironic.metal3.svc',
      externalAPIURL: 'https://192.0.2.2:6385',
      imageServerURL: 'https://192.0.2.2:6183',
      credentialsName: 'ironic-api-credentials',
      caCertificate: { kind: 'Secret', name: 'ironic-tls', key: 'ca.crt' },
      cloudsSecretName: 'ironic-clouds',
    },
  },
  {
    scenario: 'a certificate without ca.crt is its own CA; IPv6 addresses are bracketed',
    spec: { networking: { interface: 'eth1', ipAddress: 'fd00::2' }, tls: { certificateName: 'self-signed', disableVirtualMediaTLS: true } },
    related: [secret('self-signed', { 'tls.crt': 'CERT', 'tls.key': 'KEY' })],
    access: {
      apiURL: 'https://ironic.metal3.svc',
      externalAPIURL: 'https://[fd00::2]:6385',
      imageServerURL: 'http://[fd00::2]:6180',
      credentialsName: 'ironic-api-credentials',
      caCertificate: { kind: 'Secret', name: 'self-signed', key: 'tls.crt' },
      cloudsSecretName: 'ironic-clouds',
    },
  },
  {
    scenario: 'an Ingress and external URLs win over the provisioning address',
    spec: { networking: { disableHostNetwork: true, ingress: { host: 'ironic.example.com' }, imageServerExternalURL: 'https://images.example.com' } },
    access: { apiURL: 'http://ironic.metal3.svc', externalAPIURL: 'https://ironic.example.com', imageServerURL: 'https://images.example.com', credentialsName: 'ironic-api-credentials', cloudsSecretName: 'ironic-clouds' },
  },
  {
    scenario: 'the user\'s credentials are named',
    spec: { apiCredentialsName: 'mine' },
    related: [secret('mine', { username: 'admin', password: 'pass' })],
    access: { apiURL: 'http://ironic.metal3.svc', credentialsName: 'mine', cloudsSecretName: 'ironic-clouds' },
  },
];

for (const c of cases) {
  t.test(c.scenario, async (t) => {
    const { status, children } = await syncFor(c.spec, c.related ?? []);
    t.same(status['access'], c.access);
    const clouds = childOf(children, 'Secret') && (children as Obj[]).find((o) => (o['metadata'] as Obj)['name'] === 'ironic-clouds');
    const data = clouds?.['data'] as Obj | undefined;
    const file = parse(decode(data?.['clouds.yaml'])) as { clouds: Record<string, Obj> };
    const cloud = file.clouds['ironic'] as Obj;
    t.equal(cloud['auth_type'], 'http_basic');
    t.equal(cloud['baremetal_endpoint_override'], c.access['apiURL']);
    t.equal((cloud['auth'] as Obj)['username'], c.spec['apiCredentialsName'] === 'mine' ? 'admin' : 'ironic');
    const tls = c.access['caCertificate'] !== undefined;
    t.equal(cloud['cacert'], tls ? '/etc/openstack/ca.crt' : undefined, 'the CA next to clouds.yaml when TLS is on');
    t.equal(data?.['ca.crt'] !== undefined, tls);
  });
}

t.test('an invalid spec keeps the last published access', async (t) => {
  const previous = { access: { apiURL: 'http://ironic.metal3.svc', credentialsName: 'ironic-api-credentials', cloudsSecretName: 'ironic-clouds' } };
  const { status } = await syncFor({ networking: { apiPort: 'x' } }, [], { parent: { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'ironic', namespace: 'metal3' }, spec: { networking: { apiPort: 'x' } }, status: previous } });
  t.same(status['access'], previous.access);
});

/** clouds.yaml as the yaml package writes it: what cloudsText must answer, whether it takes its shortcut or not. */
const stringified = (file: CloudsFile): string =>
  stringify(
    { clouds: { [file.name]: { auth_type: 'http_basic', auth: { username: file.username, password: file.password }, baremetal_endpoint_override: file.endpoint, ...(file.cacert && { cacert: '/etc/openstack/ca.crt' }) } } },
    { lineWidth: 0 },
  );

/** Texts YAML reads as something else, or cannot write plain. */
const TRICKY = ['', 'true', 'True', 'FALSE', 'null', 'Null', '~', '123', '-1', '+1', '1.', '.5', '1e3', '1E-3', '0x1F', '0o17', '.inf', '-.Inf', '.nan', '-', '?', 'a:', 'a: b', 'a #b', '#a', '---', '...', ' a', 'a ', 'a\nb', '"a"', "'a'", 'é', 'yes', 'NO', '1_000', '12:30', '0b101', 'http://ironic.metal3.svc', 'https://ironic.metal3.svc.cluster.local', '/etc/openstack', 'a/b', '_a', 'a.b-c', '-a', '--a', '-.', '-/', '-_', '-.5', '-.inf', '---a', 'a---'];

t.test('cloudsText writes what yaml writes, for any name, credentials and endpoint', async (t) => {
  const unit = fc.constantFrom('a', 'Z', 'e', 'E', 'x', 'o', '0', '1', '9', '-', '_', '.', '/', ':', ' ', '#', '"', "'", '\n', '~', '+', '?', 'é', '\t', '[', '&', '*', '!', '%', '@', '`');
  const text = fc.oneof(fc.string({ unit, maxLength: 12 }), fc.constantFrom(...TRICKY), fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 1, maxLength: 32 }));
  const file = fc.record({ name: text, username: text, password: text, endpoint: text, cacert: fc.boolean() });
  fc.assert(fc.property(file, (f) => cloudsText(f) === stringified(f)), { numRuns: 5000 });
  for (const value of TRICKY) {
    const f = { name: 'ironic', username: 'ironic', password: value, endpoint: 'http://ironic.metal3.svc', cacert: true };
    t.equal(cloudsText(f), stringified(f), JSON.stringify(value));
    t.equal(cloudsText({ ...f, name: value || 'x', password: 'pw' }), stringified({ ...f, name: value || 'x', password: 'pw' }), `name ${JSON.stringify(value)}`);
  }
});

t.test('generated credentials and the Service URL: the text yaml writes', async (t) => {
  const file = { name: 'ironic', username: 'ironic', password: '-Ab3_x9', endpoint: 'https://ironic.metal3.svc', cacert: true };
  t.equal(
    cloudsText(file),
    'clouds:\n  ironic:\n    auth_type: http_basic\n    auth:\n      username: ironic\n      password: -Ab3_x9\n    baremetal_endpoint_override: https://ironic.metal3.svc\n    cacert: /etc/openstack/ca.crt\n',
  );
  t.equal(cloudsText(file), stringified(file));
});
