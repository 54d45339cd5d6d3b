/**
 * Credentials and htpasswd reuse while Metacontroller's Secret cache lags (defect 3): a sync never mints new
 * credentials, and so a new htpasswd, while the ones an earlier sync returned may just not be seen yet; and
 * of several matching htpasswd Secrets, the one the workload mounts is kept.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import type { SyncRequest } from '../../src/api/shared/hook.js';
import { syncIronic } from '../../src/hooks/ironic.js';
import type { Secrets } from '../../src/hooks/materialize.js';
import { ironicNames } from '../../src/render/names.js';
import { FIXED_NOW, fakeSecrets, ironic, testConfig, type Obj } from '../helpers/hooks.js';
import { present } from '../support/paths.js';
import { availableDeploymentStatus } from '../../src/cli/kubelet.js';
import type { KubeResource } from '../../src/cli/objects.js';

const SPEC = { networking: { interface: 'eth1', ipAddress: '192.0.2.2' } };
const UID = '7f1e4c7e-0000-4000-8000-000000000001';
const b64 = (v: string): string => Buffer.from(v).toString('base64');
const ago = (seconds: number): string => new Date(Date.parse(FIXED_NOW) - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The Ironic as the request carries it: created `age` seconds ago, with the given status. */
const parent = (age: number, status?: Obj): Obj => {
  const base = ironic(SPEC, status === undefined ? {} : { status });
  return { ...base, metadata: { ...(base['metadata'] as Obj), creationTimestamp: ago(age) } };
};

const sync = async (request: Obj, secrets: Secrets) =>
  syncIronic(request as unknown as SyncRequest, { config: testConfig().render, secrets, now: () => FIXED_NOW });

const namesOf = (children: readonly Obj[]): string[] => children.map((c) => String((c['metadata'] as Obj)['name']));

t.test('credentials an earlier sync returned, not seen yet by a young Ironic: the sync waits and mints nothing', async (t) => {
  const secrets = fakeSecrets();
  const response = await sync({ parent: parent(10, { apiCredentialsName: 'ironic-api-credentials' }), children: {}, related: {} }, secrets);
  t.match(response.status, {
    conditions: [{ type: 'Ready', status: 'False', message: /waiting for the Secrets of this Ironic to be observed/ }],
    apiCredentialsName: 'ironic-api-credentials',
  });
  t.equal(response.resyncAfterSeconds, 5);
  t.same(response.children, [], 'nothing observed, nothing returned');
  t.equal(secrets.passwords(), 0, 'no password generated');
  t.equal(secrets.hashes(), 0, 'no htpasswd hashed');
});

t.test('a young child (the pre-upgrade Job created with the Secrets) counts as much as a young Ironic', async (t) => {
  const secrets = fakeSecrets();
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'ironic-pre-upgrade', namespace: 'metal3', creationTimestamp: ago(3), ownerReferences: [{ uid: UID, controller: true }] },
  };
  const response = await sync(
    { parent: parent(3600, { apiCredentialsName: 'ironic-api-credentials' }), children: { 'Job.batch/v1': { 'metal3/ironic-pre-upgrade': job } }, related: {} },
    secrets,
  );
  t.equal(response.resyncAfterSeconds, 5);
  t.equal(secrets.passwords(), 0);
});

t.test('credentials are generated on the first sync, and again once the grace period says the Secret was deleted', async (t) => {
  const first = fakeSecrets();
  const created = await sync({ parent: parent(1), children: {}, related: {} }, first);
  t.equal(first.passwords(), 1, 'the first sync (the status names nothing yet) generates them');
  t.ok(namesOf(created.children as Obj[]).includes('ironic-api-credentials'));
  const later = fakeSecrets();
  const regenerated = await sync({ parent: parent(3600, { apiCredentialsName: 'ironic-api-credentials' }), children: {}, related: {} }, later);
  t.equal(later.passwords(), 1, 'an old Ironic whose Secret is gone gets new credentials');
  t.ok(namesOf(regenerated.children as Obj[]).includes('ironic-api-credentials'));
});

t.test('the user names the Secret: nothing to wait for, a missing one is a missing reference', async (t) => {
  const secrets = fakeSecrets();
  const request = { parent: { ...parent(10, { apiCredentialsName: 'mine' }), spec: { ...SPEC, apiCredentialsName: 'mine' } }, children: {}, related: {} };
  const response = await sync(request, secrets);
  t.match(response.status, { conditions: [{ reason: 'MissingReference' }] });
  t.equal(secrets.passwords(), 0);
});

t.test('of two htpasswd Secrets that both match, the one the workload mounts is kept (the pods do not roll)', async (t) => {
  const secrets: Secrets = { ...fakeSecrets(), verify: async (_password, hash) => hash.startsWith('$2y$10$match'), hash: async () => '$2y$10$fresh' };
  const htpasswd = (name: string, line: string): Obj => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'metal3', labels: { 'ironic.metal3.io/component': 'htpasswd' }, ownerReferences: [{ uid: UID, controller: true }] },
    data: { htpasswd: b64(line) },
  });
  const credentials = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ironic-api-credentials', namespace: 'metal3', ownerReferences: [{ uid: UID, controller: true }] },
    data: { username: b64('ironic'), password: b64('pw') },
  };
  const first = await sync({ parent: parent(3600), children: { 'Secret.v1': { 'metal3/ironic-api-credentials': credentials } }, related: {} }, secrets);
  const rendered = (first.children as Obj[]).find((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-htpasswd-'));
  const workload = present((first.children as Obj[]).find((c) => c['kind'] === 'Deployment'));
  // Two matching htpasswd Secrets (content-named); the workload mounts the second one observed.
  const named = (line: string): string => ironicNames('ironic').htpasswd(createHash('sha256').update(line).digest('hex'));
  const [other, mountedLine] = ['ironic:$2y$10$matchA', 'ironic:$2y$10$matchB'];
  const mounted = named(mountedLine);
  const template = JSON.parse(JSON.stringify(workload).replaceAll(String((rendered?.['metadata'] as Obj)['name']), mounted)) as Obj;
  const children = {
    'Secret.v1': {
      'metal3/ironic-api-credentials': credentials,
      [`metal3/${named(other)}`]: htpasswd(named(other), other),
      [`metal3/${mounted}`]: htpasswd(mounted, mountedLine),
    },
    'Deployment.apps/v1': {
      // Rolled out: a workload still rolling keeps the other htpasswd Secrets for its old pods.
      'metal3/ironic-service': {
        ...template,
        metadata: { ...(template['metadata'] as Obj), ownerReferences: [{ uid: UID, controller: true }] },
        status: availableDeploymentStatus(template as unknown as KubeResource),
      },
    },
  };
  const response = await sync({ parent: parent(3600), children, related: {} }, secrets);
  const kept = (response.children as Obj[]).filter((c) => String((c['metadata'] as Obj)['name']).startsWith('ironic-htpasswd-'));
  t.same(namesOf(kept), [mounted], 'the mounted one is reused');
  t.same(JSON.stringify(response.children).includes(named(other)), false, 'the workload keeps mounting it');
});
