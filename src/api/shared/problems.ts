/**
 * Validation problems and the translation of TypeBox schema errors into them.
 *
 * A problem names the field (`spec.networking.dhcp.rangeBegin`) and says, in plain words, what is wrong
 * and what to do about it. The hooks put problems into the `Ready` condition of the object.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import {
  describeValue,
  enumMessage,
  formatMessage,
  maxItemsMessage,
  maxLengthMessage,
  maximumMessage,
  minItemsMessage,
  minLengthMessage,
  minimumMessage,
  patternMessage,
  typeMessage,
  type ExpectedType,
} from './schema-messages.js';

export { describeValue };

/** One thing wrong with a spec. */
export type Problem = { readonly path: string; readonly message: string };

/** Builds a problem. */
export const problem = (path: string, message: string): Problem => ({ path, message });

/** At most this many schema problems are reported; a last one says how many were left out. */
export const MAX_SCHEMA_PROBLEMS = 50;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SHOWN_DESCRIPTION = 160;

/** True for a plain (non-array, non-null) object. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Appends keys to a field path: numbers become `[i]`, plain names `.name`, other keys `["a/b"]`. */
export const fieldPath = (base: string, ...keys: readonly (string | number)[]): string =>
  keys.reduce<string>((path, key) => {
    if (typeof key === 'number') return `${path}[${key}]`;
    return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
  }, base);

const decodePointerSegment = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

const INDEX = /^[0-9]+$/;

const childOf = (value: unknown, key: string): unknown => {
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    return INDEX.test(key) ? list[Number(key)] : undefined;
  }
  return isRecord(value) ? value[key] : undefined;
};

/**
 * Turns a JSON pointer of TypeBox (`/networking/dhcp/extraRanges/0/rangeBegin`) into a field path under
 * `root` (`spec.networking.dhcp.extraRanges[0].rangeBegin`). The value is walked so that a numeric key of a
 * map stays a key and only array positions become `[i]`.
 */
export const pointerToPath = (root: string, pointer: string, value: unknown): string => {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map(decodePointerSegment);
  let path = root;
  let current = value;
  for (const segment of segments) {
    path = Array.isArray(current) && INDEX.test(segment) ? fieldPath(path, Number(segment)) : fieldPath(path, segment);
    current = childOf(current, segment);
  }
  return path;
};

const option = (schema: TSchema, key: string): unknown => {
  const value: unknown = schema[key];
  return value;
};

const stringOption = (schema: TSchema, key: string): string | undefined => {
  const value = option(schema, key);
  return typeof value === 'string' ? value : undefined;
};

const descriptionHint = (schema: TSchema): string => {
  const description = stringOption(schema, 'description');
  if (description === undefined) return '';
  const short = description.length > MAX_SHOWN_DESCRIPTION ? `${description.slice(0, MAX_SHOWN_DESCRIPTION)}…` : description;
  return ` (${short.replace(/\.$/, '')})`;
};

const literalValues = (schema: TSchema): readonly unknown[] | undefined => {
  const variants = option(schema, 'anyOf');
  if (!Array.isArray(variants)) return undefined;
  const values = variants.map((v: unknown) => (isRecord(v) && 'const' in v ? v['const'] : undefined));
  return values.every((v) => v !== undefined) ? values : undefined;
};

const unionMessage = (error: ValueError): string => {
  const literals = literalValues(error.schema);
  if (literals) return enumMessage(literals, error.value);
  if (option(error.schema, 'x-kubernetes-int-or-string') === true) return typeMessage('int-or-string', error.schema, error.value);
  return `has none of the allowed forms, but it is ${describeValue(error.value)}: fix the value${descriptionHint(error.schema)}`;
};

const typeError =
  (expected: ExpectedType) =>
  (error: ValueError): string =>
    typeMessage(expected, error.schema, error.value);

const MESSAGES: Partial<Record<ValueErrorType, (error: ValueError) => string>> = {
  [ValueErrorType.ObjectRequiredProperty]: (error) => `is required but missing: add it${descriptionHint(error.schema)}`,
  [ValueErrorType.Object]: typeError('object'),
  [ValueErrorType.Array]: typeError('array'),
  [ValueErrorType.String]: typeError('string'),
  [ValueErrorType.Boolean]: typeError('boolean'),
  [ValueErrorType.Integer]: typeError('integer'),
  [ValueErrorType.Number]: typeError('number'),
  [ValueErrorType.IntegerMinimum]: (error) => minimumMessage(error.schema, error.value),
  [ValueErrorType.IntegerMaximum]: (error) => maximumMessage(error.schema, error.value),
  [ValueErrorType.NumberMinimum]: (error) => minimumMessage(error.schema, error.value),
  [ValueErrorType.NumberMaximum]: (error) => maximumMessage(error.schema, error.value),
  [ValueErrorType.StringMinLength]: (error) => minLengthMessage(error.schema),
  [ValueErrorType.StringMaxLength]: (error) => maxLengthMessage(error.schema, typeof error.value === 'string' ? error.value.length : 0),
  [ValueErrorType.StringPattern]: (error) => patternMessage(error.schema, error.value),
  [ValueErrorType.StringFormat]: (error) => formatMessage(error.schema, error.value),
  [ValueErrorType.Union]: unionMessage,
  [ValueErrorType.ArrayMaxItems]: (error) => maxItemsMessage(error.schema, error.value),
  [ValueErrorType.ArrayMinItems]: (error) => minItemsMessage(error.schema, error.value),
};

/** The plain-words message of one TypeBox error. */
export const schemaErrorMessage = (error: ValueError): string =>
  MESSAGES[error.type]?.(error) ?? `${error.message}, but it is ${describeValue(error.value)}: fix the value to match the API`;

/**
 * Checks `value` against `schema` and returns one problem per offending field (the first error of each
 * path), under `root`. At most MAX_SCHEMA_PROBLEMS are listed. The schema formats must be registered.
 */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** A compiled checker per schema: the common case (a valid spec) then costs one fast check. */
export const compiledCheck = (schema: TSchema): TypeCheck<TSchema> => {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
};

export const schemaProblems = (schema: TSchema, value: unknown, root: string): Problem[] => {
  if (compiledCheck(schema).Check(value)) return [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const error of Value.Errors(schema, value)) {
    const path = pointerToPath(root, error.path, value);
    if (seen.has(path)) continue;
    seen.add(path);
    if (problems.length < MAX_SCHEMA_PROBLEMS) problems.push(problem(path, schemaErrorMessage(error)));
    else skipped += 1;
  }
  if (skipped > 0) problems.push(problem(root, `${skipped} more fields are invalid and were not listed: fix the ones above and check again`));
  return problems;
};

const errorText = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
};

/**
 * Runs a validation and turns an unexpected exception into a problem, so that validators are total.
 * Such a problem is a bug of the operator, and says so.
 */
export const withoutThrowing = (validate: () => Problem[]): Problem[] => {
  try {
    return validate();
  } catch (error) {
    return [problem('spec', `the spec could not be validated (${errorText(error)}): this is a bug of the operator, please report it`)];
  }
};
