/** Frozen copies that remember their JSON text, and jsonText: always the text JSON.stringify writes. */
import t from 'tap';
import fc from 'fast-check';
import { frozenJsonCopy, jsonText } from '../../src/api/shared/frozen-json.js';

/** JSON.rawJSON (Node has it; TypeScript's ES2024 library does not declare it). */
const rawJSON = (JSON as unknown as { rawJSON: (text: string) => object }).rawJSON;

/** JSON values, with undefined fields and list items, holes, and objects with a toJSON method among them. */
const loose = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.sparseArray(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', '__proto__', 'a"b')), tie('value'), { maxKeys: 4 }),
    fc.record({ toJSON: fc.constant(() => 'custom') }),
    // What JSON.stringify writes its own way: toJSON is passed its key, boxed primitives are their values.
    fc.constant({ toJSON: (key: string): string => `key ${key}` }),
    fc.constantFrom<unknown>(new Date(0), Object('boxed'), Object(1), Object(true), rawJSON('12')),
  ),
})).value;

/** A response-like value: plain lists and objects around frozen copies of some of its parts. */
const withCopies = loose.chain((value) =>
  fc.tuple(fc.constant(value), fc.boolean(), fc.boolean()).map(([v, copyAll, copyItems]) => {
    const items = Array.isArray(v) ? v.map((item: unknown) => (copyItems && typeof item === 'object' && item !== null ? frozenJsonCopy(item) : item)) : v;
    return { children: copyAll && typeof items === 'object' && items !== null ? frozenJsonCopy(items) : items, status: v, resyncAfterSeconds: undefined };
  }),
);

t.test('jsonText writes what JSON.stringify writes, whatever the value and wherever frozen copies are in it', async (t) => {
  fc.assert(
    fc.property(loose, (value) => jsonText(value) === JSON.stringify(value)),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(withCopies, (value) => jsonText(value) === JSON.stringify(value)),
    { numRuns: 300 },
  );
  t.pass('300 values of each');
});

t.test('a frozen copy is deep-frozen, equal as JSON, and its recorded text is the one written', async (t) => {
  const source = { children: [{ kind: 'Secret', metadata: { name: 'a' }, data: { x: 'eA==' }, skipped: undefined }], hash: 'h' };
  const copy = frozenJsonCopy(source);
  t.not(copy, source, 'a copy');
  t.ok(Object.isFrozen(copy) && Object.isFrozen(copy.children) && Object.isFrozen(copy.children[0]?.metadata), 'frozen all the way down');
  t.same(copy, JSON.parse(JSON.stringify(source)), 'the JSON of the source: undefined fields left out');
  const response = { children: [...copy.children], status: { ready: true } };
  t.equal(jsonText(response), JSON.stringify(response));
  t.equal(jsonText(copy), JSON.stringify(source));
});

t.test('a plain object is written fresh every time: only frozen copies are remembered', async (t) => {
  const plain: Record<string, unknown> = { a: 1 };
  const response = { children: [plain] };
  t.equal(jsonText(response), '{"children":[{"a":1}]}');
  plain['a'] = 2;
  t.equal(jsonText(response), '{"children":[{"a":2}]}', 'a change shows');
});
