/**
 * Validation problems and the translation of TypeBox schema errors into them.
 *
 * A problem names the field (`spec.networking.dhcp.rangeBegin`) and says, in plain words, what is wrong
 * and what to do about it. The hooks put problems into the `Ready` condition of the object.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';

/** One thing wrong with a spec. */
export type Problem = { readonly path: string; readonly message: string };

/** Builds a problem. */
export const problem = (path: string, message: string): Problem => ({ path, message });

/** At most this many schema problems are reported; a last one says how many were left out. */
export const MAX_SCHEMA_PROBLEMS = 50;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SHOWN_VALUE = 60;
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

/** A short, human description of a value, for messages. */
export const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') {
    return value.length > MAX_SHOWN_VALUE ? `${JSON.stringify(value.slice(0, MAX_SHOWN_VALUE))}… (${value.length} characters)` : JSON.stringify(value);
  }
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
};

const option = (schema: TSchema, key: string): unknown => {
  const value: unknown = schema[key];
  return value;
};

const numberOption = (schema: TSchema, key: string): number | undefined => {
  const value = option(schema, key);
  return typeof value === 'number' ? value : undefined;
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
  if (literals) {
    return `must be one of ${literals.map((v) => JSON.stringify(v)).join(', ')}, but it is ${describeValue(error.value)}: use one of these values`;
  }
  if (option(error.schema, 'x-kubernetes-int-or-string') === true) {
    return `must be a whole number or a quantity string such as 100m, 2 or 1Gi, but it is ${describeValue(error.value)}: fix the value`;
  }
  return `has none of the allowed forms, but it is ${describeValue(error.value)}: fix the value${descriptionHint(error.schema)}`;
};

const formatMessage = (error: ValueError): string => {
  const format = stringOption(error.schema, 'format') ?? 'unknown';
  const value = describeValue(error.value);
  if (format === 'uri') return `${value} is not a valid absolute URL: write it with a scheme, for example https://192.0.2.10:6385`;
  if (format === 'date-time') return `${value} is not a valid timestamp: use RFC 3339, for example 2024-05-01T12:00:00Z`;
  return `${value} is not a valid ${format}: fix the value`;
};

const rangeText = (schema: TSchema): string => {
  const [min, max] = [numberOption(schema, 'minimum'), numberOption(schema, 'maximum')];
  if (min !== undefined && max !== undefined) return `a value from ${min} to ${max}`;
  return min !== undefined ? `a value of at least ${min}` : `a value of at most ${max ?? '?'}`;
};

const minLengthMessage = (error: ValueError): string => {
  const min = numberOption(error.schema, 'minLength') ?? 1;
  return min <= 1 ? 'must not be empty: set a value or remove the field' : `must be at least ${min} characters long: use a longer value`;
};

const maxLengthMessage = (error: ValueError): string => {
  const length = typeof error.value === 'string' ? error.value.length : 0;
  return `is too long (${length} characters, at most ${numberOption(error.schema, 'maxLength') ?? '?'} allowed): shorten it`;
};

const patternMessage = (error: ValueError): string =>
  `${describeValue(error.value)} has the wrong format: it must match ${stringOption(error.schema, 'pattern') ?? '?'}${descriptionHint(error.schema)}`;

const typeMessage =
  (expected: string, fix: string) =>
  (error: ValueError): string =>
    `must be ${expected}, but it is ${describeValue(error.value)}: ${fix}`;

const MESSAGES: Partial<Record<ValueErrorType, (error: ValueError) => string>> = {
  [ValueErrorType.ObjectRequiredProperty]: (error) => `is required but missing: add it${descriptionHint(error.schema)}`,
  [ValueErrorType.Object]: typeMessage('an object', 'write it as a map of fields (key: value)'),
  [ValueErrorType.Array]: typeMessage('a list', 'write it as a list of entries'),
  [ValueErrorType.String]: typeMessage('a string', 'write it as text, in quotes if it looks like a number or boolean'),
  [ValueErrorType.Boolean]: typeMessage('true or false', 'use true or false without quotes'),
  [ValueErrorType.Integer]: typeMessage('a whole number', 'write a number without quotes or decimals'),
  [ValueErrorType.Number]: typeMessage('a number', 'write a number without quotes'),
  [ValueErrorType.IntegerMinimum]: (error) => `is ${describeValue(error.value)}, which is too small: use ${rangeText(error.schema)}`,
  [ValueErrorType.IntegerMaximum]: (error) => `is ${describeValue(error.value)}, which is too large: use ${rangeText(error.schema)}`,
  [ValueErrorType.StringMinLength]: minLengthMessage,
  [ValueErrorType.StringMaxLength]: maxLengthMessage,
  [ValueErrorType.StringPattern]: patternMessage,
  [ValueErrorType.StringFormat]: formatMessage,
  [ValueErrorType.Union]: unionMessage,
  [ValueErrorType.ArrayMaxItems]: (error) =>
    `has ${Array.isArray(error.value) ? error.value.length : '?'} entries, but at most ${numberOption(error.schema, 'maxItems') ?? '?'} are allowed: remove some`,
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
