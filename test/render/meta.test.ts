/**
 * canonicalJson, the text content hashes are taken of: built in a loop, it must stay the text of the plain
 * definition (keys sorted, undefined fields left out, JSON.stringify for everything else).
 */
import fc from 'fast-check';
import t from 'tap';
import { createHmac } from 'node:crypto';
import { canonicalJson, contentHash, keptRenders, keyedContentHash, sameCanonicalJson } from '../../src/render/meta.js';

/** The plain definition: map, filter and join (Array.from visits holes, as undefined). */
const reference = (value: unknown): string => {
  if (Array.isArray(value)) return `[${Array.from(value, reference).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${reference(record[k])}`);
    return `{${entries.join(',')}}`;
  }
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? 'null' : JSON.stringify(value);
};

t.test('canonicalJson is the text of the plain definition, for any value', async (t) => {
  const anything = fc.anything({ withSparseArray: true, withNullPrototype: true, withBoxedValues: true, withDate: true, withObjectString: true, maxDepth: 5 });
  fc.assert(
    fc.property(anything, (value) => canonicalJson(value) === reference(value)),
    { numRuns: 3000 },
  );
  t.pass('property holds');
});

t.test('canonicalJson sorts keys at every level and leaves out undefined fields', async (t) => {
  t.equal(canonicalJson({ b: [{ y: 1, x: undefined, a: 'é"' }, undefined, null], a: {} }), '{"a":{},"b":[{"a":"é\\"","y":1},null,null]}');
  // A hole is written null, as JSON.stringify writes it, so a one-hole array is not the empty array.
  // eslint-disable-next-line no-sparse-arrays -- the hole is what this line tests
  t.equal(canonicalJson([1, , 2]), '[1,null,2]');
  // eslint-disable-next-line no-sparse-arrays -- the hole is what this line tests
  t.equal(sameCanonicalJson([,], []), false, 'found by a random seed: [,] was written [] before');
  // eslint-disable-next-line no-sparse-arrays -- the hole is what this line tests
  t.equal(sameCanonicalJson([, 1], [null, 1]), true);
  t.equal(contentHash({ b: 1, a: 2 }), contentHash({ a: 2, b: 1 }), 'key order does not change the hash');
});

t.test('sameCanonicalJson answers whether the canonical texts are equal, for any two values', async (t) => {
  const anything = fc.anything({ withSparseArray: true, withNullPrototype: true, withBoxedValues: true, withDate: true, withObjectString: true, maxDepth: 4 });
  fc.assert(
    fc.property(anything, anything, (a, b) => sameCanonicalJson(a, b) === (canonicalJson(a) === canonicalJson(b))),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(anything, (value) => sameCanonicalJson(value, value) && canonicalJson(value) === canonicalJson(value)),
    { numRuns: 300 },
  );
  t.equal(sameCanonicalJson(NaN, NaN), true, 'NaN is not NaN, but both are written null');
  t.equal(sameCanonicalJson(NaN, null), true, 'as is null');
  // Equal texts are rare between two random values: a value against a reordered copy of itself, and a changed copy.
  const reordered = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reordered);
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .reverse()
        .map((key) => [key, reordered(record[key])]),
    );
  };
  const json = fc.jsonValue({ maxDepth: 4 });
  fc.assert(
    fc.property(json, (value) => sameCanonicalJson(value, reordered(value)) && canonicalJson(value) === canonicalJson(reordered(value))),
    { numRuns: 200 },
  );
  fc.assert(
    fc.property(json, json, (value, extra) => !sameCanonicalJson({ a: value }, { a: value, b: extra }) && !sameCanonicalJson([value], [value, extra])),
    { numRuns: 100 },
  );
  t.equal(sameCanonicalJson({ a: 1, b: undefined }, { a: 1 }), true, 'an undefined field is no field');
  t.equal(sameCanonicalJson([undefined], [null]), true, 'undefined in a list is null');
  // eslint-disable-next-line no-sparse-arrays -- a hole is written null
  t.equal(sameCanonicalJson([1, , 2], [1, null, 2]), true, 'a hole is written null');
  t.equal(sameCanonicalJson({ toString: 'x' }, { y: 'x' }), false, 'other keys');
  t.equal(sameCanonicalJson({ x: null }, { x: undefined, y: 1 }), false, 'a null field is not an undefined one, whatever the field count');
  t.equal(sameCanonicalJson({ x: 1 }, Object.defineProperty({}, 'x', { value: 1, enumerable: false })), false, 'a hidden field is no field');
  t.equal(sameCanonicalJson('1', 1), false, 'a text is not a number');
  t.equal(sameCanonicalJson(-0, 0), true, 'JSON does not tell -0 from 0');
});

t.test('keptRenders: an equal input gets the same frozen answer; anything else is rendered', async (t) => {
  type Input = { readonly model: object; readonly names?: object; readonly secret: string; readonly extra?: unknown };
  const calls: Input[] = [];
  const render = keptRenders((input: Input) => {
    calls.push(input);
    return { children: [{ name: input.secret }] };
  });
  const model = Object.freeze({ spec: 1 });
  const first = render({ model, secret: 'a' });
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.children[0]), 'the kept answer is frozen to its leaves');
  t.equal(render({ model, secret: 'a' }), first, 'an equal input (another object) gets the same answer');
  t.equal(calls.length, 1);
  t.same(render({ model, secret: 'b' }), { children: [{ name: 'b' }] }, 'another rest is rendered');
  t.not(render({ model: { spec: 1 }, secret: 'a' }), first, 'another model object is rendered: models are kept by identity');
  const mutable = { spec: 1 };
  const counted = calls.length;
  t.notOk(Object.isFrozen(render({ model: mutable, secret: 'a' })), 'a model that may change is not kept');
  render({ model: mutable, secret: 'a' });
  t.equal(calls.length, counted + 2, 'and is rendered every time');
  const names = Object.freeze({ workload: 'w' });
  t.not(render({ model, names, secret: 'a' }), first, 'other names are rendered');
  t.equal(render({ model, names, secret: 'a' }), render({ model, names, secret: 'a' }), 'and kept by identity too');
  const before = calls.length;
  const fresh = render({ model, secret: 'a', extra: undefined });
  const again = render({ model, secret: 'a', extra: new Map() });
  t.equal(calls.length, before + 2, 'an input whose rest is not exact JSON is rendered every time');
  t.notOk(Object.isFrozen(fresh) || Object.isFrozen(again), 'and its answer is the renderer’s own');
  // Bounded: after more renders than are kept for one model, the first is rendered again.
  for (const secret of ['c', 'd', 'e', 'f', 'g']) render({ model, secret });
  const count = calls.length;
  render({ model, secret: 'a' });
  t.equal(calls.length, count + 1, 'a model keeps a few answers, the oldest forgotten first');
});

t.test('keyedContentHash is HMAC-SHA256 of the text under the key, whatever was asked before', async (t) => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (key, value) => {
      const expected = createHmac('sha256', key).update(value).digest('hex');
      return keyedContentHash(key, value) === expected && keyedContentHash(key, value) === expected;
    }),
    { numRuns: 300 },
  );
  t.not(keyedContentHash('a', 'bc'), keyedContentHash('ab', 'c'), 'the key and the text are kept apart');
});
