/**
 * The nesting bound of hook bodies: a body is refused exactly when an object or array sits `limit` levels
 * deep, and the answer names the object it is in.
 */
import fc from 'fast-check';
import t from 'tap';
import { tooDeep } from '../../src/server/depth.js';

/** The deepest level of an object or array in a value (the body itself is level 0), or -1 for a scalar. */
const deepest = (value: unknown): number => {
  if (typeof value !== 'object' || value === null) return -1;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(-1, ...children.map(deepest));
};

t.test('tooDeep answers exactly when an object or array is nested `limit` levels deep', async (t) => {
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 6 }),
      fc.integer({ min: 0, max: 7 }),
      (body, limit) => (tooDeep(body, limit) !== undefined) === deepest(body) >= limit,
    ),
    { numRuns: 2000 },
  );
  t.pass('property holds');
});

t.test('tooDeep names the object the deep value is in', async (t) => {
  const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : [nested(depth - 1)]);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { key: nested(6) } };
  t.equal(tooDeep({ parent: { spec: nested(6) } }, 5), 'the parent');
  t.equal(tooDeep({ related: { 'Secret.v1': { 'ns/s': secret } } }, 5), 'related Secret.v1 ns/s');
  t.equal(tooDeep({ children: { 'Secret.v1': { 'ns/s': secret } } }, 5), 'children Secret.v1 ns/s');
  t.equal(tooDeep({ other: nested(6) }, 5), 'the request body');
  t.equal(tooDeep({ parent: { spec: nested(6) } }, 10), undefined, 'under the limit');
  t.equal(tooDeep('text', 0), undefined, 'a scalar has no depth');
  t.equal(tooDeep({}, 0), 'the request body', 'the body itself is level 0');
});
