/**
 * Certificates parsed once: the facts and key checks a sync reads are those of parsing the certificate
 * (and key) there and then, whatever was asked before, and the memos stay bounded.
 */
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import {
  certificateBundle,
  hostCovered,
  tlsContentFacts,
  certificateFacts,
  keyMatches,
  keyMatchesCertificate,
  parsedCertificates,
  requiredCertificateFacts,
  signatureChecks,
  tlsContentProblems,
} from '../../src/crypto/certificates.js';
import { issueRpcCertificate } from '../../src/crypto/rpc-ca.js';
import { FIXED_RPC_CA } from '../fixtures/rpc-ca.js';
import { OTHER_CA_PEM, TEST_CA_PEM, TEST_GALERA_LEAF } from '../fixtures/tls.js';

const LEAF = issueRpcCertificate({ ca: FIXED_RPC_CA, ips: ['192.0.2.1'], now: new Date('2026-01-01T00:00:00Z') });

t.test('the facts of a certificate are those X509Certificate reads, each time', async (t) => {
  for (const pem of [FIXED_RPC_CA.certPem, LEAF.certPem]) {
    const cert = new X509Certificate(pem);
    const expected = { ca: cert.ca, validFrom: Date.parse(cert.validFrom), validTo: Date.parse(cert.validTo) };
    t.same(certificateFacts(pem), expected);
    t.same(certificateFacts(pem), expected, 'again, from the memo');
    t.same(requiredCertificateFacts(pem), expected);
  }
  t.equal(certificateFacts(FIXED_RPC_CA.certPem)?.ca, true, 'a CA');
  t.equal(certificateFacts(LEAF.certPem)?.ca, false, 'a leaf');
});

t.test('a text that is no certificate has no facts; requiring them throws what parsing throws', async (t) => {
  for (const pem of ['', 'not a certificate', FIXED_RPC_CA.certPem.replace('MII', 'XXX')]) {
    t.equal(certificateFacts(pem), undefined);
    t.equal(certificateFacts(pem), undefined, 'again');
    let parseError: unknown;
    try {
      new X509Certificate(pem);
    } catch (error) {
      parseError = error;
    }
    t.throws(() => requiredCertificateFacts(pem), { message: (parseError as Error).message });
  }
  const huge = `${FIXED_RPC_CA.certPem}${' '.repeat(20_000)}`;
  t.same(certificateFacts(huge), certificateFacts(FIXED_RPC_CA.certPem), 'a text too large to keep is parsed all the same');
});

t.test('whether a key is the certificate’s own, remembered by a digest', async (t) => {
  t.equal(keyMatchesCertificate(FIXED_RPC_CA), true);
  t.equal(keyMatchesCertificate(FIXED_RPC_CA), true, 'again, from the memo');
  t.equal(keyMatchesCertificate(LEAF), true, 'the leaf and its own key');
  t.equal(keyMatchesCertificate({ certPem: FIXED_RPC_CA.certPem, keyPem: LEAF.keyPem }), false, 'another key');
  t.equal(keyMatchesCertificate({ certPem: LEAF.certPem, keyPem: FIXED_RPC_CA.keyPem }), false);
  t.equal(keyMatchesCertificate({ certPem: FIXED_RPC_CA.certPem, keyPem: 'not a key' }), false, 'a key that does not parse');
  t.equal(keyMatchesCertificate({ certPem: 'not a certificate', keyPem: FIXED_RPC_CA.keyPem }), false, 'a certificate that does not parse');
  t.equal(keyMatchesCertificate({ ...FIXED_RPC_CA, keyPem: `${FIXED_RPC_CA.keyPem}${'\n'.repeat(40_000)}` }), true, 'too large to keep, checked all the same');
});

t.test('the memos are bounded, and forgetting changes no answer', async (t) => {
  const before = { facts: certificateFacts(FIXED_RPC_CA.certPem), matches: keyMatchesCertificate(FIXED_RPC_CA) };
  for (let i = 0; i < 600; i += 1) {
    certificateFacts(`not a certificate ${i}`);
    keyMatchesCertificate({ certPem: `not a certificate ${i}`, keyPem: 'not a key' });
  }
  t.ok(parsedCertificates.size() <= 256, `${parsedCertificates.size()} certificates kept`);
  t.ok(keyMatches.size() <= 256, `${keyMatches.size()} key checks kept`);
  t.same({ facts: certificateFacts(FIXED_RPC_CA.certPem), matches: keyMatchesCertificate(FIXED_RPC_CA) }, before);
});

t.test('a bundle larger than any text kept is parsed block by block, each certificate once', async (t) => {
  const blocks = [FIXED_RPC_CA.certPem, LEAF.certPem, OTHER_CA_PEM];
  const bundle = Array.from({ length: 12 }, () => blocks.join('\n')).join('\n');
  t.ok(bundle.length > 16 * 1024, `${bundle.length} characters`);
  const first = certificateBundle(bundle);
  const again = certificateBundle(bundle);
  t.same(
    first?.map((cert) => cert.fingerprint256),
    Array.from({ length: 12 }, () => blocks.map((pem) => new X509Certificate(pem).fingerprint256)).flat(),
    'the certificates X509Certificate reads, in order',
  );
  t.ok(
    first?.every((cert, i) => cert === again?.[i]),
    'the second call answers with the certificates already parsed',
  );
  t.equal(certificateBundle(`${bundle}${FIXED_RPC_CA.certPem.replace('MII', 'XXX')}`), undefined, 'one block that does not parse refuses the bundle');
  t.equal(certificateBundle('no certificate here'), undefined, 'no block at all');
});

t.test('whether the CA signed tls.crt is checked once per pair and answered the same each time', async (t) => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const content = { certPem: LEAF.certPem, keyPem: LEAF.keyPem };
  const notSigned = 'ca.crt did not sign the certificate in tls.crt: put the CA that issued it in ca.crt, or the certificate with its intermediates in tls.crt';
  for (const round of ['first', 'again']) {
    t.same(tlsContentProblems({ ...content, caPem: FIXED_RPC_CA.certPem }, now), [], `${round}: its own CA`);
    t.same(tlsContentProblems({ ...content, caPem: OTHER_CA_PEM }, now), [notSigned], `${round}: another CA`);
  }
  t.ok(signatureChecks.size() <= 256, `${signatureChecks.size()} signature checks kept`);
});

t.test("hostCovered: a client's host-name check as Go's crypto/tls makes it (subjectAltName DNS names, one-label wildcards)", async (t) => {
  const rows: readonly [readonly string[], string, boolean][] = [
    [['a.example.com'], 'a.example.com', true],
    [['A.Example.COM'], 'a.example.com', true],
    [['a.example.com.'], 'a.example.com', true],
    [['a.example.com'], 'b.example.com', false],
    [['*.example.com'], 'a.example.com', true],
    [['*.example.com'], 'example.com', false],
    [['*.example.com'], 'a.b.example.com', false],
    [['*.internal.ns.svc.cluster.local'], 'db-0.internal.ns.svc.cluster.local', true],
    [['a*.example.com'], 'ab.example.com', false],
    [[], 'a.example.com', false],
    [['x.example.com', '*.example.com'], 'y.example.com', true],
  ];
  for (const [names, host, covered] of rows)
    t.equal(hostCovered(names, host), covered, `${JSON.stringify(names)} ${covered ? 'covers' : 'does not cover'} ${host}`);
});

t.test('the facts of a TLS Secret list the DNS names of its subjectAltName, not its common name', async (t) => {
  const facts = tlsContentFacts({ certPem: TEST_GALERA_LEAF.certPem, keyPem: TEST_GALERA_LEAF.keyPem, caPem: TEST_CA_PEM });
  t.same(facts.dnsNames, [
    'ironic-db-database-primary.metal3.svc.cluster.local',
    'ironic-db-database-primary.metal3.svc',
    '*.ironic-db-database-internal.metal3.svc.cluster.local',
  ]);
  t.same(tlsContentFacts({ certPem: 'nothing', keyPem: '' }).dnsNames, [], 'none without a certificate');
});
