/**
 * The client hand-off: status.access says where the API, the image server, the credentials and the CA are;
 * `<name>-clouds` holds a clouds.yaml that openstacksdk reads as it is.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { childOf, syncFor } from '../helpers/render.js';
import { TLS_SECRET, secret } from '../fixtures/ironic-scenarios.js';
import type { Obj } from '../helpers/hooks.js';
import { parseYaml } from '../helpers/json.js';
import { objAt, present } from '../support/paths.js';
import { TEST_LEAF } from '../fixtures/tls.js';
import { writtenCloudsYaml } from '../../src/render/ironic/features/client-handoff.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const decode = (value: unknown): string => Buffer.from(String(value), 'base64').toString('utf8');

const cases: readonly { scenario: string; spec: Obj; related?: Obj[]; access: Obj }[] = [
  {
    scenario: 'plain HTTP on the provisioning network',
    spec: { networking: provisioning },
    access: {
      apiURL: 'http://ironic.metal3.svc',
      externalAPIURL: 'http://192.0.2.2:6385',
      imageServerURL: 'http://192.0.2.2:6180',
      credentialsName: 'ironic-api-credentials',
      cloudsSecretName: 'ironic-clouds',
    },
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
    related: [secret('self-signed', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem })],
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
    access: {
      apiURL: 'http://ironic.metal3.svc',
      externalAPIURL: 'https://ironic.example.com',
      imageServerURL: 'https://images.example.com',
      credentialsName: 'ironic-api-credentials',
      cloudsSecretName: 'ironic-clouds',
    },
  },
  {
    scenario: "the user's credentials are named",
    spec: { apiCredentialsName: 'mine' },
    related: [secret('mine', { username: 'admin', password: 'pass' })],
    access: { apiURL: 'http://ironic.metal3.svc', credentialsName: 'mine', cloudsSecretName: 'ironic-clouds' },
  },
];

for (const c of cases) {
  t.test(c.scenario, async (t) => {
    const { status, children } = await syncFor(c.spec, c.related ?? []);
    t.same(status['access'], c.access);
    const clouds = childOf(children, 'Secret', 'ironic-clouds');
    const data = clouds?.data;
    const file = parseYaml(
      decode(data?.['clouds.yaml']),
      Type.Object({ clouds: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())) }),
      'clouds.yaml',
    );
    const cloud = present(file.clouds['ironic'], 'the ironic cloud');
    t.equal(cloud['auth_type'], 'http_basic');
    t.equal(cloud['baremetal_endpoint_override'], c.access['apiURL']);
    t.equal(objAt(cloud, 'auth')['username'], c.spec['apiCredentialsName'] === 'mine' ? 'admin' : 'ironic');
    const tls = c.access['caCertificate'] !== undefined;
    t.equal(cloud['cacert'], tls ? '/etc/openstack/ca.crt' : undefined, 'the CA next to clouds.yaml when TLS is on');
    t.equal(data?.['ca.crt'] !== undefined, tls);
  });
}

t.test('an invalid spec keeps the last published access', async (t) => {
  const previous = { access: { apiURL: 'http://ironic.metal3.svc', credentialsName: 'ironic-api-credentials', cloudsSecretName: 'ironic-clouds' } };
  const { status } = await syncFor({ networking: { apiPort: 'x' } }, [], {
    parent: {
      apiVersion: 'ironic.metal3.io/v1alpha1',
      kind: 'Ironic',
      metadata: { name: 'ironic', namespace: 'metal3' },
      spec: { networking: { apiPort: 'x' } },
      status: previous,
    },
  });
  t.same(status['access'], previous.access);
});

t.test('clouds.yaml follows the credentials from one sync to the next, though texts already written are kept', async (t) => {
  const passwordIn = async (password: string): Promise<unknown> => {
    const { children } = await syncFor({ apiCredentialsName: 'mine' }, [secret('mine', { username: 'admin', password })]);
    const data = childOf(children, 'Secret', 'ironic-clouds')?.data;
    const file = parseYaml(
      decode(data?.['clouds.yaml']),
      Type.Object({ clouds: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())) }),
      'clouds.yaml',
    );
    return objAt(present(file.clouds['ironic'], 'the ironic cloud'), 'auth')['password'];
  };
  t.equal(await passwordIn('first'), 'first');
  t.equal(await passwordIn('second'), 'second', 'a changed password is written, not the text kept for the first');
  t.equal(await passwordIn('first'), 'first', 'and the first again');
  t.ok(writtenCloudsYaml.size() >= 2 && writtenCloudsYaml.size() <= 256, `${writtenCloudsYaml.size()} texts kept`);
});
