/**
 * Generated certificates over years of cluster time, walked through the emulator with the clock moved
 * forward: issue, renewal (one roll per period), the CA rotation (staged and published, promoted once
 * clients had a month to pick it up, the old CA trusted until it expires), with no write at all between
 * those steps.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { KubeResource } from '../../src/cli/objects.js';
import { generateRpcCA } from '../../src/crypto/rpc-ca.js';
import { fakeSecrets } from '../helpers/hooks.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { Type } from '@sinclair/typebox';
import { ofKind } from '../helpers/children.js';
import { checked } from '../helpers/json.js';
import { objAtOrEmpty, present } from '../support/paths.js';

const StringMap = Type.Record(Type.String(), Type.String());

const DAY = 24 * 60 * 60;
const NS = 'baremetal-operator-system';

const tlsCASecrets = (e: Emulator): KubeResource[] =>
  e
    .children('Ironic', 'ironic')
    .filter((c) => c.kind === 'Secret' && c.metadata.name.startsWith('ironic-tls-ca-') && c.metadata.deletionTimestamp === undefined);

const decoded = (secret: KubeResource): Record<string, string> =>
  Object.fromEntries(Object.entries(checked(StringMap, secret['data'] ?? {}, 'Secret data')).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

const annotations = (e: Emulator): Record<string, string> => {
  const deployment = ofKind(e.get('Deployment', 'ironic-service', NS), 'Deployment');
  return present(deployment.spec?.template.metadata?.annotations, 'the pod template annotations');
};

const bundle = (e: Emulator): string[] => {
  const configMap = ofKind(e.get('ConfigMap', 'ironic-ca', NS), 'ConfigMap');
  const text = present(configMap.data, 'the bundle ConfigMap data')['ca.crt'] ?? '';
  return text
    .split(/(?<=-----END CERTIFICATE-----)\s*/)
    .filter((p) => p.includes('BEGIN'))
    .map((p) => new X509Certificate(p).fingerprint256);
};

const signing = (e: Emulator): string => {
  const [current] = tlsCASecrets(e).filter(
    (s) => s.metadata.name.slice('ironic-tls-ca-'.length) === annotations(e)['ironic.metal3.io/tls-ca-version']?.slice(0, 10),
  );
  return new X509Certificate(decoded(present(current))['tls.crt'] ?? '').fingerprint256;
};

/** Rounds until stable, then ten quiet rounds: nothing changes between the steps of the walk. */
const settle = async (t: Test, e: Emulator, what: string): Promise<void> => {
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 10 });
  t.ok(result.stable, `${what}: settles`);
  t.same(result.errors, [], `${what}: no sync failed`);
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' }, `${what}: Ready`);
  for (let i = 0; i < 10; i += 1) {
    e.settleWorkloads();
    if ((await e.round()).writes.length > 0) {
      t.fail(`${what}: a quiet round wrote`);
      return;
    }
  }
  t.pass(`${what}: ten quiet rounds write nothing`);
};

/** Moves the clock and runs one round: what that round wrote. */
const later = async (e: Emulator, seconds: number): Promise<string[]> => {
  e.advance(seconds);
  e.settleWorkloads();
  return (await e.round()).writes.map((w) => `${w.verb} ${w.object}`);
};

t.test('issue, renewal and CA rotation, with nothing moving in between', async (t) => {
  const e = await startEmulator({ secrets: { ...fakeSecrets(), rpcCA: generateRpcCA } });
  t.teardown(() => e.close());
  e.apply(readFileSync('examples/generated-tls.yaml', 'utf8'));
  await settle(t, e, 'issued');
  const [first] = tlsCASecrets(e);
  const caCert = new X509Certificate(decoded(present(first))['tls.crt'] ?? '');
  const period = annotations(e)['ironic.metal3.io/tls-renewal-version'];
  t.equal(bundle(e).length, 1, 'clients trust the one CA');
  t.same(e.status('Ironic', 'ironic', NS)['access'], {
    ...objAtOrEmpty(e.status('Ironic', 'ironic', NS), 'access'),
    caCertificate: { kind: 'ConfigMap', name: 'ironic-ca', key: 'ca.crt' },
  });

  // A month later: still the same period, nothing is written.
  t.same(await later(e, 30 * DAY), [], 'nothing before the renewal is due');
  await settle(t, e, 'a month later');

  // Two thirds of the 90-day lifetime after the CA start: one roll, the CA unchanged.
  const renewal = (Date.parse(caCert.validFrom) + 60 * DAY * 1000 - Date.parse(e.now)) / 1000;
  const rolled = await later(e, renewal);
  t.ok(
    rolled.some((w) => w.startsWith('update Deployment')),
    'the pods roll to issue new certificates',
  );
  t.notOk(
    rolled.some((w) => w.includes('Secret')),
    'no Secret changes',
  );
  t.not(annotations(e)['ironic.metal3.io/tls-renewal-version'], period, 'a new renewal period');
  await settle(t, e, 'renewed');
  t.equal(tlsCASecrets(e).length, 1);

  // A year before the CA expires: the next CA is staged and published, the current one still signs.
  const stageAt = (Date.parse(caCert.validTo) - 365 * DAY * 1000 - Date.parse(e.now)) / 1000 + 60;
  const oldSigning = signing(e);
  const staged = await later(e, stageAt);
  t.ok(
    staged.some((w) => w.startsWith('update ConfigMap')),
    'the bundle is republished',
  );
  t.equal(bundle(e).length, 2, 'clients trust both CAs');
  await settle(t, e, 'staged');
  t.equal(signing(e), oldSigning, 'the old CA still signs');
  t.equal(tlsCASecrets(e).length, 1, 'the previous CA Secret went once the pods rolled onto the staged one');

  // Three weeks later: clients may not all have the new bundle yet, nothing moves.
  const waiting = await later(e, 21 * DAY);
  t.notOk(
    waiting.some((w) => w.includes('Secret')),
    'no promotion before clients had a month (at most a renewal roll)',
  );
  await settle(t, e, 'three weeks after staging');
  t.equal(signing(e), oldSigning, 'the old CA still signs');
  // Past the month: the next CA signs; both stay trusted.
  const promoted = await later(e, 10 * DAY);
  t.ok(
    promoted.some((w) => w.startsWith('update Deployment')),
    'the pods roll onto certificates of the new CA',
  );
  await settle(t, e, 'promoted');
  t.not(signing(e), oldSigning, 'the new CA signs');
  t.equal(bundle(e).length, 2, 'the old CA is still trusted');

  // Once the old CA expired it leaves the bundle.
  const expiry = (Date.parse(caCert.validTo) - Date.parse(e.now)) / 1000 + 60;
  e.advance(expiry);
  await settle(t, e, 'old CA expired');
  t.equal(bundle(e).length, 1, 'only the new CA is left');
  t.equal(tlsCASecrets(e).length, 1);
});

t.test('high availability with generated certificates: each node issues its own, the DaemonSet rolls for a renewal', async (t) => {
  // ha.yaml's database is a Galera cluster: the hooks as deploy/overlays/mariadb-operator installs them.
  const e = await startEmulator({ secrets: { ...fakeSecrets(), rpcCA: generateRpcCA }, tickSeconds: 5, overlay: 'mariadb-operator' });
  t.teardown(() => e.close());
  const objects = e.apply(readFileSync('examples/ha.yaml', 'utf8'));
  const ironic = present(objects.find((o) => o.kind === 'Ironic'));
  e.apply({ ...ironic, spec: { ...objAtOrEmpty(ironic, 'spec'), tls: { generateCertificate: true } } });
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 12 });
  t.ok(result.stable, `stable after ${result.rounds} rounds`);
  t.same(result.errors, []);
  t.match(e.ready('Ironic', 'ironic', NS), { status: 'True' });
  const daemonSet = ofKind(e.get('DaemonSet', 'ironic-service', NS), 'DaemonSet');
  const spec = present(daemonSet.spec?.template, 'the pod template');
  t.same(
    spec.spec?.initContainers?.map((c) => c.name).filter((n) => n.endsWith('-certificate')),
    ['rpc-certificate', 'tls-certificate'],
    'a JSON-RPC and a serving certificate, each from its own CA',
  );
  t.equal(tlsCASecrets(e).length, 1);
  for (let i = 0; i < 10; i += 1) {
    e.settleWorkloads();
    t.same((await e.round()).writes, [], `resync ${i + 1} writes nothing`);
  }
  const [ca] = tlsCASecrets(e);
  const start = Date.parse(new X509Certificate(decoded(present(ca))['tls.crt'] ?? '').validFrom);
  const writes = await later(e, (start + 60 * DAY * 1000 - Date.parse(e.now)) / 1000);
  t.same(
    writes,
    ['update DaemonSet baremetal-operator-system/ironic-service', 'status Ironic baremetal-operator-system/ironic'],
    'the renewal rolls the DaemonSet, and nothing else; Ready=False until its pods run the new template',
  );
  await settle(t, e, 'HA renewed');
});
