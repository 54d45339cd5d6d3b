/** The emulator writes hook requests as Metacontroller's Go encoding/json does: sorted keys, HTML-safe escapes. */
import t from 'tap';
import fc from 'fast-check';
import { goJson } from '../../src/cli/emulation/go-json.js';

t.test('keys sorted at every level, whatever order the object was built in', async (t) => {
  const rendered = { data: { 'clouds.yaml': 'Yw==', 'ca.crt': 'Qw==' }, kind: 'Secret', apiVersion: 'v1', metadata: { name: 'x', labels: { b: '1', a: '2' } } };
  t.equal(
    goJson(rendered),
    '{"apiVersion":"v1","data":{"ca.crt":"Qw==","clouds.yaml":"Yw=="},"kind":"Secret","metadata":{"labels":{"a":"2","b":"1"},"name":"x"}}',
  );
  t.equal(goJson([{ b: 1, a: [{ d: 1, c: 2 }] }]), '[{"a":[{"c":2,"d":1}],"b":1}]', 'inside lists too');
});

t.test('keys compared as UTF-8 bytes, and integer-like keys are no exception', async (t) => {
  // UTF-16 puts U+FF5E after U+1F600's surrogate pair; UTF-8 puts it before.
  t.equal(goJson({ '\u{1F600}': 1, '\uFF5E': 2 }), '{"～":2,"😀":1}');
  // A JavaScript object lists "10" and "9" first, in numeric order; Go sorts them as text.
  t.equal(goJson({ b: 0, 9: 1, 10: 2 }), '{"10":2,"9":1,"b":0}');
});

t.test("Go's HTML-safe escapes in keys and values", async (t) => {
  t.equal(goJson({ 'a<b': 'x & y > z\u2028\u2029' }), '{"a\\u003cb":"x \\u0026 y \\u003e z\\u2028\\u2029"}');
});

t.test('undefined fields are left out, undefined list items written null, as JSON.stringify does', async (t) => {
  t.equal(goJson({ a: undefined, b: [undefined, null, 1] }), '{"b":[null,null,1]}');
});

/** The same value with the keys of every object in reverse order. */
const reversedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
};

t.test('any JSON value: read back unchanged, the same text whatever the key order, no raw < > &', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = goJson(value);
      t.same(JSON.parse(text), value);
      return text === goJson(reversedKeys(value)) && !/[<>&]/.test(text);
    }),
  );
});
