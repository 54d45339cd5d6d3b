/**
 * Canonical quantities, as the API server stores them (values checked against apimachinery's
 * CanonicalizeBytes rules: suffix family kept, exponent a multiple of 3, the largest exact binary suffix,
 * values below 1Ki or with a fraction of a byte printed in decimal, rounding up to nano units).
 */
import t from 'tap';
import { canonicalQuantity, canonicalTexts, parseQuantity, parsedTexts } from '../../src/api/shared/quantity.js';

const cases: readonly (readonly [string | number, string | undefined])[] = [
  [1, '1'],
  ['1', '1'],
  [0, '0'],
  ['0Gi', '0'],
  ['0.5', '500m'],
  ['.5', '500m'],
  ['1000m', '1'],
  ['1500m', '1500m'],
  ['100m', '100m'],
  ['0.1', '100m'],
  ['2000', '2k'],
  ['1500', '1500'],
  ['1k', '1k'],
  ['1000k', '1M'],
  ['1024Mi', '1Gi'],
  ['1536Mi', '1536Mi'],
  ['1.5Gi', '1536Mi'],
  ['0.5Gi', '512Mi'],
  ['512Ki', '512Ki'],
  ['1024', '1024'],
  ['1Ki', '1Ki'],
  ['1.5Ki', '1536'],
  ['0.5Ki', '512'],
  ['1023Ki', '1023Ki'],
  ['1048576Ki', '1Gi'],
  ['1e3', '1e3'],
  ['1E3', '1e3'],
  ['1.5e3', '1500'],
  ['1e0', '1'],
  ['1e-3', '1e-3'],
  ['1E', '1E'],
  ['10Gi', '10Gi'],
  ['0.000000001', '1n'],
  ['0.0000000001', '1n'],
  ['1.0000000001', '1000000001n'],
  ['-1', '-1'],
  ['-0.5', '-500m'],
  ['1Pi', '1Pi'],
  ['1024Pi', '1Ei'],
  ['2048Ei', '2048Ei'],
  ['abc', undefined],
  ['1.5.5', undefined],
  [1.5, undefined],
];

for (const [input, expected] of cases) {
  t.equal(canonicalQuantity(input), expected, `${JSON.stringify(input)} → ${String(expected)}`);
}

t.test('canonical text is stable: canonicalising it again changes nothing', async (t) => {
  for (const [input] of cases) {
    const once = canonicalQuantity(input);
    if (once !== undefined) t.equal(canonicalQuantity(once), once, `${JSON.stringify(input)} → ${once}`);
  }
});

t.test('canonical texts are remembered, boundedly, and the answers never depend on what was asked before', async (t) => {
  const before = cases.map(([input]) => canonicalQuantity(input));
  for (let i = 0; i < 3000; i += 1) canonicalQuantity(`${i}Mi`);
  t.ok(canonicalTexts.size() <= 1024, `${canonicalTexts.size()} texts kept`);
  t.same(
    cases.map(([input]) => canonicalQuantity(input)),
    before,
    'the same answers once the first ones are forgotten',
  );
  t.equal(canonicalQuantity('2048Mi'), '2Gi', 'a remembered text');
  t.equal(canonicalQuantity('1'.repeat(65)), undefined, 'too long to be a quantity');
});

t.test('parsed texts are remembered, boundedly, frozen, and the same values as parsing again', async (t) => {
  const first = parseQuantity('1.5Gi');
  t.same(first, { numerator: 15n * 2n ** 30n, denominator: 10n });
  t.equal(parseQuantity('1.5Gi'), first, 'the remembered quantity');
  t.ok(Object.isFrozen(first), 'shared, so frozen');
  t.equal(parseQuantity('not a quantity'), undefined);
  t.equal(parseQuantity('not a quantity'), undefined, 'remembered too');
  t.equal(parseQuantity('1'.repeat(65)), undefined, 'too long');
  for (let i = 0; i < 3000; i += 1) parseQuantity(`${i}Ki`);
  t.ok(parsedTexts.size() <= 1024, `${parsedTexts.size()} texts kept`);
  t.same(parseQuantity('1.5Gi'), first, 'parsed again once forgotten: the same value');
});
