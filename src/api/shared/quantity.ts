/**
 * A small, exact parser for Kubernetes resource quantities (`500m`, `1.5Gi`, `2`, `1e3`), enough to
 * compare two of them. Values are kept as exact fractions of BigInts, so `1Gi` and `1073741824` are equal.
 */
import { boundedMemo, type Memo } from './memo.js';

/** An exact rational value: numerator / denominator, with denominator > 0. */
export type Quantity = { readonly numerator: bigint; readonly denominator: bigint };

/** Longer texts are not parsed (they are never sensible quantities, and BigInt work must stay small). */
const MAX_QUANTITY_LENGTH = 64;
/** Decimal exponents (`1e3`) outside ±MAX_EXPONENT are not parsed. */
const MAX_EXPONENT = 64;

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

const BINARY_POWERS: Readonly<Record<string, bigint>> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const scaleByPowerOfTen = (value: Quantity, exponent: number): Quantity =>
  exponent >= 0
    ? { numerator: value.numerator * 10n ** BigInt(exponent), denominator: value.denominator }
    : { numerator: value.numerator, denominator: value.denominator * 10n ** BigInt(-exponent) };

const suffixExponent = (suffix: string): number | undefined => {
  const decimal = DECIMAL_EXPONENTS[suffix];
  if (decimal !== undefined) return decimal;
  const exponent = /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : undefined;
  return exponent !== undefined && Math.abs(exponent) <= MAX_EXPONENT ? exponent : undefined;
};

const applySuffix = (mantissa: Quantity, suffix: string): Quantity | undefined => {
  if (suffix === '') return mantissa;
  const binary = BINARY_POWERS[suffix];
  if (binary !== undefined) return { numerator: mantissa.numerator << binary, denominator: mantissa.denominator };
  const exponent = suffixExponent(suffix);
  return exponent === undefined ? undefined : scaleByPowerOfTen(mantissa, exponent);
};

const parseMantissa = (sign: string, digits: string): Quantity => {
  const [whole = '', fraction = ''] = digits.split('.');
  const numerator = BigInt(`${whole}${fraction}` || '0');
  return { numerator: sign === '-' ? -numerator : numerator, denominator: 10n ** BigInt(fraction.length) };
};

const parseQuantityText = (text: string): Quantity | undefined => {
  if (text.length === 0 || text.length > MAX_QUANTITY_LENGTH) return undefined;
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  return applySuffix(parseMantissa(match[1] ?? '', match[2] ?? '0'), match[3] ?? '');
};

/** Quantities parsed from text (a sync checks and compares the same few dozen each time). Bounded; never changed once parsed. */
export const parsedTexts: Memo<Quantity | undefined> = boundedMemo(1024);

/**
 * Parses a quantity given as a string or as an integer (the IntOrString form). Undefined for anything
 * else, including fractional exponents and absurdly long or large inputs. Never throws.
 */
export const parseQuantity = (value: string | number): Quantity | undefined => {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? { numerator: BigInt(value), denominator: 1n } : undefined;
  }
  return value.length <= MAX_QUANTITY_LENGTH
    ? parsedTexts.get(value, () => {
        const parsed = parseQuantityText(value);
        return parsed && Object.freeze(parsed);
      })
    : undefined;
};

/** Orders two quantities: negative when a < b, zero when equal, positive when a > b. */
export const compareQuantities = (a: Quantity, b: Quantity): number => {
  const difference = a.numerator * b.denominator - b.numerator * a.denominator;
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
};

/** True when the quantity is greater than zero. */
export const isPositive = (quantity: Quantity): boolean => quantity.numerator > 0n;

/** How the API server prints a quantity: by the family of the suffix it was written with. */
type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
const NANO = 10n ** 9n;

const formatOf = (value: string | number): QuantityFormat => {
  if (typeof value === 'number') return 'DecimalSI';
  const suffix = QUANTITY.exec(value)?.[3] ?? '';
  if (suffix in BINARY_POWERS) return 'BinarySI';
  return /^[eE][+-]?[0-9]+$/.test(suffix) && suffix !== 'E' ? 'DecimalExponent' : 'DecimalSI';
};

/** Rounds away from zero to a whole number of nano units, as the API server does when it parses. */
const roundToNano = (q: Quantity): bigint => {
  const negative = q.numerator < 0n;
  const magnitude = negative ? -q.numerator : q.numerator;
  const scaled = magnitude * NANO;
  const nanos = scaled / q.denominator + (scaled % q.denominator === 0n ? 0n : 1n);
  return negative ? -nanos : nanos;
};

/** `amount × 10^exponent` with the exponent a multiple of 3 and no trailing zeros beyond that. */
const decimalParts = (nanos: bigint): { digits: bigint; exponent: number } => {
  let digits = nanos;
  let exponent = -9;
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent += 1;
  }
  while (exponent % 3 !== 0) {
    digits *= 10n;
    exponent -= 1;
  }
  return { digits, exponent };
};

/** `amount × 1024^exponent` of a whole number of bytes, with the largest exponent that divides it (Ei at most). */
const binaryParts = (bytes: bigint): { digits: bigint; exponent: number } => {
  let digits = bytes;
  let exponent = 0;
  while (exponent < BINARY_SUFFIXES.length - 1 && digits % 1024n === 0n) {
    digits /= 1024n;
    exponent += 1;
  }
  return { digits, exponent };
};

/** The canonical text of a quantity, worked out (see canonicalQuantity). */
const canonicalOf = (value: string | number): string | undefined => {
  const parsed = parseQuantity(value);
  if (parsed === undefined) return undefined;
  const nanos = roundToNano(parsed);
  if (nanos === 0n) return '0';
  let format = formatOf(value);
  if (format === 'BinarySI') {
    const small = nanos > -1024n * NANO && nanos < 1024n * NANO;
    // Below 1Ki, or with a fraction of a byte, binary suffixes would round: the decimal form is exact.
    if (small || nanos % NANO !== 0n) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    const { digits, exponent } = binaryParts(nanos / NANO);
    return `${digits}${BINARY_SUFFIXES[exponent] ?? ''}`;
  }
  const { digits, exponent } = decimalParts(nanos);
  if (format === 'DecimalExponent') return exponent === 0 ? `${digits}` : `${digits}e${exponent}`;
  return `${digits}${DECIMAL_SUFFIXES[exponent] ?? ''}`;
};

/**
 * Canonical texts already worked out: a sync canonicalizes the same few dozen quantities (the default
 * requests of every container) each time. Bounded; texts too long to be quantities are not kept.
 */
export const canonicalTexts: Memo<string | undefined> = boundedMemo(1024);

/**
 * The canonical text the API server stores for a quantity (apimachinery's CanonicalizeBytes): `1024Mi`
 * becomes `1Gi`, `0.5` becomes `500m`, `1` (a number) becomes `"1"`, `1.5Gi` becomes `1536Mi`. Desired
 * objects carry this form so that a comparison with the stored object finds no difference. Undefined when
 * the value is not a quantity.
 */
export const canonicalQuantity = (value: string | number): string | undefined =>
  typeof value === 'string' && value.length <= MAX_QUANTITY_LENGTH ? canonicalTexts.get(value, () => canonicalOf(value)) : canonicalOf(value);
