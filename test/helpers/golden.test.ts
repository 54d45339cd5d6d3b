import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGolden, checkGolden, updateGoldenRequested, type GoldenAssert } from './golden.js';

type Call = { assertion: 'fail'; message: string } | { assertion: 'equal'; found: string; wanted: string; message: string };

/** A stand-in for tap's `t` that records the assertions instead of making them. */
const recorder = (): { calls: Call[]; assert: GoldenAssert } => {
  const calls: Call[] = [];
  return {
    calls,
    assert: {
      fail: (message) => calls.push({ assertion: 'fail', message }),
      equal: (found, wanted, message) => calls.push({ assertion: 'equal', found, wanted, message }),
    },
  };
};

t.test('a missing golden file fails, names the file and how to write it, and is not written', async (t) => {
  const file = join(t.testdir({}), 'ironic', 'new-scenario.yaml');
  const { calls, assert } = recorder();
  assertGolden(assert, file, 'kind: Ironic\n', false);
  t.equal(calls.length, 1, 'one assertion');
  t.equal(calls[0]?.assertion, 'fail', 'a failure, not a comparison');
  t.match(calls[0]?.message, file);
  t.match(calls[0]?.message, /UPDATE_GOLDEN=1/);
  t.notOk(existsSync(file), 'nothing written');
  t.same(checkGolden(file, 'kind: Ironic\n', false).kind, 'missing');
});

t.test('an existing golden file is compared with the text', async (t) => {
  const dir = t.testdir({ 'same.yaml': 'a: 1\n', 'other.yaml': 'a: 2\n' });
  const { calls, assert } = recorder();
  assertGolden(assert, join(dir, 'same.yaml'), 'a: 1\n', false);
  assertGolden(assert, join(dir, 'other.yaml'), 'a: 1\n', false);
  t.same(calls, [
    { assertion: 'equal', found: 'a: 1\n', wanted: 'a: 1\n', message: `matches ${join(dir, 'same.yaml')}` },
    { assertion: 'equal', found: 'a: 1\n', wanted: 'a: 2\n', message: `matches ${join(dir, 'other.yaml')}` },
  ]);
  t.equal(readFileSync(join(dir, 'other.yaml'), 'utf8'), 'a: 2\n', 'a different golden file is left as it was');
});

t.test('UPDATE_GOLDEN=1 writes missing and different golden files, then they match', async (t) => {
  const dir = t.testdir({ 'old.yaml': 'a: 0\n' });
  const created = join(dir, 'nested', 'created.yaml');
  const { calls, assert } = recorder();
  assertGolden(assert, created, 'b: 1\n', true);
  assertGolden(assert, join(dir, 'old.yaml'), 'a: 1\n', true);
  t.equal(readFileSync(created, 'utf8'), 'b: 1\n');
  t.equal(readFileSync(join(dir, 'old.yaml'), 'utf8'), 'a: 1\n');
  t.same(
    calls.map((c) => c.assertion === 'equal' && c.found === c.wanted),
    [true, true],
  );
});

t.test('only UPDATE_GOLDEN=1 asks for writing', async (t) => {
  t.equal(updateGoldenRequested({ UPDATE_GOLDEN: '1' }), true);
  for (const value of [undefined, '', '0', 'true', 'yes']) t.equal(updateGoldenRequested({ UPDATE_GOLDEN: value }), false, String(value));
});

t.test("tap's t makes the assertion", async (t) => {
  const file = join(t.testdir({ 'golden.yaml': 'c: 3\n' }), 'golden.yaml');
  assertGolden(t, file, 'c: 3\n', false);
});
