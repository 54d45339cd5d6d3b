/**
 * 37.0 → 38.0 with a managed database, walked with the test playing the Job and Deployment controllers:
 * the pre-upgrade Job runs before the Deployment moves, the post-upgrade Job after it is available,
 * then Ready with installedVersion 38.0, and the Jobs are deleted.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeResource } from '../../src/cli/objects.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAtOrEmpty, present, valueAt } from '../support/paths.js';

const PRE = 'ironic-pre-37.0-to-38.0';
const POST = 'ironic-post-37.0-to-38.0';

const image = (emulator: Emulator): unknown => valueAt(emulator.get('Deployment', 'ironic-service'), 'spec', 'template', 'spec', 'containers', 0, 'image');

const jobs = (emulator: Emulator): string[] =>
  emulator
    .children('Ironic', 'ironic')
    .filter((c) => c.kind === 'Job')
    .map((c) => c.metadata.name);

const childWrites = async (emulator: Emulator): Promise<string[]> =>
  (await emulator.round()).writes.filter((w) => w.verb !== 'status').map((w) => `${w.verb} ${w.object.replace('baremetal-operator-system/', '')}`);

const atVersion = (object: KubeResource, version: string): KubeResource => ({ ...object, spec: { ...objAtOrEmpty(object, 'spec'), version } });

t.test('37.0 → 38.0: pre Job, rollout, post Job, Ready, Jobs deleted', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const objects = emulator.apply(readFileSync('examples/managed-database.yaml', 'utf8'));
  const ironic = present(objects.find((o) => o.kind === 'Ironic'));
  emulator.apply(atVersion(ironic, '37.0'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable, 'installed at 37.0');
  t.match(emulator.status('Ironic', 'ironic'), { installedVersion: '37.0', requestedVersion: '37.0' });
  t.same(jobs(emulator), [], 'the first install Jobs are gone');
  t.equal(image(emulator), 'quay.io/metal3-io/ironic:release-37.0');

  const service = present(emulator.get('Service', 'ironic'));
  emulator.apply(atVersion(ironic, '38.0'));
  t.same(
    await childWrites(emulator),
    ['update Service ironic', `create Job ${PRE}`],
    '1. the pre-upgrade Job; the workload stays (the core group is written before batch)',
  );
  t.same(emulator.get('Service', 'ironic')?.['spec'], service['spec'], 'the Service only took the new version label');
  t.match(emulator.status('Ironic', 'ironic'), { requestedVersion: '38.0', installedVersion: '37.0' });
  t.same(await childWrites(emulator), [], '2. while it runs, nothing moves');
  t.equal(image(emulator), 'quay.io/metal3-io/ironic:release-37.0');

  emulator.completeJob(PRE);
  t.same(await childWrites(emulator), ['update Deployment ironic-service'], '3. the Deployment rolls to 38.0');
  t.equal(image(emulator), 'quay.io/metal3-io/ironic:release-38.0');
  t.same(await childWrites(emulator), [], '4. no post-upgrade Job before the rollout is available');
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'False', reason: 'DeploymentInProgress' });

  emulator.markDeploymentAvailable('ironic-service');
  t.same(await childWrites(emulator), [`create Job ${POST}`], '5. the post-upgrade Job');
  t.match(emulator.status('Ironic', 'ironic'), { installedVersion: '37.0' });

  emulator.completeJob(POST);
  t.same(await childWrites(emulator), [], '6. Ready');
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'True', reason: 'DeploymentAvailable' });
  t.match(emulator.status('Ironic', 'ironic'), { installedVersion: '38.0', requestedVersion: '38.0' });

  t.same((await childWrites(emulator)).sort(), [`delete Job ${POST}`, `delete Job ${PRE}`], '7. the Jobs are deleted');
  const settled = await emulator.runUntilStable({ autoReady: true, maxRounds: 3 });
  t.ok(settled.stable);
  t.same(settled.writes, [], 'and nothing follows');
  t.same(jobs(emulator), []);
});

t.test('a failed pre-upgrade Job holds the rollout and is reported', async (t) => {
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  const objects = emulator.apply(readFileSync('examples/managed-database.yaml', 'utf8'));
  const ironic = present(objects.find((o) => o.kind === 'Ironic'));
  emulator.apply(atVersion(ironic, '37.0'));
  t.ok((await emulator.runUntilStable({ autoReady: true })).stable);
  emulator.apply(atVersion(ironic, '38.0'));
  await emulator.round();
  emulator.failJob(PRE, 'Job has reached the specified backoff limit');
  const result = await emulator.runUntilStable({ maxRounds: 4 });
  t.ok(result.stable);
  t.match(emulator.ready('Ironic', 'ironic'), { status: 'False', reason: 'DeploymentFailed', message: /pre-upgrade job ironic-pre-37.0-to-38.0 failed/ });
  t.equal(image(emulator), 'quay.io/metal3-io/ironic:release-37.0');
  t.same(jobs(emulator), [PRE], 'kept for its logs');
});
