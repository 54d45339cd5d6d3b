/**
 * JSON-RPC CA rotation in two rolling restarts: at every step, every pair of replicas (those started
 * before the step and those after) can verify each other.
 */
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { CA_RENEW_BEFORE_DAYS, CA_VALIDITY_DAYS, generateRpcCA, issueRpcCertificate, type KeyPairPem } from '../../src/crypto/rpc-ca.js';
import { nextCASet, type CASet } from '../../src/crypto/rotation.js';

const DAY = 24 * 60 * 60 * 1000;
const start = new Date('2026-01-01T00:00:00Z');
const inWindow = new Date(start.getTime() + (CA_VALIDITY_DAYS - CA_RENEW_BEFORE_DAYS + 10) * DAY);

/** A replica: the leaf it presents and the bundle it trusts. */
type Replica = { leaf: X509Certificate; trusts: X509Certificate[] };
const replica = (set: CASet, now: Date): Replica => ({
  leaf: new X509Certificate(issueRpcCertificate({ ca: set.signing, ips: ['192.0.2.1'], now }).certPem),
  trusts: set.bundle.map((pem) => new X509Certificate(pem)),
});
const verifies = (client: Replica, server: Replica): boolean => client.trusts.some((ca) => server.leaf.checkIssued(ca) && server.leaf.verify(ca.publicKey));

t.test('a fresh CA is kept, and a rotation never breaks verification between old and new replicas', async (t) => {
  let generated = 0;
  const generate = async (): Promise<KeyPairPem> => {
    generated += 1;
    return generateRpcCA(`ca ${generated}`, generated === 1 ? start : inWindow);
  };
  const first = await nextCASet({ observed: undefined, now: start, settled: false, generate });
  t.equal(first.bundle.length, 1);
  t.same(
    await nextCASet({ observed: first, now: new Date(start.getTime() + DAY), settled: true, generate }),
    { ...first, bundle: first.bundle },
    'kept while valid',
  );
  t.equal(generated, 1);

  // Step 1: inside the renewal window a next CA is staged; the old one still signs.
  const staged = await nextCASet({ observed: first, now: inWindow, settled: false, generate });
  t.equal(generated, 2);
  t.equal(staged.signing.certPem, first.signing.certPem, 'the old CA still signs');
  t.ok(staged.next, 'a next CA is staged');
  t.equal(staged.bundle.length, 2, 'both are trusted');
  t.same(await nextCASet({ observed: staged, now: inWindow, settled: false, generate }), staged, 'no promotion before the roll completes');

  // Step 2: once every replica trusts both, the next CA signs.
  const promoted = await nextCASet({ observed: staged, now: inWindow, settled: true, generate });
  t.equal(promoted.signing.certPem, staged.next?.certPem);
  t.equal(promoted.next, undefined);
  t.equal(promoted.bundle.length, 2, 'the old CA stays trusted until it expires');
  t.equal(generated, 2);

  const before = replica(first, inWindow);
  const afterStage = replica(staged, inWindow);
  const afterPromote = replica(promoted, inWindow);
  for (const [a, b, what] of [
    [before, afterStage, 'old and staged'],
    [afterStage, afterPromote, 'staged and promoted'],
  ] as const) {
    t.ok(verifies(a, b) && verifies(b, a), `${what} replicas verify each other`);
  }

  // After the old CA expires it leaves the bundle.
  const later = new Date(new X509Certificate(first.signing.certPem).validTo).getTime() + DAY;
  const pruned = await nextCASet({ observed: promoted, now: new Date(later), settled: true, generate });
  t.equal(pruned.bundle.length, 1);
  t.equal(pruned.signing.certPem, promoted.signing.certPem);
});

t.test('an expired CA is replaced at once', async (t) => {
  const old = await generateRpcCA('old', start);
  const observed: CASet = { signing: old, bundle: [old.certPem] };
  const after = new Date(start.getTime() + (CA_VALIDITY_DAYS + 1) * DAY);
  const fresh = await nextCASet({ observed, now: after, settled: false, generate: () => generateRpcCA('new', after) });
  t.not(fresh.signing.certPem, old.certPem);
  t.equal(fresh.bundle.length, 1);
});
