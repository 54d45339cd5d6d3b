/**
 * Every kind's finalize answers the same Ready reason while its children go and once they are gone: Deleting
 * (an Ironic said DeploymentInProgress), so that a look at the condition tells a deletion from a roll.
 */
import t from 'tap';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { testServer, type Obj } from '../helpers/hooks.js';
import { objAt } from '../support/paths.js';

const deleted = (kind: (typeof PARENT_KINDS)[number]): Obj => ({
  apiVersion: kind.apiVersion,
  kind: kind.kind,
  metadata: { name: 'gone', namespace: 'metal3', generation: 2, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['metacontroller.io/test'] },
  spec: {},
});

const child = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gone', namespace: 'metal3' } };

for (const kind of PARENT_KINDS) {
  t.test(`${kind.kind}: finalize answers Ready=False Deleting, children left or not`, async (t) => {
    const app = testServer();
    t.teardown(() => app.close());
    for (const children of [{ 'Service.v1': { 'metal3/gone': child } }, {}]) {
      const response = await app.inject({
        method: 'POST',
        url: `/${kind.hookPath}/finalize`,
        payload: { parent: deleted(kind), children, related: {}, finalizing: true },
      });
      t.equal(response.statusCode, 200);
      const body = objAt(response.json());
      const [ready] = (objAt(body, 'status')['conditions'] as Obj[] | undefined) ?? [];
      t.match(ready, { type: 'Ready', status: 'False', reason: 'Deleting' }, `${Object.keys(children).length} kinds of children left`);
      t.equal(body['finalized'], Object.keys(children).length === 0);
    }
  });
}
