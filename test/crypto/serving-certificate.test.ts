/** Generated API certificates: what the init container issues, and when the hook renews them. */
import t from 'tap';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA_VALIDITY_DAYS, caRenewalStart, generateRpcCA, issueCertificate } from '../../src/crypto/rpc-ca.js';
import {
  CA_PUBLISHED_BEFORE_SIGNING_DAYS,
  LEAF_RENEW_AFTER_DAYS,
  LEAF_VALIDITY_DAYS,
  publishedLongEnough,
  renewalPeriod,
  signableAt,
} from '../../src/crypto/renewal.js';
import { issueFromEnvironment } from '../../src/cli/issue-rpc-cert.js';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2026-03-01T12:00:00Z');

const caDirWith = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-ca-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
};

t.test('the init container issues a serving certificate for the names, the addresses and the node', async (t) => {
  const ca = await generateRpcCA('metal3/ironic CA', now);
  const next = await generateRpcCA('metal3/ironic CA', now);
  const bundle = `${ca.certPem}${next.certPem}`;
  const caDir = caDirWith({ 'tls.crt': ca.certPem, 'tls.key': ca.keyPem, 'ca.crt': bundle });
  const outDir = mkdtempSync(join(tmpdir(), 'tls-cert-'));
  const message = await issueFromEnvironment(
    {
      CA_DIR: caDir,
      CERT_DIR: outDir,
      CERT_VALIDITY_DAYS: String(LEAF_VALIDITY_DAYS),
      CERT_DNS_NAMES: 'ironic,ironic.metal3,ironic.metal3.svc,ironic.metal3.svc.cluster.local,ironic.example.com',
      CERT_IP_ADDRESSES: '192.0.2.2,2001:db8::5',
      HOST_IP: '192.0.2.7',
      POD_IP: '192.0.2.7',
    },
    now,
    () => ({}),
  );
  t.match(message, /ironic\.example\.com.*2001:db8::5/);
  const cert = new X509Certificate(readFileSync(join(outDir, 'tls.crt')));
  const caCert = new X509Certificate(ca.certPem);
  t.ok(cert.checkIssued(caCert), 'issued by the CA');
  t.ok(cert.verify(caCert.publicKey), 'signed by the CA');
  t.notOk(cert.ca, 'not a CA');
  for (const name of ['ironic', 'ironic.metal3', 'ironic.metal3.svc', 'ironic.metal3.svc.cluster.local', 'ironic.example.com'])
    t.equal(cert.checkHost(name), name, `covers ${name}`);
  t.equal(cert.checkHost('other.metal3.svc'), undefined, 'and no other name');
  for (const ip of ['192.0.2.2', '2001:db8::5', '192.0.2.7']) t.equal(cert.checkIP(ip), ip, `covers ${ip}`);
  t.match(cert.subject, /CN=ironic\b/, 'named after the first DNS name');
  t.same(cert.keyUsage.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'], 'server and client authentication');
  const lifetime = Date.parse(cert.validTo) - now.getTime();
  t.ok(Math.abs(lifetime - LEAF_VALIDITY_DAYS * DAY) < 2000, `valid ${LEAF_VALIDITY_DAYS} days`);
  t.ok(Date.parse(cert.validFrom) <= now.getTime(), 'already valid');
  t.ok(cert.checkPrivateKey(createPrivateKey(readFileSync(join(outDir, 'tls.key')))), 'the key is the certificate of the key');
  t.equal(readFileSync(join(outDir, 'ca.crt'), 'utf8'), bundle, 'ca.crt is the whole bundle: both CAs of a rotation');
});

t.test('a leaf never outlives its CA, and bad settings are refused', async (t) => {
  const ca = await generateRpcCA('ca', now);
  const late = new Date(now.getTime() + (CA_VALIDITY_DAYS - 10) * DAY);
  const leaf = new X509Certificate(issueCertificate({ ca, ips: [], dnsNames: ['ironic'], now: late, validityDays: LEAF_VALIDITY_DAYS }).certPem);
  t.equal(leaf.validTo, new X509Certificate(ca.certPem).validTo, 'cut at the CA expiry');
  const caDir = caDirWith({ 'tls.crt': ca.certPem, 'tls.key': ca.keyPem });
  const outDir = mkdtempSync(join(tmpdir(), 'tls-cert-'));
  await t.rejects(
    issueFromEnvironment({ CA_DIR: caDir, CERT_DIR: outDir, CERT_VALIDITY_DAYS: 'soon', CERT_DNS_NAMES: 'ironic' }, now, () => ({})),
    /CERT_VALIDITY_DAYS must be a positive number/,
  );
  await t.rejects(
    issueFromEnvironment({ CA_DIR: caDir, CERT_DIR: outDir, CERT_VALIDITY_DAYS: '0', CERT_DNS_NAMES: 'ironic' }, now, () => ({})),
    /CERT_VALIDITY_DAYS/,
  );
  t.match(
    await issueFromEnvironment({ CA_DIR: caDir, CERT_DIR: outDir, CERT_DNS_NAMES: 'ironic' }, now, () => ({})),
    /issued a certificate for ironic$/,
    'names alone are enough',
  );
  t.equal(readFileSync(join(outDir, 'ca.crt'), 'utf8'), ca.certPem, 'without a bundle, the CA itself');
  const fallback = new X509Certificate(issueCertificate({ ca, ips: [], now, fallbackName: 'x' }).certPem);
  t.match(fallback.subject, /CN=x/);
});

t.test('renewal periods start at the CA start and last two thirds of a leaf lifetime', async (t) => {
  const ca = await generateRpcCA('ca', now);
  const from = Date.parse(new X509Certificate(ca.certPem).validFrom);
  t.equal(LEAF_RENEW_AFTER_DAYS * 3, LEAF_VALIDITY_DAYS * 2, 'renewed at two thirds');
  const first = renewalPeriod(ca.certPem, now);
  t.equal(first.start.getTime(), from);
  t.equal(first.next.getTime(), from + LEAF_RENEW_AFTER_DAYS * DAY);
  const same = renewalPeriod(ca.certPem, new Date(from + LEAF_RENEW_AFTER_DAYS * DAY - 1));
  t.same(same, first, 'the same period until its last millisecond');
  const second = renewalPeriod(ca.certPem, new Date(from + LEAF_RENEW_AFTER_DAYS * DAY));
  t.equal(second.start.getTime(), first.next.getTime(), 'then the next one');
  t.same(renewalPeriod(ca.certPem, new Date(from - DAY)), first, 'a clock behind the CA is in the first period');
  t.notOk(publishedLongEnough(ca.certPem, now));
  t.ok(publishedLongEnough(ca.certPem, new Date(from + CA_PUBLISHED_BEFORE_SIGNING_DAYS * DAY)));
  t.equal(signableAt(ca.certPem).getTime(), from + CA_PUBLISHED_BEFORE_SIGNING_DAYS * DAY);
  t.equal(caRenewalStart(ca.certPem).getTime(), Date.parse(new X509Certificate(ca.certPem).validTo) - 365 * DAY);
});
