/**
 * The 3-way merge of Metacontroller's dynamic apply, case by case.
 */
import t from 'tap';
import { applyUpdate, lastAppliedOf, threeWayMerge, withLastApplied } from '../../src/cli/apply.js';
import type { KubeResource } from '../../src/cli/objects.js';
import { LAST_APPLIED_ANNOTATION } from '../../src/render/child.js';

const object = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeResource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'n', ...metadata },
  spec,
});

t.test('fields dropped since the last apply are removed, fields never applied are kept', async (t) => {
  const observed = object({ replicas: 1, paused: true, revisionHistoryLimit: 10 });
  const merged = threeWayMerge(observed, object({ replicas: 1, paused: true }), object({ replicas: 2 }));
  t.same(merged['spec'], { replicas: 2, revisionHistoryLimit: 10 });
});

t.test('lists of objects with a conventional key merge per item, in observed order', async (t) => {
  const observed = object({
    containers: [
      { name: 'a', image: 'a:1', terminationMessagePath: '/dev/x' },
      { name: 'b', image: 'b:1' },
    ],
  });
  const last = object({
    containers: [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1' },
    ],
  });
  const desired = object({
    containers: [
      { name: 'c', image: 'c:1' },
      { name: 'a', image: 'a:2' },
    ],
  });
  t.same(threeWayMerge(observed, last, desired)['spec'], {
    containers: [
      { name: 'a', image: 'a:2', terminationMessagePath: '/dev/x' },
      { name: 'c', image: 'c:1' },
    ],
  });
});

t.test('containerPort wins over name as the merge key', async (t) => {
  const observed = object({ ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }] });
  const desired = object({ ports: [{ containerPort: 80, name: 'web' }] });
  t.same(threeWayMerge(observed, object({ ports: [{ containerPort: 80, name: 'http' }] }), desired)['spec'], {
    ports: [{ containerPort: 80, name: 'web', protocol: 'TCP' }],
  });
});

t.test('other lists are replaced whole', async (t) => {
  const observed = object({ args: ['a', 'b'], items: [{ key: 'x' }] });
  t.same(threeWayMerge(observed, undefined, object({ args: ['c'], items: [{ key: 'y' }] }))['spec'], { args: ['c'], items: [{ key: 'y' }] });
});

t.test('status and server metadata keep their observed values', async (t) => {
  const observed = { ...object({ replicas: 1 }, { uid: 'u', resourceVersion: '7', generation: 3 }), status: { readyReplicas: 1 } };
  const desired = { ...object({ replicas: 1 }, { uid: 'other', generation: 9 }), status: { readyReplicas: 0 } };
  const merged = threeWayMerge(observed, undefined, desired);
  t.same(merged.metadata, { name: 'd', namespace: 'n', uid: 'u', resourceVersion: '7', generation: 3 });
  t.same(merged['status'], { readyReplicas: 1 });
});

t.test('the last-applied annotation is sorted JSON and round-trips', async (t) => {
  const desired = object({ b: 1, a: { d: 2, c: 3 } });
  const annotated = withLastApplied(desired, desired);
  t.equal(
    annotated.metadata.annotations?.[LAST_APPLIED_ANNOTATION],
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n"},"spec":{"a":{"c":3,"d":2},"b":1}}',
  );
  t.same(lastAppliedOf(annotated), desired);
  t.equal(lastAppliedOf(object({}, { annotations: { [LAST_APPLIED_ANNOTATION]: 'not json' } })), undefined);
  t.equal(lastAppliedOf(object({})), undefined);
});

t.test('applying the same desired object again changes nothing', async (t) => {
  const desired = object({ replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'a' }] } } });
  const observed = { ...withLastApplied({ ...desired, metadata: { ...desired.metadata, uid: 'u' } }, desired), status: { x: 1 } };
  t.same(applyUpdate(observed, desired), observed);
  t.not(
    applyUpdate(observed, object({ replicas: 2 })).metadata.annotations?.[LAST_APPLIED_ANNOTATION],
    observed.metadata.annotations?.[LAST_APPLIED_ANNOTATION],
  );
});
