/**
 * CEL as the API server evaluates CRD validation rules: the standard language plus the part of the
 * Kubernetes libraries our rules use, the quantity library (`isQuantity`, `quantity`, `isLessThan`,
 * `isGreaterThan`, `compareTo`; Kubernetes 1.29 and later), backed by quantity.ts.
 */
import { Environment } from '@marcbachmann/cel-js';
import { compareQuantities, parseQuantity, type Quantity as Parsed } from '../../api/shared/quantity.js';

/** A Kubernetes quantity as a CEL value. */
class Quantity {
  readonly value: Parsed;
  constructor(value: Parsed) {
    this.value = value;
  }
}

const quantityOf = (text: string): Quantity => {
  const parsed = parseQuantity(text);
  if (parsed === undefined)
    throw new Error(`quantities must match the regular expression of Kubernetes quantities, but got ${JSON.stringify(text.slice(0, 64))}`);
  return new Quantity(parsed);
};

const compare = (a: Quantity, b: Quantity): number => compareQuantities(a.value, b.value);

const method = (name: string, returnType: string, handler: (a: Quantity, b: Quantity) => unknown) => ({
  name,
  receiverType: 'Quantity',
  returnType,
  handler,
  params: [{ name: 'other', type: 'Quantity' }],
});

const environment = new Environment({ unlistedVariablesAreDyn: true })
  .registerType('Quantity', Quantity)
  .registerFunction('isQuantity(string): bool', (text: string) => parseQuantity(text) !== undefined)
  .registerFunction('quantity(string): Quantity', quantityOf)
  .registerFunction(method('isLessThan', 'bool', (a, b) => compare(a, b) < 0))
  .registerFunction(method('isGreaterThan', 'bool', (a, b) => compare(a, b) > 0))
  .registerFunction(method('compareTo', 'int', (a, b) => BigInt(compare(a, b))));

type Program = (variables: Readonly<Record<string, unknown>>) => unknown;

const programs = new Map<string, Program>();

/** The compiled rule (cached: CRDs have a few dozen rules, evaluated many times). Throws on a syntax error. */
export const kubeCelProgram = (rule: string): Program => {
  const known = programs.get(rule);
  if (known !== undefined) return known;
  const program = environment.parse(rule) as unknown as Program;
  programs.set(rule, program);
  return program;
};

/** Evaluates a rule with its variables (`self`, `oldSelf`; integers as BigInt). Throws on an evaluation error. */
export const evaluateKubeCel = (rule: string, variables: Readonly<Record<string, unknown>>): unknown => kubeCelProgram(rule)(variables);
