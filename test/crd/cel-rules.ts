/**
 * The CEL rules of the generated CRDs, where each sits, and how the emulated API server evaluates them on an
 * object (the CEL parity tests against the emulator and against the real API server share them).
 */
import type { TSchema } from '@sinclair/typebox';
import { kubeCelProgram } from '../../src/cli/emulation/kube-cel.js';
import type { Problem } from '../../src/api/shared/problems.js';
import { crdOf } from '../../src/kinds/crds.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { schemaOf } from '../helpers/crd-check.js';
import { defaultAndPrune } from '../support/crd-schema.js';
import type { Json, KubeObject } from './cel-samples.js';
import { VALIDATORS } from './cel-twins.js';

/** A parent kind, by its `kind`. */
export type Kind = string;

/** A CEL rule of a CRD and where it sits: property names, `[]` for list items. */
export type CelRule = { readonly kind: Kind; readonly location: readonly string[]; readonly rule: string; readonly message: string };

/** One place a rule applies to in an object: its field path and value. */
type Instance = { readonly path: string; readonly value: unknown };

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every parent kind, with its generated CRD and its spec schema. */
export const KINDS: readonly { readonly kind: Kind; readonly crd: Json; readonly spec: TSchema }[] = PARENT_KINDS.map((k) => ({
  kind: k.kind,
  crd: crdOf(k),
  spec: k.spec,
}));

const rulesOf = (kind: Kind, schema: Json, location: readonly string[] = []): CelRule[] => {
  const own = Array.isArray(schema['x-kubernetes-validations']) ? (schema['x-kubernetes-validations'] as { rule: string; message: string }[]) : [];
  const properties = isRecord(schema['properties']) ? Object.entries(schema['properties']) : [];
  const items = isRecord(schema['items']) ? [['[]', schema['items']] as const] : [];
  const additional = isRecord(schema['additionalProperties']) ? [['{}', schema['additionalProperties']] as const] : [];
  return [
    ...own.map(({ rule, message }) => ({ kind, location, rule, message })),
    ...[...properties, ...items, ...additional].flatMap(([name, child]) => (isRecord(child) ? rulesOf(kind, child, [...location, name]) : [])),
  ];
};

/** Every CEL rule of every CRD. */
export const ALL_RULES: readonly CelRule[] = KINDS.flatMap(({ kind, crd }) => rulesOf(kind, schemaOf(crd)));

/** `<location>: <message>`, the location written as a field path (`(root)` for the object itself). */
export const keyOf = (rule: CelRule): string => `${rule.location.join('.').replaceAll('.[]', '[]') || '(root)'}: ${rule.message}`;

const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

/** The values at `location` in `value`, with their field paths (`spec.networking`, `…providerNetworks[1]`). */
const instancesAt = (value: unknown, location: readonly string[], path = ''): Instance[] => {
  if (value === undefined) return [];
  const [head, ...rest] = location;
  if (head === undefined) return [{ path, value }];
  if (head === '[]') return Array.isArray(value) ? value.flatMap((item, i) => instancesAt(item, rest, `${path}[${i}]`)) : [];
  if (head === '{}') return isRecord(value) ? Object.entries(value).flatMap(([key, item]) => instancesAt(item, rest, `${path}[${JSON.stringify(key)}]`)) : [];
  return isRecord(value) ? instancesAt(value[head], rest, child(path, head)) : [];
};

/** The old value of an instance: only for paths outside lists (atomic list items are not correlated). */
const oldAt = (old: unknown, location: readonly string[]): unknown => {
  if (location.includes('[]') || location.includes('{}')) return undefined;
  return location.reduce<unknown>((value, name) => (isRecord(value) ? value[name] : undefined), old);
};

/** CEL values: integers are int64 (bigint), the rest as in JSON. */
const celValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(celValue);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
};

/**
 * Whether the rule accepts `self`. A transition rule without an old value is not evaluated (the API server
 * skips it), so it accepts. An evaluation error is thrown: the API server would refuse the object.
 */
const celAccepts = (rule: CelRule, self: unknown, old: unknown): boolean => {
  const transition = rule.rule.includes('oldSelf');
  if (transition && old === undefined) return true;
  const result: unknown = kubeCelProgram(rule.rule)({ self: celValue(self), ...(transition && { oldSelf: celValue(old) }) });
  if (typeof result !== 'boolean') throw new Error(`${keyOf(rule)}: evaluated to ${String(result)}, not a boolean`);
  return result;
};

/** The object as the API server stores it: the spec defaulted (metadata kept as is). */
export const defaulted = (crd: Json, object: KubeObject): KubeObject => {
  const specSchema = (schemaOf(crd)['properties'] as Json)['spec'] as Json;
  return { ...object, spec: defaultAndPrune(specSchema, object.spec) as Json };
};

export const validate = (kind: Kind, object: KubeObject, old: KubeObject | undefined): readonly Problem[] => {
  const validator = VALIDATORS[kind];
  if (validator === undefined) throw new Error(`${kind} has no TypeScript validation in test/crd/cel-twins.ts`);
  return validator(object.spec, old?.spec);
};

/** Whether `rule` refuses the object somewhere, and at which instances. */
export const refusals = (rule: CelRule, object: KubeObject, old: KubeObject | undefined): { readonly path: string; readonly refused: boolean }[] => {
  const oldValue = old === undefined ? undefined : oldAt(old, rule.location);
  return instancesAt(object, rule.location).map(({ path, value }) => ({ path, refused: !celAccepts(rule, value, oldValue) }));
};

/** The CRD of a kind of KINDS. */
export const crdOfKind = (kind: Kind): Json => {
  const found = KINDS.find((k) => k.kind === kind);
  if (found === undefined) throw new Error(`${kind} is not a parent kind`);
  return found.crd;
};
