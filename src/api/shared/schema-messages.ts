/**
 * Plain words for what a schema check finds: the given value, what is expected, and an example. Used by the
 * hooks (TypeBox errors, src/api/shared/problems.ts) and by the render CLI's emulated API server (CRD
 * structural schemas, src/cli/emulation/schema-check.ts), so both say the same thing. Every `pattern` and
 * `format` of the API schemas is named here (a test enumerates them from the schemas): a regular expression
 * is never shown to a user.
 */

import { DNS_SUBDOMAIN_PATTERN } from './constants.js';
import { isControlCharacter, isSchemaUri } from './formats.js';

/** A schema, as TypeBox and a CRD's openAPIV3Schema both are: a map of keywords. */
export type SchemaKeywords = Readonly<Record<string, unknown>>;

/** What a pattern or format means, in words, with an example and, for some mistakes, the likely fix. */
export type NamedRule = {
  /** What the value must be: a noun phrase (`a Kubernetes quantity (…)`). */
  readonly expected: string;
  /** A valid value, as it would be written in YAML. */
  readonly example: string;
  /** The fix of a common mistake (`write "1Gi" …`), or undefined. */
  readonly suggestion?: (value: string) => string | undefined;
  /**
   * What is wrong and its fix, for a mistake that `expected` would only hide (`has spaces around it: remove
   * them`, of a URL that is one without its spaces), or undefined. It replaces the rest of the message.
   */
  readonly mistake?: (value: string) => string | undefined;
};

const MAX_SHOWN_VALUE = 60;

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

/** `10GB`, `512 MiB`, `1gb`: a byte unit written the way other tools write it. */
const BYTE_UNIT = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtTpPeE])(i?)[bB]?\s*$/;

/** `1GB` → `write "1G" (1000³ bytes) or "1Gi" (1024³ bytes)`; undefined for anything else. */
const byteUnitSuggestion = (value: string): string | undefined => {
  const match = BYTE_UNIT.exec(value);
  const [amount, letter, binary] = [match?.[1], match?.[2], match?.[3]];
  if (amount === undefined || letter === undefined || (letter === 'm' && binary === '')) return undefined;
  const upper = letter.toUpperCase();
  const decimal = upper === 'K' ? 'k' : upper;
  return binary === 'i'
    ? `write ${JSON.stringify(`${amount}${upper}i`)}, without spaces or a trailing B`
    : `write ${JSON.stringify(`${amount}${upper}i`)} (powers of 1024) or ${JSON.stringify(`${amount}${decimal}`)} (powers of 1000), without a trailing B`;
};

/** A Kubernetes quantity, as `IntOrString` of common.ts: resources of containers. */
export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
/** A volume size: a positive quantity without exponents or milli-units. */
export const SIZE_PATTERN = '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$';
/** `latest` or MAJOR.MINOR. */
export const VERSION_PATTERN = '^(latest|[0-9]+\\.[0-9]+)$';
/** A VLAN ID or a range `a-b`. */
export const VLAN_RANGE_PATTERN = '^[0-9]+(-[0-9]+)?$';
/** A file name without a directory. */
export const FILE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
/** An age in hours or days (backup retention). */
export const AGE_PATTERN = '^[1-9][0-9]{0,4}[hd]$';
/**
 * A database backup: `latest`, or the file name a backup run writes: `ironic-<UTC time>.sql.gz` (engine Builtin)
 * or mariadb-operator's `backup.<RFC 3339 UTC time>.sql[.gz|.bz2]` (engine MariaDBOperator).
 */
export const BACKUP_NAME_PATTERN =
  '^(latest|ironic-[0-9]{8}T[0-9]{6}Z\\.sql\\.gz|backup\\.[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\\.sql(\\.gz|\\.bz2)?)$';
/**
 * One OpenSSL name (a cipher suite or a group): letters, digits, `-` and `_` only, so that a value can never add
 * a list separator, a space or a line to the httpd configuration it ends up in.
 */
export const OPENSSL_NAME_PATTERN = '^[A-Za-z0-9_-]+$';

const SIZE_WORDS = 'a number with an optional suffix: k, M, G, T for powers of 1000 or Ki, Mi, Gi, Ti for powers of 1024';

/** Every pattern of the API schemas, by its regular expression. */
export const PATTERN_RULES: Readonly<Record<string, NamedRule>> = {
  [QUANTITY_PATTERN]: { expected: `a Kubernetes quantity (${SIZE_WORDS}, m for thousandths)`, example: '500m or 1Gi', suggestion: byteUnitSuggestion },
  [SIZE_PATTERN]: {
    expected: `a size (${SIZE_WORDS})`,
    example: '10Gi',
    suggestion: byteUnitSuggestion,
  },
  [VERSION_PATTERN]: {
    expected: 'an Ironic version (latest, or MAJOR.MINOR)',
    example: '"38.0"',
    suggestion: (value) => (/^[0-9]+$/.test(value.trim()) ? `write ${JSON.stringify(`${value.trim()}.0`)}` : undefined),
  },
  [DNS_SUBDOMAIN_PATTERN]: {
    expected: "a DNS subdomain name (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)",
    example: 'system-node-critical',
    suggestion: (value) => (value !== value.toLowerCase() ? `write ${JSON.stringify(value.toLowerCase())}` : undefined),
  },
  [VLAN_RANGE_PATTERN]: { expected: 'a VLAN ID or a range of them (a number, or two joined by -)', example: '"100-200"' },
  [FILE_NAME_PATTERN]: {
    expected: "a file name (letters, digits, '.', '_' and '-', starting with a letter or digit, no directory)",
    example: 'ipa-centos9-master.tar.gz',
  },
  [AGE_PATTERN]: { expected: 'an age in hours or days (a whole number followed by h or d)', example: '30d' },
  [BACKUP_NAME_PATTERN]: {
    expected: 'latest, or the file name of a backup (ironic-<UTC time>.sql.gz, or backup.<UTC time>.sql.gz of mariadb-operator)',
    example: 'ironic-20260101T020000Z.sql.gz',
  },
  [OPENSSL_NAME_PATTERN]: { expected: "an OpenSSL cipher or curve name (letters, digits, '_' and '-')", example: 'ECDHE-RSA-AES128-GCM-SHA256' },
};

const BARE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/** Whether an edit of a refused URL makes it valid. */
const fixes = (value: string, edited: string): boolean => edited !== value && isSchemaUri(edited);

/**
 * The mistakes of a refused URL that a small edit fixes, named rather than answered with "not an absolute
 * URL": spaces around it (the API server refuses a leading one), a tab or a line break, a `%` without two
 * hex digits. Each is named only when its fix yields a valid URL.
 */
const uriMistake = (value: string): string | undefined => {
  if (fixes(value, value.trim())) return 'has spaces around it: remove them';
  const withoutControls = Array.from(value)
    .filter((c) => !isControlCharacter(c))
    .join('');
  if (fixes(value, withoutControls)) return 'has a control character (a tab or a line break) in it: remove it';
  return fixes(value, value.replace(BARE_PERCENT, '%25')) ? 'has a % that does not start an escape: write it as %25' : undefined;
};

/** Every format of the API schemas. */
export const FORMAT_RULES: Readonly<Record<string, NamedRule>> = {
  uri: { expected: 'an absolute URL (with a scheme such as https:// or file://)', example: 'https://192.0.2.10:6385', mistake: uriMistake },
  'date-time': { expected: 'an RFC 3339 timestamp (date, T, time and a time zone)', example: '"2024-05-01T12:00:00Z"' },
};

const text = (schema: SchemaKeywords, key: string): string | undefined => {
  const value = schema[key];
  return typeof value === 'string' ? value : undefined;
};

const count = (schema: SchemaKeywords, key: string): number | undefined => {
  const value = schema[key];
  return typeof value === 'number' ? value : undefined;
};

const ruleMessage = (rule: NamedRule | undefined, what: string, value: unknown): string => {
  if (rule === undefined) return `${describeValue(value)} is not a valid ${what}: fix the value`;
  const mistake = typeof value === 'string' ? rule.mistake?.(value) : undefined;
  if (mistake !== undefined) return `${describeValue(value)} ${mistake}`;
  const fix = typeof value === 'string' ? rule.suggestion?.(value) : undefined;
  return `${describeValue(value)} is not ${rule.expected}: ${fix ?? `write it like ${rule.example}`}`;
};

/** A string that does not match the schema's pattern. */
export const patternMessage = (schema: SchemaKeywords, value: unknown): string => {
  const pattern = text(schema, 'pattern') ?? '';
  return ruleMessage(PATTERN_RULES[pattern], 'value', value);
};

/** A string that is not of the schema's format. */
export const formatMessage = (schema: SchemaKeywords, value: unknown): string => {
  const format = text(schema, 'format') ?? 'value';
  return ruleMessage(FORMAT_RULES[format], format, value);
};

/** A valid value of a string schema, for examples: its pattern's or format's example. */
const exampleOf = (schema: SchemaKeywords): string | undefined => {
  const pattern = text(schema, 'pattern');
  const format = text(schema, 'format');
  return (pattern !== undefined ? PATTERN_RULES[pattern]?.example : undefined) ?? (format !== undefined ? FORMAT_RULES[format]?.example : undefined);
};

const quoted = (example: string): string => (example.startsWith('"') ? example : JSON.stringify(example));

/** What a type mismatch can expect. */
export type ExpectedType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'int-or-string';

const stringTypeMessage = (schema: SchemaKeywords, value: unknown): string => {
  const given = describeValue(value);
  if (typeof value === 'number' || typeof value === 'boolean') {
    const example = exampleOf(schema) ?? JSON.stringify(String(value));
    return `must be text, but it is the ${typeof value} ${given}: write it as text, in quotes, for example ${quoted(example)}`;
  }
  return `must be text, but it is ${given}: write it as text${exampleOf(schema) === undefined ? '' : `, for example ${quoted(exampleOf(schema) ?? '')}`}`;
};

const numberExample = (schema: SchemaKeywords, value: unknown): string => {
  const parsed = typeof value === 'string' && /^\s*-?[0-9]+\s*$/.test(value) ? value.trim() : undefined;
  return parsed ?? String(count(schema, 'default') ?? count(schema, 'minimum') ?? 1);
};

const givenAs = (value: unknown): string => `${describeValue(value)}${typeof value === 'string' ? ' (text)' : ''}`;

/** A value of the wrong JSON type. */
export const typeMessage = (expected: ExpectedType, schema: SchemaKeywords, value: unknown): string => {
  switch (expected) {
    case 'string':
      return stringTypeMessage(schema, value);
    case 'integer':
      return `must be a whole number, but it is ${givenAs(value)}: write a number without quotes or decimals, for example ${numberExample(schema, value)}`;
    case 'number':
      return `must be a number, but it is ${givenAs(value)}: write a number without quotes, for example ${numberExample(schema, value)}`;
    case 'boolean':
      return `must be true or false, but it is ${givenAs(value)}: write true or false without quotes`;
    case 'object':
      return `must be an object, but it is ${describeValue(value)}: write it as a map of fields (key: value)`;
    case 'array':
      return `must be a list, but it is ${describeValue(value)}: write it as a list of entries (- item)`;
    case 'int-or-string':
      return `must be a whole number or a quantity such as 100m, 2 or 1Gi, but it is ${describeValue(value)}: write it like 1Gi`;
  }
};

/** A value outside a closed set. */
export const enumMessage = (allowed: readonly unknown[], value: unknown): string =>
  `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, but it is ${describeValue(value)}: use one of these values`;

const rangeText = (schema: SchemaKeywords): string => {
  const [min, max] = [count(schema, 'minimum'), count(schema, 'maximum')];
  if (min !== undefined && max !== undefined) return `a value from ${min} to ${max}`;
  return min !== undefined ? `a value of at least ${min}` : `a value of at most ${max ?? '?'}`;
};

/** A number below the minimum. */
export const minimumMessage = (schema: SchemaKeywords, value: unknown): string => `is ${describeValue(value)}, which is too small: use ${rangeText(schema)}`;

/** A number above the maximum. */
export const maximumMessage = (schema: SchemaKeywords, value: unknown): string => `is ${describeValue(value)}, which is too large: use ${rangeText(schema)}`;

/** A string shorter than allowed. */
export const minLengthMessage = (schema: SchemaKeywords): string => {
  const min = count(schema, 'minLength') ?? 1;
  return min <= 1 ? 'must not be empty: set a value or remove the field' : `must be at least ${min} characters long: use a longer value`;
};

/** A string longer than allowed (`length` as the checker counts it). */
export const maxLengthMessage = (schema: SchemaKeywords, length: number): string =>
  `is too long (${length} characters, at most ${count(schema, 'maxLength') ?? '?'} allowed): shorten it`;

/** A list with too many entries. */
export const maxItemsMessage = (schema: SchemaKeywords, value: unknown): string =>
  `has ${Array.isArray(value) ? value.length : '?'} entries, but at most ${count(schema, 'maxItems') ?? '?'} are allowed: remove some`;

/** A list with too few entries. */
export const minItemsMessage = (schema: SchemaKeywords, value: unknown): string =>
  `has ${Array.isArray(value) ? value.length : '?'} entries, but at least ${count(schema, 'minItems') ?? '?'} are needed: add some`;
