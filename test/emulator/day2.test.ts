/**
 * The emulator as strict as the real tools on day 2, with the real hooks: a refused write fails the sync
 * and the convergence, a child that loses its selector label is released (and the Ironic says what is in
 * its way), and cert-manager keeps its status subresource and refuses what its webhook refuses.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { present } from '../support/paths.js';
import { certificateSpecProblems, certManagerWebhookRefusals, goDurationSeconds } from '../support/cert-manager-webhook.js';
import { startEmulator } from '../support/emulator.js';

const NS = 'baremetal-operator-system';
const MINIMAL = readFileSync('examples/minimal.yaml', 'utf8');
const CERT_MANAGER = readFileSync('examples/cert-manager/ironic.yaml', 'utf8');

t.test('a child write a webhook refuses fails the sync (a SyncError event), and the convergence with it', async (t) => {
  let denials = 1;
  const webhook = (child: KubeResource): string[] => {
    if (child.kind !== 'Deployment' || denials === 0) return [];
    denials -= 1;
    return ['admission webhook "policy.example.com" denied the request: not now'];
  };
  const e = await startEmulator({ namespace: NS, webhooks: [webhook] });
  t.teardown(() => e.close());
  e.apply(MINIMAL);
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 8 });
  t.match(result.errors, [
    /^Ironic baremetal-operator-system\/ironic: can't reconcile children for Ironic baremetal-operator-system\/ironic: can't create Deployment baremetal-operator-system\/ironic-service: admission webhook "policy.example.com" denied the request: not now$/,
  ]);
  t.notOk(result.stable, 'a quiet round after a refusal is no convergence');
  t.match(e.events, [
    { round: 1, object: 'Ironic baremetal-operator-system/ironic', type: 'Warning', reason: 'SyncError', message: /^Sync error: can't reconcile children/ },
  ]);
  t.ok(e.get('Deployment', 'ironic-service', NS), 'created on the retry');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
});

t.test('a child that loses its controller-uid label is released: the Ironic no longer updates it and says it is in the way', async (t) => {
  const e = await startEmulator({ namespace: NS });
  t.teardown(() => e.close());
  e.apply(MINIMAL);
  t.ok((await e.runUntilStable({ autoReady: true })).stable);
  const uid = e.get('Ironic', 'ironic', NS)?.metadata.uid ?? '';
  const service = present(e.get('Service', 'ironic', NS));
  const { 'controller-uid': _removed, ...labels } = service.metadata.labels ?? {};
  e.apply({ ...service, metadata: { ...service.metadata, labels } });
  const released = await e.runUntilStable({ autoReady: true });
  t.ok(released.stable);
  t.same(
    released.writes.filter((w) => w.object === `Service ${NS}/ironic`).map((w) => w.verb),
    ['release'],
  );
  t.same(e.get('Service', 'ironic', NS)?.metadata.ownerReferences, undefined, 'its ownerReference is gone');
  t.notOk('controller-uid' in (e.get('Service', 'ironic', NS)?.metadata.labels ?? {}), 'and no update put the label back');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'False', reason: 'ResourceConflict', message: /Service baremetal-operator-system\/ironic/ });
  // The label back: adopted again, and Ready again.
  const orphan = present(e.get('Service', 'ironic', NS));
  e.apply({ ...orphan, metadata: { ...orphan.metadata, labels: { ...labels, 'controller-uid': uid } } });
  const adopted = await e.runUntilStable({ autoReady: true });
  t.ok(adopted.stable);
  t.same(
    adopted.writes.filter((w) => w.object === `Service ${NS}/ironic`).map((w) => w.verb),
    ['adopt'],
  );
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
});

t.test("cert-manager's Certificate keeps its status subresource: an update of the main resource ignores .status", async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS });
  t.teardown(() => e.close());
  e.apply(CERT_MANAGER);
  t.ok((await e.runUntilStable({ autoReady: true, maxRounds: 10 })).stable);
  const certificate = present(e.get('Certificate', 'ironic', NS));
  const status = certificate['status'];
  t.match(status, { conditions: [{ type: 'Ready', status: 'True' }] });
  e.apply({ ...certificate, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Edited', message: 'by hand' }] } });
  t.same(e.get('Certificate', 'ironic', NS)?.['status'], status, 'kubectl apply of the whole object leaves the status as cert-manager wrote it');
  t.equal(e.get('Certificate', 'ironic', NS)?.metadata.resourceVersion, certificate.metadata.resourceVersion, 'and writes nothing');
});

t.test("an external issuer kind without its group is refused in the spec, before cert-manager's webhook would refuse the Certificate", async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS });
  t.teardown(() => e.close());
  e.apply(
    CERT_MANAGER.replace(/issuerRef:\n(\s+)name: ironic-ca\n\s+kind: Issuer\n\s+group: cert-manager.io/, 'issuerRef:\n$1name: vault\n$1kind: VaultIssuer'),
  );
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 6 });
  t.same(result.errors, [], 'no write was refused');
  t.match(e.ready('Ironic', 'ironic', NS), {
    status: 'False',
    reason: 'InvalidSpec',
    message: /spec\.tls\.issuerRef\.kind: .*VaultIssuer.*tls\.issuerRef\.group/,
  });
  t.same(e.children('Ironic', 'ironic', NS), []);
});

t.test("cert-manager's webhook rules on the fields we render (internal/apis/certmanager/validation/certificate.go, v1.21.1)", async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS });
  t.teardown(() => e.close());
  e.apply(CERT_MANAGER);
  await e.runUntilStable({ autoReady: true, maxRounds: 10 });
  const rendered = present(e.get('Certificate', 'ironic', NS));
  t.same(certManagerWebhookRefusals(rendered), [], 'what the hooks render is admitted');
  const spec = rendered['spec'] as Record<string, unknown>;
  const problems = (change: Record<string, unknown>): string[] => certificateSpecProblems({ ...rendered, spec: { ...spec, ...change } });
  const cases: readonly (readonly [string, Record<string, unknown>, RegExp])[] = [
    ['no secretName', { secretName: '' }, /^spec\.secretName: Required value$/],
    ['a secretName that is no DNS subdomain', { secretName: 'Ironic_TLS' }, /^spec\.secretName: Invalid value/],
    ['no issuer name', { issuerRef: { kind: 'Issuer' } }, /^spec\.issuerRef\.name: Required value$/],
    ['an external kind in the built-in group', { issuerRef: { name: 'v', kind: 'VaultIssuer' } }, /^spec\.issuerRef\.kind: Invalid value: "VaultIssuer"/],
    ['nothing to certify', { commonName: undefined, dnsNames: undefined, ipAddresses: undefined }, /^spec: Invalid value: "": set at least one of/],
    ['a commonName over 64 bytes', { commonName: 'a'.repeat(65) }, /^spec\.commonName: Too long/],
    ['an IPv4 address with a leading zero (Go refuses it)', { ipAddresses: ['192.0.2.02'] }, /^spec\.ipAddresses\[0\]: Invalid value/],
    ['an IPv6 zone', { ipAddresses: ['fe80::1%eth0'] }, /^spec\.ipAddresses\[0\]: Invalid value/],
    ['a short duration', { duration: '30m', renewBefore: '10m' }, /^spec\.duration: Invalid value: 1800s/],
    ['renewBefore as long as the duration', { renewBefore: '2160h' }, /^spec\.renewBefore: Invalid value: .*shorter than the duration/],
    ['renewBefore under 5 minutes', { renewBefore: '4m59s' }, /^spec\.renewBefore: Invalid value: 299s/],
    ['an unknown usage', { usages: ['server auth', 'web'] }, /^spec\.usages\[1\]: Invalid value: "web"/],
    ['a small RSA key', { privateKey: { algorithm: 'RSA', size: 1024 } }, /^spec\.privateKey\.size/],
    [
      'a cert-manager.io annotation for the Secret',
      { secretTemplate: { annotations: { 'cert-manager.io/issuer-name': 'x' } } },
      /^spec\.secretTemplate\.annotations: Invalid value/,
    ],
    ['a label value that is no label value', { secretTemplate: { labels: { app: 'a b' } } }, /^spec\.secretTemplate\.labels: Invalid value: "a b"/],
  ];
  for (const [name, change, expected] of cases) t.match(problems(change), [expected], name);
  t.match(certManagerWebhookRefusals({ ...rendered, spec: { ...spec, secretName: '', issuerRef: {} } }), [
    /^admission webhook "webhook\.cert-manager\.io" denied the request: \[spec\.secretName: Required value, spec\.issuerRef\.name: Required value\]$/,
  ]);
  t.same([goDurationSeconds('1h30m'), goDurationSeconds('1.5s'), goDurationSeconds('0'), goDurationSeconds('90d')], [5400, 1.5, 0, undefined]);
});
