/**
 * spec.tls.issuerRef in a cluster with cert-manager (deploy/components/cert-manager): examples/cert-manager
 * converges with the emulator's cert-manager stand-in filling the Secret of the Certificate the hook
 * renders (validated against cert-manager's published CRD), waits with a clear reason until then, rolls the
 * pod once when cert-manager re-issues, and says what to install where cert-manager is not declared.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { KubeResource } from '../../src/cli/objects.js';
import { admissionProblems } from '../support/crd-schema.js';
import { startEmulator } from '../support/emulator.js';
import { Type } from '@sinclair/typebox';
import { checked } from '../helpers/json.js';
import { objAt, objsAt, present, type Obj } from '../support/paths.js';

const NS = 'baremetal-operator-system';
const EXAMPLE = readFileSync('examples/cert-manager/ironic.yaml', 'utf8');

const podTemplate = (deployment: KubeResource | undefined): Obj => objAt(deployment, 'spec', 'template');
const StringMap = Type.Record(Type.String(), Type.String());

t.test('examples/cert-manager converges: the Certificate is issued and served', async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS });
  t.teardown(() => e.close());
  const applied = e.apply(EXAMPLE);
  for (const object of applied.filter((o) => o.kind !== 'Ironic'))
    t.same(admissionProblems(object), [], `${object.kind} ${object.metadata.name} fits cert-manager's CRD`);

  // Before cert-manager issued anything: only the Certificate, and a status that says why.
  await e.round();
  t.same(
    e.children('Ironic', 'ironic', NS).map((c) => `${c.kind}/${c.metadata.name}`),
    ['Certificate/ironic'],
    'the Certificate comes first',
  );
  t.match(e.ready('Ironic', 'ironic', NS), {
    status: 'False',
    message: /waiting for cert-manager to issue the certificate into Secret baremetal-operator-system\/ironic-serving-tls/,
  });

  const result = await e.runUntilStable({ autoReady: true, maxRounds: 10 });
  t.same(result.errors, []);
  t.ok(result.stable, `stable after ${result.rounds} rounds`);
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
  t.same(
    e.history.flatMap((r) => r.syncs.flatMap((s) => [...s.warnings, ...s.pending])),
    [],
    'every child was accepted',
  );
  const certificate = present(e.get('Certificate', 'ironic', NS));
  t.same(admissionProblems(certificate), [], "the rendered Certificate fits cert-manager's CRD (v1.21.1)");
  t.match(certificate['spec'], {
    secretName: 'ironic-serving-tls',
    issuerRef: { name: 'ironic-ca', kind: 'Issuer', group: 'cert-manager.io' },
    dnsNames: ['ironic', `ironic.${NS}`, `ironic.${NS}.svc`],
    ipAddresses: ['192.0.2.2'],
    duration: '2160h',
    renewBefore: '720h',
  });
  const secret = present(e.get('Secret', 'ironic-serving-tls', NS));
  const leaf = new X509Certificate(Buffer.from(checked(StringMap, secret['data'], 'Secret data')['tls.crt'] ?? '', 'base64'));
  t.equal(leaf.checkIP('192.0.2.2'), '192.0.2.2');
  const pod = podTemplate(e.get('Deployment', 'ironic-service', NS));
  t.match(
    objsAt(pod, 'spec', 'volumes').find((v) => v['name'] === 'cert-ironic'),
    { name: 'cert-ironic', secret: { secretName: 'ironic-serving-tls' } },
    'the pod mounts what cert-manager issued',
  );
  t.match(e.status('Ironic', 'ironic', NS)['access'], {
    apiURL: `https://ironic.${NS}.svc`,
    caCertificate: { kind: 'Secret', name: 'ironic-serving-tls', key: 'ca.crt' },
  });
  for (let i = 0; i < 10; i += 1) {
    e.settleWorkloads();
    t.same((await e.round()).writes, [], `resync ${i + 1} writes nothing`);
  }

  // A new address: the Certificate changes in place, cert-manager re-issues, the pod rolls once.
  const before = checked(StringMap, objAt(podTemplate(e.get('Deployment', 'ironic-service', NS)), 'metadata')['annotations'], 'annotations');
  const ironic = present(e.get('Ironic', 'ironic', NS));
  e.apply({ ...ironic, spec: { ...objAt(ironic, 'spec'), networking: { interface: 'eth1', ipAddress: '192.0.2.2', externalIP: '203.0.113.9' } } });
  const changed = await e.runUntilStable({ autoReady: true, maxRounds: 10 });
  t.ok(changed.stable);
  t.match(present(e.get('Certificate', 'ironic', NS))['spec'], { ipAddresses: ['192.0.2.2', '203.0.113.9'] });
  const after = checked(StringMap, objAt(podTemplate(e.get('Deployment', 'ironic-service', NS)), 'metadata')['annotations'], 'annotations');
  t.not(after['ironic.metal3.io/tls-secret-version'], before['ironic.metal3.io/tls-secret-version'], 'the re-issued certificate rolls the pod');
  t.equal(changed.writes.filter((w) => w.verb === 'update' && w.object.startsWith('Deployment')).length, 1, 'once');
});

t.test('a renewal by cert-manager (the same names, a new certificate in the same Secret) rolls the pod once', async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS, eventDriven: true, laggingGroups: ['Secret.v1'] });
  t.teardown(() => e.close());
  e.apply(EXAMPLE);
  const first = await e.runUntilStable({ autoReady: true, maxRounds: 16 });
  t.ok(first.stable, 'converges with event-driven syncs and a lagging Secret cache');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
  const secret = present(e.get('Secret', 'ironic-serving-tls', NS));
  const data = checked(StringMap, secret['data'], 'Secret data');
  e.apply({ ...secret, data: { ...data, 'tls.crt': Buffer.from('renewed').toString('base64') + (data['tls.crt'] ?? '') } });
  const renewed = await e.runUntilStable({ autoReady: true, maxRounds: 16 });
  t.ok(renewed.stable);
  t.equal(renewed.writes.filter((w) => w.verb === 'update' && w.object.startsWith('Deployment')).length, 1, 'one roll');
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
});

t.test('without the cert-manager component, issuerRef is refused with what to install, and nothing is created', async (t) => {
  const e = await startEmulator({ namespace: NS });
  t.teardown(() => e.close());
  e.apply(
    EXAMPLE.split('\n---\n')
      .filter((doc) => doc.includes('kind: Ironic'))
      .join('\n'),
  );
  await e.runUntilStable({ autoReady: true, maxRounds: 4 });
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'False', reason: 'InvalidSpec', message: /spec\.tls\.issuerRef: .*deploy\/components\/cert-manager/ });
  t.same(e.children('Ironic', 'ironic', NS), []);
});
