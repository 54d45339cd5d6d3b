/** Bounded memos: the function's own answers, at most `limit` of them kept, the oldest forgotten first. */
import t from 'tap';
import fc from 'fast-check';
import { boundedMemo, deepFrozen, exactJson, keptIn } from '../../src/api/shared/memo.js';

t.test('a memo answers what the function answers, working each key out once while it is kept', async (t) => {
  const calls: string[] = [];
  const memo = boundedMemo<number | undefined>(2);
  const get = (key: string): number | undefined =>
    memo.get(key, () => {
      calls.push(key);
      return key === 'none' ? undefined : key.length;
    });
  t.equal(get('a'), 1);
  t.equal(get('none'), undefined);
  t.equal(get('a'), 1);
  t.equal(get('none'), undefined, 'an undefined answer is kept too');
  t.same(calls, ['a', 'none']);
  t.equal(get('ccc'), 3);
  t.equal(memo.size(), 2, 'never more than the limit');
  t.equal(get('a'), 1, 'the oldest was forgotten');
  t.same(calls, ['a', 'none', 'ccc', 'a']);
  t.equal(get('ccc'), 3);
  t.same(calls, ['a', 'none', 'ccc', 'a'], 'the newer ones are still kept');
});

t.test('a memo of limit 0 keeps nothing', async (t) => {
  let calls = 0;
  const memo = boundedMemo<string>(0);
  const get = (key: string): string =>
    memo.get(key, () => {
      calls += 1;
      return key;
    });
  t.equal(get('a'), 'a');
  t.equal(get('a'), 'a');
  t.equal(calls, 2);
  t.equal(memo.size(), 0);
});

t.test('a key whose answer throws is not kept', async (t) => {
  let calls = 0;
  const memo = boundedMemo<number>(4);
  const bad = (): number => {
    calls += 1;
    throw new Error('bad key');
  };
  t.throws(() => memo.get('bad', bad));
  t.throws(() => memo.get('bad', bad));
  t.equal(calls, 2);
  t.equal(memo.size(), 0);
});

/** Whether -0 (which JSON writes as 0) is somewhere in a JSON value. */
const hasNegativeZero = (value: unknown): boolean =>
  Object.is(value, -0) || (typeof value === 'object' && value !== null && Object.values(value).some(hasNegativeZero));

t.test('exactJson is the JSON text of what JSON.parse could have made, and undefined for anything else', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = exactJson(value);
      return text === undefined ? hasNegativeZero(value) : text === JSON.stringify(value);
    }),
    { numRuns: 300 },
  );
  t.equal(exactJson({ a: [1, 'x', true, null, { b: 2.5 }] }), '{"a":[1,"x",true,null,{"b":2.5}]}');
  t.equal(exactJson(JSON.parse('{"a":1}')), '{"a":1}', 'what JSON.parse makes');
  for (const [what, value] of [
    ['an undefined field', { a: undefined }],
    ['undefined in a list', [undefined]],
    // eslint-disable-next-line no-sparse-arrays -- the hole is what this row is about
    ['a hole', [1, , 2]],
    ['a function', { f: () => 1 }],
    ['NaN', { n: Number.NaN }],
    ['-0', { n: -0 }],
    ['a Date', { d: new Date(0) }],
    ['a class instance', new Set([1])],
    ['a bigint', { n: 1n }],
    ['undefined itself', undefined],
  ] as const)
    t.equal(exactJson(value), undefined, what);
  t.equal(exactJson(Object.assign(Object.create(null) as object, { a: 1 })), '{"a":1}', 'an object without prototype is plain');
});

t.test('deepFrozen freezes every object and list inside, in place, and leaves sets alone', async (t) => {
  const set = new Set([1]);
  const value = deepFrozen({ a: { b: [{ c: 1 }] }, set });
  t.ok(Object.isFrozen(value) && Object.isFrozen(value.a) && Object.isFrozen(value.a.b) && Object.isFrozen(value.a.b[0]), 'frozen all the way down');
  t.notOk(Object.isFrozen(set), 'a set is left as it is');
  t.equal(deepFrozen('text'), 'text', 'a primitive is itself');
});

t.test('keptIn makes the value of an object once, and keeps it only in the weak map given', async (t) => {
  const map = new WeakMap<object, boolean>();
  const [a, b] = [{}, {}];
  let made = 0;
  const make = (value: boolean) => (): boolean => {
    made += 1;
    return value;
  };
  t.equal(keptIn(map, a, make(false)), false);
  t.equal(keptIn(map, a, make(true)), false, 'a kept false is an answer, not a miss');
  t.equal(keptIn(map, b, make(true)), true, 'another object is made anew');
  t.equal(made, 2);
});
