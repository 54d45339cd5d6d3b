/** Bounded memos: the function's own answers, at most `limit` of them kept, the oldest forgotten first. */
import t from 'tap';
import { boundedMemo } from '../../src/api/shared/memo.js';

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
