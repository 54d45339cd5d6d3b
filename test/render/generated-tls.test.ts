/**
 * Generated API certificates as the image sees them: the pod a sync renders with tls.generateCertificate
 * satisfies the ironic-image contract (/certs/ironic and /certs/vmedia with tls.crt and tls.key, the CA file
 * only next to its server certificate, VMEDIA_TLS_PORT, reverse proxy in both containers), the CA key
 * reaches the issuing init container only, and clients are told which CA to trust.
 */
import { secret as secretObject } from '../fixtures/ironic-scenarios.js';
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { syncIronic } from '../../src/hooks/ironic.js';
import { issueFromEnvironment } from '../../src/cli/issue-rpc-cert.js';
import { generateRpcCA } from '../../src/crypto/rpc-ca.js';
import { certificateSubjects } from '../../src/render/ironic/subjects.js';
import { ironicNames } from '../../src/render/names.js';
import { ingressTLSName } from '../../src/render/ironic/features/api-service.js';
import { cloudsName } from '../../src/render/ironic/features/client-handoff.js';
import { parseIronic } from '../../src/api/ironic/parse.js';
import type { IronicRenderInput } from '../../src/render/ironic/input.js';
import { childOf, containerOf, envOf, podOf, podSpecOf, syncFor, type Container } from '../helpers/render.js';
import { fakeSecrets, ironic, syncRequest, testConfig, type Obj } from '../helpers/hooks.js';
import { childrenOf, requireChild } from '../helpers/children.js';
import { objAt, objsAt } from '../support/paths.js';
import { observeAll, availableDeployment } from '../helpers/k8s.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const spec = { networking: provisioning, tls: { generateCertificate: true } };

const mountsOf = (c: Container | undefined): Record<string, { name: string; readOnly?: boolean }> =>
  Object.fromEntries((c?.volumeMounts ?? []).map((m) => [m.mountPath, m]));

t.test('the pod satisfies the image contract with generated certificates', async (t) => {
  const response = await syncFor(spec);
  const pod = podOf(response.children);
  const issuer = containerOf(pod, 'tls-certificate');
  const certVolume = pod.volumes.find((v) => v.name === 'cert-ironic');
  t.same(certVolume, { name: 'cert-ironic', emptyDir: { medium: 'Memory' } }, 'the certificate lives in memory, in the pod');
  t.equal(pod.initContainers?.[0]?.name, 'tls-certificate', 'issued before anything else starts');
  t.same(mountsOf(issuer)['/certs/ironic'], { name: 'cert-ironic', mountPath: '/certs/ironic' }, 'the issuer writes /certs/ironic');
  for (const name of ['ironic', 'httpd']) {
    const c = containerOf(pod, name);
    const mounts = mountsOf(c);
    t.match(mounts['/certs/ironic'], { name: 'cert-ironic', readOnly: true }, `${name}: /certs/ironic (tls.crt, tls.key)`);
    t.match(mounts['/certs/vmedia'], { name: 'cert-ironic', readOnly: true }, `${name}: /certs/vmedia, the same certificate`);
    const env = envOf(c);
    t.equal(env['IRONIC_REVERSE_PROXY_SETUP'], 'true', `${name}: reverse proxy (Q6: only with a certificate)`);
    t.equal(env['IRONIC_PRIVATE_PORT'], 'unix', name);
    t.equal(env['VMEDIA_TLS_PORT'], '6183', `${name}: VMEDIA_TLS_PORT (Q1)`);
  }
  // Q17: the CA file switches a container to https; it is only ever next to the server certificate.
  t.equal(envOf(containerOf(pod, 'ironic'))['IRONIC_CACERT_FILE'], '/certs/ironic/ca.crt', 'the CA bundle the issuer writes next to tls.crt');
  t.equal(envOf(containerOf(pod, 'httpd'))['IRONIC_HTPASSWD'], '<secretKeyRef>', 'httpd authenticates in front of the unix socket');
  t.ok(
    containerOf(pod, 'httpd')?.ports?.some((p) => p.containerPort === 6385),
    'httpd serves the API',
  );
  // The CA key: one volume, mounted by the issuer only, readable by the ironic group through fsGroup.
  const keyVolume = pod.volumes.find((v) => v.name === 'tls-ca-key');
  t.match(keyVolume, { secret: { secretName: /^ironic-tls-ca-[0-9a-f]{10}$/, defaultMode: 0o440 } });
  const withKey = [...pod.containers, ...(pod.initContainers ?? [])]
    .filter((c) => (c.volumeMounts ?? []).some((m) => m.name === 'tls-ca-key'))
    .map((c) => c.name);
  t.same(withKey, ['tls-certificate'], 'the CA key is never mounted into an Ironic container');
  t.match(pod.securityContext, { fsGroup: 994 });
  const env = envOf(issuer);
  t.equal(env['CERT_DNS_NAMES'], 'ironic,ironic.metal3,ironic.metal3.svc');
  t.equal(env['CERT_IP_ADDRESSES'], '192.0.2.2');
  t.equal(env['CERT_VALIDITY_DAYS'], '90');
  t.equal(env['PROVISIONING_INTERFACE'], 'eth1', 'the addresses Ironic advertises are found as Ironic finds them');
});

t.test('what the issuer writes is what tls-common.sh and httpd need', async (t) => {
  const ca = await generateRpcCA('metal3/ironic CA', new Date('2026-01-01T00:00:00Z'));
  const caDir = mkdtempSync(join(tmpdir(), 'tls-ca-'));
  writeFileSync(join(caDir, 'tls.crt'), ca.certPem);
  writeFileSync(join(caDir, 'tls.key'), ca.keyPem);
  writeFileSync(join(caDir, 'ca.crt'), ca.certPem);
  const response = await syncFor(spec);
  const issuer = containerOf(podOf(response.children), 'tls-certificate');
  const certs = mkdtempSync(join(tmpdir(), 'certs-ironic-'));
  const env = { ...envOf(issuer), CA_DIR: caDir, CERT_DIR: certs, HOST_IP: '192.0.2.2', POD_IP: '192.0.2.2' };
  await issueFromEnvironment(env, new Date('2026-01-01T00:00:00Z'), () => ({
    eth1: [{ address: '192.0.2.2', netmask: '255.255.255.0', family: 'IPv4', mac: '52:54:00:00:00:01', internal: false, cidr: '192.0.2.2/24' }],
  }));
  // tls-common.sh exits when tls.crt is there without tls.key, or the reverse; the CA file goes with them.
  for (const file of ['tls.crt', 'tls.key', 'ca.crt']) t.ok(existsSync(join(certs, file)), `/certs/ironic/${file}`);
  const cert = new X509Certificate(readFileSync(join(certs, 'tls.crt')));
  t.ok(cert.verify(new X509Certificate(ca.certPem).publicKey), 'chains to the CA clients trust');
  t.equal(cert.checkIP('192.0.2.2'), '192.0.2.2', 'the address in the image server URLs BMCs get');
  t.equal(cert.checkHost('ironic.metal3.svc'), 'ironic.metal3.svc', 'the Service name of status.access.apiURL');
});

t.test('clients are told which CA to trust', async (t) => {
  const response = await syncFor(spec);
  const status = response.status;
  t.same(objAt(status, 'access')['caCertificate'], { kind: 'ConfigMap', name: 'ironic-ca', key: 'ca.crt' });
  t.match(objAt(status, 'access')['apiURL'], /^https:/);
  const configMap = requireChild(response, 'ConfigMap');
  const bundle = String(objAt(configMap, 'data')['ca.crt']);
  t.match(bundle, /BEGIN CERTIFICATE/);
  const clouds = requireChild(response, 'Secret', 'ironic-clouds');
  const data = clouds.data ?? {};
  t.equal(Buffer.from(data['ca.crt'] ?? '', 'base64').toString(), bundle, 'the clouds hand-off carries the same bundle');
  const yaml: unknown = parse(Buffer.from(data['clouds.yaml'] ?? '', 'base64').toString());
  t.match(yaml, { clouds: { ironic: { cacert: '/etc/openstack/ca.crt', baremetal_endpoint_override: 'https://ironic.metal3.svc' } } });
  t.ok(typeof response.resyncAfterSeconds === 'number' && response.resyncAfterSeconds > 0, 'comes back when the renewal is due');
});

t.test('a sync fed its own output at the same time changes nothing', async (t) => {
  const secrets = fakeSecrets();
  const ctx = { config: testConfig().render, secrets, now: () => '2026-02-01T00:00:00Z' };
  const parent = ironic(spec, { status: { installedVersion: '38.0' } });
  const first = await syncIronic(syncRequest({ parent, children: {}, related: {} }), ctx);
  const observed = observeAll(objsAt(first, 'children'), {}, (o) => (o['kind'] === 'Deployment' ? availableDeployment(o) : undefined));
  const second = await syncIronic(syncRequest({ parent: { ...parent, status: first.status }, children: observed, related: {} }), ctx);
  const third = await syncIronic(
    syncRequest({ parent: { ...parent, status: second.status }, children: observeAll(objsAt(second, 'children'), observed), related: {} }),
    ctx,
  );
  t.same(third.children, second.children, 'children unchanged');
  t.same(third.resyncAfterSeconds, second.resyncAfterSeconds);
  // The CA (a fixture) starts 2025-12-31T23:00Z: the next renewal period starts 60 days later.
  t.equal(
    second.resyncAfterSeconds,
    (Date.parse('2026-03-01T23:00:00Z') - Date.parse('2026-02-01T00:00:00Z')) / 1000,
    'back exactly when the next renewal is due',
  );
  t.equal(secrets.cas(), 1, 'one CA, kept');
});

const inputFor = (specObj: Obj, clusterDomain = ''): IronicRenderInput => {
  const parsed = parseIronic(specObj);
  if (!parsed.ok) throw new Error('invalid spec');
  return {
    name: 'ironic',
    namespace: 'metal3',
    names: ironicNames('ironic'),
    model: parsed.model,
    config: { ...testConfig().render, clusterDomain },
  } as unknown as IronicRenderInput;
};

t.test('the certificates cover every name and address clients use', async (t) => {
  // Addresses as Go writes them back from a certificate (and cert-manager in its annotation).
  t.same(certificateSubjects(inputFor({ networking: { ...provisioning, externalIP: '2001:DB8::5' }, tls: { generateCertificate: true } }, 'cluster.local')), {
    dnsNames: ['ironic', 'ironic.metal3', 'ironic.metal3.svc', 'ironic.metal3.svc.cluster.local'],
    ips: ['192.0.2.2', '2001:db8::5'],
  });
  t.same(
    certificateSubjects(inputFor({ networking: { disableHostNetwork: true, ingress: { host: 'Ironic.Example.com' } }, tls: { generateCertificate: true } })),
    {
      dnsNames: ['ironic', 'ironic.metal3', 'ironic.metal3.svc', 'ironic.example.com'],
      ips: [],
    },
  );
  t.same(
    certificateSubjects(
      inputFor({
        networking: { ...provisioning, externalCallbackURL: 'https://[fd00::2]:6385', imageServerExternalURL: 'https://images.example.com:6183' },
        tls: { generateCertificate: true },
      }),
    ),
    { dnsNames: ['ironic', 'ironic.metal3', 'ironic.metal3.svc', 'images.example.com'], ips: ['fd00::2', '192.0.2.2'] },
    'the hosts of the external URLs',
  );
  const valid = inputFor({ networking: provisioning, tls: { generateCertificate: true } });
  const unparsable: IronicRenderInput = {
    ...valid,
    model: { ...valid.model, networking: { ...valid.model.networking, externalCallbackURL: 'not a url', imageServerExternalURL: '' } },
  };
  t.same(
    certificateSubjects(unparsable).dnsNames,
    ['ironic', 'ironic.metal3', 'ironic.metal3.svc'],
    'a URL that does not parse adds nothing (validation reports it)',
  );
  const changed = await syncFor({ networking: { ...provisioning, externalIP: '203.0.113.9' }, tls: { generateCertificate: true } });
  t.match(
    envOf(containerOf(podOf(changed.children), 'tls-certificate'))['CERT_IP_ADDRESSES'],
    /203\.0\.113\.9/,
    'a new address changes the pod template: the pods roll and issue anew',
  );
});

t.test('with generated certificates, certificateName names the Secret the CA is published into', async (t) => {
  const response = await syncFor({ networking: provisioning, tls: { generateCertificate: true, certificateName: 'ironic-bmo-ca' } });
  const secret = childOf(response.children, 'Secret', 'ironic-bmo-ca');
  const bundle = objAt(childOf(response.children, 'ConfigMap', 'ironic-ca'), 'data')['ca.crt'];
  const data = objAt(secret, 'data');
  t.equal(typeof bundle, 'string');
  t.same(Object.keys(data).sort(), ['ca.crt', 'tls.crt'], 'the CA under both keys, and no private key');
  t.equal(Buffer.from(String(data['tls.crt']), 'base64').toString(), bundle, 'tls.crt is the bundle clients trust');
  t.notOk(
    podOf(response.children).volumes.some((v) => v.secret?.secretName === 'ironic-bmo-ca'),
    'the pods do not serve it: they issue their own certificates',
  );

  const users = await syncFor({ networking: provisioning, tls: { generateCertificate: true, certificateName: 'ironic-bmo-ca' } }, [
    secretObject('ironic-bmo-ca', { 'tls.crt': 'MINE' }),
  ]);
  t.match(users.status['conditions'], [{ status: 'False', message: /Secret metal3\/ironic-bmo-ca already exists and does not belong to this Ironic/ }]);
  t.notOk(childOf(users.children, 'Secret', 'ironic-bmo-ca'), 'a Secret of the user is never overwritten');

  const clash = await syncFor({ networking: provisioning, tls: { generateCertificate: true, certificateName: 'ironic-clouds' } });
  t.match(clash.status['conditions'], [
    { reason: 'InvalidReference', message: /tls\.certificateName ironic-clouds .*already used for another Secret of this Ironic/ },
  ]);
});

t.test('certificateName cannot be any Secret name a feature of the Ironic renders or has filled', async (t) => {
  const names = ironicNames('ironic');
  const taken = [
    names.apiCredentials,
    `${names.htpasswdPrefix}0123456789`,
    names.certificateSecret,
    ingressTLSName(names),
    cloudsName(names),
    names.switchConfig,
    names.switchCredentials,
    `${names.rpcCAPrefix}0123456789`,
    `${names.tlsCAPrefix}0123456789`,
    `${names.contentNamed('-keepalived').prefix}0123456789`,
  ];
  for (const name of taken) {
    const response = await syncFor({ networking: provisioning, tls: { generateCertificate: true, certificateName: name } });
    t.match(response.status['conditions'], [{ reason: 'InvalidReference', message: /already used for another Secret of this Ironic/ }], name);
  }
  const free = await syncFor({ networking: provisioning, tls: { generateCertificate: true, certificateName: 'ironic-ca-for-bmo' } });
  t.notMatch(JSON.stringify(free.status['conditions']), /already used/, 'another name is free');
});

t.test('in high availability the serving certificate and the JSON-RPC one stay apart', async (t) => {
  const response = await syncFor({
    highAvailability: true,
    database: { host: 'db', name: 'ironic', credentialsName: 'db' },
    networking: { interface: 'eth1' },
    tls: { generateCertificate: true },
  });
  const pod = podOf(response.children);
  const ironicC = containerOf(pod, 'ironic');
  const env = envOf(ironicC);
  t.equal(env['OS_JSON_RPC__CAFILE'], '/certs/rpc-ca/ca.crt', 'peers are verified with the JSON-RPC CA only');
  t.equal(env['OS_SSL__CERT_FILE'], '/certs/rpc/tls.crt', 'the JSON-RPC server presents its RPC leaf');
  t.equal(env['IRONIC_CACERT_FILE'], '/certs/ironic/ca.crt');
  t.match(mountsOf(ironicC)['/certs/ironic'], { name: 'cert-ironic', readOnly: true });
  t.match(mountsOf(containerOf(pod, 'httpd'))['/certs/ironic'], { name: 'cert-ironic', readOnly: true }, 'httpd serves the API with the node certificate');
  const issuerEnv = envOf(containerOf(pod, 'tls-certificate'));
  t.equal(issuerEnv['HOST_IP'], '<fieldRef>', "the node's address");
  t.equal(issuerEnv['CERT_IP_ADDRESSES'], undefined, 'no fixed address in HA');
  const keys = pod.volumes.filter((v) => v.name === 'tls-ca-key' || v.name === 'rpc-ca-key').map((v) => v.secret?.secretName);
  t.equal(new Set(keys).size, 2, 'two CAs, two Secrets');
  t.match(childOf(response, 'DaemonSet')?.spec, { template: { spec: { securityContext: { fsGroup: 994 } } } });
});

t.test('the networking service serves JSON-RPC over https with a certificate for the name Ironic calls', async (t) => {
  const at = new Date('2026-01-01T00:00:00Z');
  const ca = await generateRpcCA('metal3/ironic CA', at);
  const caDir = mkdtempSync(join(tmpdir(), 'tls-ca-'));
  writeFileSync(join(caDir, 'tls.crt'), ca.certPem);
  writeFileSync(join(caDir, 'tls.key'), ca.keyPem);
  const response = await syncFor({ ...spec, networkingService: { enabled: true } });
  const deployments = childrenOf(response, 'Deployment');
  const networking = requireChild(deployments, 'Deployment', 'ironic-networking');
  const template = networking.spec?.template;
  const pod = podSpecOf(template?.spec);
  const ironicPod = podOf(deployments.filter((d) => d !== networking));
  // ironic-image turns https on for the networking service's JSON-RPC in both pods when /certs/ironic/tls.crt
  // exists ([ironic_networking_json_rpc] use_ssl in ironic.conf.j2 and ironic-networking.conf.j2).
  t.match(mountsOf(containerOf(ironicPod, 'ironic'))['/certs/ironic'], { name: 'cert-ironic' }, 'Ironic calls it over https');
  t.match(mountsOf(containerOf(pod, 'ironic-networking'))['/certs/ironic'], { name: 'cert-ironic', readOnly: true }, 'so it serves https');
  t.same(
    pod.volumes.find((v) => v.name === 'cert-ironic'),
    { name: 'cert-ironic', emptyDir: { medium: 'Memory' } },
  );
  t.equal(envOf(containerOf(pod, 'ironic-networking'))['IRONIC_CACERT_FILE'], '/certs/ironic/ca.crt');
  t.match(pod.securityContext, { fsGroup: 994 }, 'the issuer reads the CA key through the ironic group');
  t.match(
    template?.metadata?.annotations,
    { 'ironic.metal3.io/tls-ca-version': /./, 'ironic.metal3.io/tls-renewal-version': /./ },
    'a renewal or a new CA rolls it too',
  );
  const issuer = containerOf(pod, 'tls-certificate');
  t.equal(pod.initContainers?.length, 1);
  const host = envOf(containerOf(ironicPod, 'ironic'))['IRONIC_NETWORKING_JSON_RPC_HOST'] ?? '';
  t.equal(host, 'ironic-networking-service.metal3.svc');
  t.notOk(envOf(issuer)['PROVISIONING_INTERFACE'], 'off the host network: no provisioning interface to wait for');
  const certs = mkdtempSync(join(tmpdir(), 'certs-networking-'));
  await issueFromEnvironment({ ...envOf(issuer), CA_DIR: caDir, CERT_DIR: certs, POD_IP: '10.0.0.9' }, at, () => ({}));
  const cert = new X509Certificate(readFileSync(join(certs, 'tls.crt')));
  t.ok(cert.verify(new X509Certificate(ca.certPem).publicKey), 'signed by the CA Ironic trusts');
  t.equal(cert.checkHost(host), host, 'covers the host Ironic calls');
  // The Ironic pods' own certificate stays as it was.
  t.equal(envOf(containerOf(ironicPod, 'tls-certificate'))['CERT_DNS_NAMES'], 'ironic,ironic.metal3,ironic.metal3.svc');
});
