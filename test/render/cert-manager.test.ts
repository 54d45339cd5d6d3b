/** spec.tls.issuerRef rendered by a hook server with CERT_MANAGER=true: the Certificate, waiting, and serving. */
import t from 'tap';
import { syncIronic, customizeIronic } from '../../src/hooks/ironic.js';
import { customizeRequest, fakeSecrets, ironic, syncRequest, testContext, type Obj } from '../helpers/hooks.js';
import { related, secret } from '../fixtures/ironic-scenarios.js';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { CERT_MANAGER_CRDS } from '../support/crd-schema.js';
import { childOf, containerOf, envOf, podOf, podSpecOf } from '../helpers/render.js';
import { childrenOf, requireChild } from '../helpers/children.js';
import { objAt, present, valueAt } from '../support/paths.js';

const spec = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, tls: { issuerRef: { name: 'ca' } } };

const run = async (specObj: Obj, relatedObjects: Obj[] = [], children: Obj = {}) => {
  const base = testContext(fakeSecrets());
  const ctx = { ...base, config: { ...base.config, certManager: true, clusterDomain: 'cluster.local' } };
  return syncIronic(syncRequest({ parent: ironic(specObj, { status: { installedVersion: '38.0' } }), children, related: related(...relatedObjects) }), ctx);
};

const issued = (data: Record<string, string>, annotations: Record<string, string> = {}): Obj => {
  const s = secret('ironic-serving-tls', data);
  return { ...s, metadata: { ...objAt(s, 'metadata'), annotations } };
};

const certificateCrd = (): Obj => present(CERT_MANAGER_CRDS.get('Certificate'))();

t.test('customize asks for the Secret cert-manager fills', async (t) => {
  const response = customizeIronic(customizeRequest({ parent: ironic(spec), controller: {} }));
  t.ok(response.relatedResources.some((r) => r.resource === 'secrets' && (r.names ?? []).includes('ironic-serving-tls')));
});

t.test('until cert-manager filled the Secret: the Certificate only, waiting with the reason', async (t) => {
  const waiting = await run(spec);
  t.same(
    waiting.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
  );
  const certificate = requireChild(waiting, 'Certificate');
  t.same(checkAgainstCrd(certificateCrd(), certificate), [], "fits cert-manager's published CRD");
  t.same(certificate['spec'], {
    secretName: 'ironic-serving-tls',
    secretTemplate: {
      labels: {
        'ironic.metal3.io/ironic': 'ironic',
        'app.kubernetes.io/managed-by': 'ironic-metacontroller-hooks',
        'ironic.metal3.io/component': 'serving-certificate',
      },
    },
    issuerRef: { name: 'ca', kind: 'Issuer', group: 'cert-manager.io' },
    commonName: 'ironic',
    dnsNames: ['ironic', 'ironic.metal3', 'ironic.metal3.svc', 'ironic.metal3.svc.cluster.local'],
    ipAddresses: ['192.0.2.2'],
    duration: '2160h',
    renewBefore: '720h',
    usages: ['server auth', 'digital signature', 'key encipherment'],
    privateKey: { rotationPolicy: 'Always' },
  });
  t.match(waiting.status['conditions'], [{ status: 'False', reason: 'DeploymentInProgress', message: /waiting for cert-manager .* \(Certificate ironic\)$/ }]);
  t.equal(waiting.resyncAfterSeconds, 30);
  // The Certificate's own Ready condition says why cert-manager has not issued yet.
  const observed = {
    'Certificate.cert-manager.io/v1': {
      'metal3/ironic': { ...certificate, status: { conditions: [{ type: 'Ready', status: 'False', message: 'Issuer ca not found' }] } },
    },
  };
  const told = await run(spec, [], observed);
  t.match(told.status['conditions'], [{ message: /\(Certificate ironic: Issuer ca not found\)/ }]);
  t.equal(told.children.length, 1, 'the Certificate is kept, once');
  const half = await run(spec, [issued({ 'tls.crt': 'CERT' })]);
  t.same(
    half.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'a Secret without its key is not used yet',
  );
});

t.test('once issued: served like a certificate Secret, and a ClusterIssuer works too', async (t) => {
  const response = await run({ ...spec, tls: { issuerRef: { name: 'ca', kind: 'ClusterIssuer' } } }, [
    issued({ 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' }),
  ]);
  t.match(requireChild(response, 'Certificate')['spec'], { issuerRef: { name: 'ca', kind: 'ClusterIssuer', group: 'cert-manager.io' } });
  const pod = podOf(response.children);
  t.match(
    pod.volumes.find((v) => v.name === 'cert-ironic'),
    { secret: { secretName: 'ironic-serving-tls' } },
  );
  t.equal(envOf(containerOf(pod, 'ironic'))['IRONIC_CACERT_FILE'], '/certs/ironic/ca.crt');
  t.equal(envOf(containerOf(pod, 'ironic'))['VMEDIA_TLS_PORT'], '6183');
  t.match(response.status['access'], { caCertificate: { kind: 'Secret', name: 'ironic-serving-tls', key: 'ca.crt' } });
  // An ACME issuer leaves ca.crt empty: clients trust the certificate's chain, the pods get no CA file.
  const acme = await run(spec, [issued({ 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': '' })]);
  t.match(acme.status['access'], { caCertificate: { kind: 'Secret', name: 'ironic-serving-tls', key: 'tls.crt' } });
  t.equal(envOf(containerOf(podOf(acme.children), 'ironic'))['IRONIC_CACERT_FILE'], undefined);
});

t.test('a Secret issued for other names keeps the pods on it until cert-manager re-issued', async (t) => {
  const data = { 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' };
  const names = 'ironic,ironic.metal3,ironic.metal3.svc,ironic.metal3.svc.cluster.local';
  const current = await run(spec, [issued(data, { 'cert-manager.io/alt-names': names, 'cert-manager.io/ip-sans': '192.0.2.2' })]);
  t.ok(childOf(current.children, 'Deployment'), 'issued for exactly these names: served');
  const stale = await run(spec, [issued(data, { 'cert-manager.io/alt-names': names, 'cert-manager.io/ip-sans': '192.0.2.9' })]);
  t.same(
    stale.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'another address: wait (observed children kept)',
  );
  const reordered = await run(spec, [
    issued(data, { 'cert-manager.io/alt-names': names.split(',').reverse().join(','), 'cert-manager.io/ip-sans': '192.0.2.2' }),
  ]);
  t.ok(childOf(reordered.children, 'Deployment'), 'the order does not matter');
});

t.test('addresses written in another form than Go writes them: the Certificate asks in canonical form, and the issued Secret is current', async (t) => {
  const data = { 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' };
  const names = 'ironic,ironic.metal3,ironic.metal3.svc,ironic.metal3.svc.cluster.local';
  const written = { networking: { interface: 'eth1', ipAddress: 'FD00:0::2', externalIP: '::ffff:192.0.2.9' }, tls: { issuerRef: { name: 'ca' } } };
  const waiting = await run(written);
  t.same(objAt(requireChild(waiting, 'Certificate'), 'spec')['ipAddresses'], ['fd00::2', '192.0.2.9']);
  // cert-manager annotates the Secret with Go's net.IP.String() of each SAN.
  const served = await run(written, [issued(data, { 'cert-manager.io/alt-names': names, 'cert-manager.io/ip-sans': 'fd00::2,192.0.2.9' })]);
  t.ok(childOf(served.children, 'Deployment'), 'issued for these addresses: served, not waiting forever');
  const other = await run(written, [issued(data, { 'cert-manager.io/alt-names': names, 'cert-manager.io/ip-sans': 'fd00::3,192.0.2.9' })]);
  t.same(
    other.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'another address still waits',
  );
  const fewer = await run(written, [issued(data, { 'cert-manager.io/alt-names': names, 'cert-manager.io/ip-sans': 'fd00::2' })]);
  t.same(
    fewer.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'a missing address still waits',
  );
  const junk = await run(written, [
    issued(data, { 'cert-manager.io/alt-names': names.toUpperCase(), 'cert-manager.io/ip-sans': 'fd00::2,192.0.2.9,not-an-ip' }),
  ]);
  t.same(
    junk.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'an entry that is no address differs',
  );
});

t.test('with the networking service: the Certificate covers its Service names too, as it serves with the same Secret', async (t) => {
  const withService = { ...spec, networkingService: { enabled: true } };
  const waiting = await run(withService);
  const names = [
    'ironic',
    'ironic.metal3',
    'ironic.metal3.svc',
    'ironic.metal3.svc.cluster.local',
    'ironic-networking-service',
    'ironic-networking-service.metal3',
    'ironic-networking-service.metal3.svc',
    'ironic-networking-service.metal3.svc.cluster.local',
  ];
  t.match(requireChild(waiting, 'Certificate')['spec'], { commonName: 'ironic', dnsNames: names, ipAddresses: ['192.0.2.2'] });
  const data = { 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' };
  const old = await run(withService, [issued(data, { 'cert-manager.io/alt-names': names.slice(0, 4).join(','), 'cert-manager.io/ip-sans': '192.0.2.2' })]);
  t.same(
    old.children.map((c) => valueAt(c, 'kind')),
    ['Certificate'],
    'a Secret issued before the service was enabled: wait for the new one',
  );
  const served = await run(withService, [issued(data, { 'cert-manager.io/alt-names': names.join(','), 'cert-manager.io/ip-sans': '192.0.2.2' })]);
  const deployments = childrenOf(served, 'Deployment');
  const networking = requireChild(deployments, 'Deployment', 'ironic-networking');
  const pod = podSpecOf(networking.spec?.template.spec);
  t.match(
    pod.volumes.find((v) => v.name === 'cert-ironic'),
    { secret: { secretName: 'ironic-serving-tls' } },
    'the networking pod serves with the issued Secret',
  );
  t.equal(pod.initContainers, undefined, 'and issues nothing itself');
});
