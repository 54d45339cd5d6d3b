import t from 'tap';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA_RENEW_BEFORE_DAYS, CA_VALIDITY_DAYS, caIsUsable, generateRpcCA, issueRpcCertificate } from '../../src/crypto/rpc-ca.js';
import { materializeRpcCA, bcryptSecrets } from '../../src/hooks/materialize.js';
import { issueFromEnvironment } from '../../src/cli/issue-rpc-cert.js';
import { FIXED_RPC_CA } from '../fixtures/rpc-ca.js';
import { ironicNames } from '../../src/render/names.js';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2026-03-01T12:00:00Z');

t.test('the generated CA is a CA, valid for the documented window, with a matching key', async (t) => {
  const ca = await generateRpcCA('metal3/ironic JSON-RPC CA', now);
  const cert = new X509Certificate(ca.certPem);
  t.ok(cert.ca, 'basicConstraints CA');
  t.ok(cert.checkPrivateKey(createPrivateKey(ca.keyPem)), 'key matches');
  t.ok(cert.verify(cert.publicKey), 'self-signed');
  t.equal(new Date(cert.validTo).getTime(), Math.floor((now.getTime() + CA_VALIDITY_DAYS * DAY) / 1000) * 1000);
  t.ok(new Date(cert.validFrom).getTime() <= now.getTime(), 'valid from now (back-dated for clock skew)');
  t.ok(now.getTime() - new Date(cert.validFrom).getTime() <= 60 * 60 * 1000, 'back-dated by at most an hour');
  t.match(cert.subject, /CN=metal3\/ironic JSON-RPC CA/);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- @types/node says string[], but Node gives undefined for a certificate without extended key usage (this CA).
  t.match(cert.keyUsage ?? [], [], 'has key usage');
});

t.test('a leaf certificate chains to the CA and carries the node and pod IPs', async (t) => {
  const ca = await generateRpcCA('ca', now);
  const leaf = issueRpcCertificate({ ca, ips: ['192.0.2.10', '10.244.0.5', '192.0.2.10'], now });
  const cert = new X509Certificate(leaf.certPem);
  const caCert = new X509Certificate(ca.certPem);
  t.ok(cert.verify(caCert.publicKey), 'signed by the CA');
  t.ok(cert.checkIssued(caCert), 'issued by the CA');
  t.notOk(cert.ca, 'not a CA');
  t.equal(cert.checkIP('192.0.2.10'), '192.0.2.10');
  t.equal(cert.checkIP('10.244.0.5'), '10.244.0.5');
  t.equal(cert.checkIP('192.0.2.11'), undefined);
  t.equal(cert.validTo, caCert.validTo, 'valid until the CA expires');
  t.ok(cert.checkPrivateKey(createPrivateKey(leaf.keyPem)));
  const { execFileSync } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'rpc-strict-'));
  writeFileSync(join(dir, 'ca.pem'), ca.certPem);
  writeFileSync(join(dir, 'leaf.pem'), leaf.certPem);
  try {
    const out = execFileSync('openssl', ['verify', '-x509_strict', '-CAfile', join(dir, 'ca.pem'), join(dir, 'leaf.pem')], { encoding: 'utf8' });
    t.match(out, /OK/, 'passes strict X.509 verification');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') t.comment('openssl is not installed: strict verification not run');
    else throw error;
  }
  const v6 = new X509Certificate(issueRpcCertificate({ ca, ips: ['fd00::10'], now }).certPem);
  t.equal(v6.checkIP('fd00::10'), 'fd00::10', 'IPv6 too');
});

t.test('a CA near expiry is renewed, a fresh one is kept', async (t) => {
  const ca = await generateRpcCA('ca', now);
  t.ok(caIsUsable(ca, now), 'fresh');
  const renewAt = now.getTime() + (CA_VALIDITY_DAYS - CA_RENEW_BEFORE_DAYS) * DAY;
  t.ok(caIsUsable(ca, new Date(renewAt - DAY)), 'kept until the renewal window');
  t.notOk(caIsUsable(ca, new Date(renewAt + DAY)), 'renewed inside the window');
  t.notOk(caIsUsable(ca, new Date(now.getTime() - 2 * 60 * 60 * 1000)), 'not yet valid');
  t.notOk(caIsUsable({ certPem: ca.certPem, keyPem: FIXED_RPC_CA.keyPem }, now), 'a key that does not match');
  t.notOk(caIsUsable({ certPem: 'garbage', keyPem: 'garbage' }, now));
  const leaf = issueRpcCertificate({ ca, ips: ['192.0.2.1'], now });
  t.notOk(caIsUsable(leaf, now), 'a leaf is not a CA');

  const secret = (pem: { certPem: string; keyPem: string }, name: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'metal3', labels: { 'ironic.metal3.io/component': 'rpc-ca' } },
    data: { 'tls.crt': Buffer.from(pem.certPem).toString('base64'), 'tls.key': Buffer.from(pem.keyPem).toString('base64') },
  });
  const children = { 'Secret.v1': { 'metal3/ironic-rpc-ca-x': secret(ca, 'ironic-rpc-ca-x') } };
  let generated = 0;
  const secrets = {
    ...bcryptSecrets(),
    rpcCA: async (cn: string, at: Date) => {
      generated += 1;
      return generateRpcCA(cn, at);
    },
  };
  const kept = await materializeRpcCA({ name: 'ironic', names: ironicNames('ironic'), namespace: 'metal3', children, now, secrets });
  t.equal(kept.certPem, ca.certPem, 'the observed CA is reused');
  t.equal(generated, 0);
  const renewed = await materializeRpcCA({
    name: 'ironic',
    names: ironicNames('ironic'),
    namespace: 'metal3',
    children,
    now: new Date(renewAt + DAY),
    secrets,
  });
  t.equal(renewed.certPem, ca.certPem, 'ahead of expiry, the old CA still signs while the next one is staged');
  t.ok(renewed.next !== undefined && renewed.next.certPem !== ca.certPem, 'a next CA is staged (see rotation.test.ts for the promotion)');
  t.equal(generated, 1);
  t.not(renewed.secretName, kept.secretName, 'a renewal is a new Secret (and a rolling restart)');
  t.match(kept.secretName, /^ironic-rpc-ca-[0-9a-f]{10}$/);
});

t.test('the init container issues the certificate from its environment', async (t) => {
  const ca = await generateRpcCA('ca', now);
  const caDir = mkdtempSync(join(tmpdir(), 'rpc-ca-'));
  const outDir = mkdtempSync(join(tmpdir(), 'rpc-cert-'));
  writeFileSync(join(caDir, 'tls.crt'), ca.certPem);
  writeFileSync(join(caDir, 'tls.key'), ca.keyPem);
  const interfaces = () => ({
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
    eth1: [
      { address: '198.51.100.7', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '52:54:00:00:00:01', internal: false, cidr: '198.51.100.7/24' },
      {
        address: 'fe80::1',
        netmask: 'ffff:ffff:ffff:ffff::',
        family: 'IPv6' as const,
        mac: '52:54:00:00:00:01',
        internal: false,
        cidr: 'fe80::1/64',
        scopeid: 2,
      },
    ],
  });
  const message = await issueFromEnvironment(
    { RPC_CA_DIR: caDir, RPC_CERT_DIR: outDir, HOST_IP: '192.0.2.7', POD_IP: '192.0.2.7', PROVISIONING_INTERFACE: 'eth1' },
    now,
    interfaces,
  );
  t.match(message, /192\.0\.2\.7, 198\.51\.100\.7$/, 'the node IP and the provisioning interface address (not loopback, not link-local)');
  const cert = new X509Certificate(readFileSync(join(outDir, 'tls.crt')));
  t.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
  t.equal(cert.checkIP('192.0.2.7'), '192.0.2.7');
  t.equal(cert.checkIP('198.51.100.7'), '198.51.100.7', 'the address the conductor registers');
  t.equal(readFileSync(join(outDir, 'ca.crt'), 'utf8'), ca.certPem);
  const byMac = await issueFromEnvironment({ RPC_CA_DIR: caDir, RPC_CERT_DIR: outDir, PROVISIONING_MACS: '52:54:00:00:00:01' }, now, interfaces);
  t.match(byMac, /198\.51\.100\.7/, 'found by MAC address');
  let calls = 0;
  const late = () => (++calls < 3 ? {} : interfaces());
  t.match(
    await issueFromEnvironment({ RPC_CA_DIR: caDir, RPC_CERT_DIR: outDir, PROVISIONING_INTERFACE: 'eth1' }, now, late, 1),
    /198\.51\.100\.7/,
    'waits for the interface address',
  );
  // keepalived: PROVISIONING_IP is a virtual IP that appears on the interface only after the init containers.
  let polled = 0;
  const vipLater = () => {
    polled += 1;
    return { eth1: [] };
  };
  const started = Date.now();
  const keepalived = await issueFromEnvironment(
    { CA_DIR: caDir, CERT_DIR: outDir, PROVISIONING_IP: '192.0.2.2', PROVISIONING_INTERFACE: 'eth1', CERT_IP_ADDRESSES: '192.0.2.2', POD_IP: '192.0.2.7' },
    now,
    vipLater,
    10_000,
  );
  t.match(keepalived, /192\.0\.2\.2, 192\.0\.2\.7$/, 'a given PROVISIONING_IP is certified without the interface');
  t.equal(polled, 1, 'the interface is looked at once, not waited for');
  t.ok(Date.now() - started < 5000, 'no wait');
  t.match(
    await issueFromEnvironment({ CA_DIR: caDir, CERT_DIR: outDir, PROVISIONING_IP: '192.0.2.2', PROVISIONING_INTERFACE: 'eth1' }, now, interfaces),
    /192\.0\.2\.2, 198\.51\.100\.7$/,
    'an address the interface already has is covered too',
  );
  await t.rejects(issueFromEnvironment({ RPC_CA_DIR: caDir }, now), /CERT_DIR must be set/);
  await t.rejects(
    issueFromEnvironment({ RPC_CA_DIR: caDir, RPC_CERT_DIR: outDir, RPC_WAIT_SECONDS: '0', PROVISIONING_INTERFACE: 'nope' }, now, interfaces, 1),
    /no address to certify/,
  );
});
