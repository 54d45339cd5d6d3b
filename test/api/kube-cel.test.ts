/**
 * The Kubernetes CEL libraries the CRD rules use, as the API server defines them: the quantity library
 * compares exactly, across notations.
 */
import t from 'tap';
import { evaluateKubeCel } from '../../src/cli/emulation/kube-cel.js';

t.test('the quantity library', async (t) => {
  const cases: readonly [string, unknown][] = [
    ["isQuantity('1Gi')", true],
    ["isQuantity('1.5Gi')", true],
    ["isQuantity('lots')", false],
    ["quantity('1Gi').isLessThan(quantity('1025Mi'))", true],
    ["quantity('1024Mi').isLessThan(quantity('1Gi'))", false],
    ["quantity('1').isGreaterThan(quantity('999m'))", true],
    ["quantity('1e3').compareTo(quantity('1k'))", 0n],
    ["quantity('100m').compareTo(quantity('0.2'))", -1n],
    ["quantity('2').compareTo(quantity('1500m'))", 1n],
    ["quantity(string(self)).isLessThan(quantity('2'))", true],
  ];
  for (const [rule, expected] of cases) t.equal(evaluateKubeCel(rule, { self: 1n }), expected, rule);
  t.throws(
    () => evaluateKubeCel("quantity('lots')", {}),
    /Kubernetes quantities/,
    'a text that is not a quantity is an evaluation error, as in the API server',
  );
  t.equal(evaluateKubeCel("self.all(k, k in ['a'])", { self: { a: 1n } }), true, 'the standard language is unchanged');
});
