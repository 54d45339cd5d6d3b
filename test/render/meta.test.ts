/**
 * canonicalJson, the text content hashes are taken of: built in a loop, it must stay the text of the plain
 * definition (keys sorted, undefined fields left out, JSON.stringify for everything else).
 */
import fc from 'fast-check';
import t from 'tap';
import { canonicalJson, contentHash } from '../../src/render/meta.js';

/** The plain definition: map, filter and join. */
const reference = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
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
  // A hole is joined as an empty text, as Array.prototype.join does.
  // eslint-disable-next-line no-sparse-arrays -- the hole is what this line tests
  t.equal(canonicalJson([1, , 2]), '[1,,2]');
  t.equal(contentHash({ b: 1, a: 2 }), contentHash({ a: 2, b: 1 }), 'key order does not change the hash');
});
