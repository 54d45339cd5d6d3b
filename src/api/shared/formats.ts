/**
 * String formats used by the API schemas, registered in TypeBox's FormatRegistry. TypeBox rejects every
 * value of a format it does not know, so registerFormats() must run before any schema check; validation
 * calls it itself.
 */
import { FormatRegistry } from '@sinclair/typebox';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** An absolute URL: it parses with the WHATWG URL parser, which always yields a scheme. */
export const isUri = (value: string): boolean => {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
};

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** An RFC 3339 timestamp such as 2024-05-01T12:00:00Z, with real calendar dates. */
export const isDateTime = (value: string): boolean => {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (year === undefined || month === undefined || day === undefined) return false;
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    (hour ?? 99) <= 23 &&
    (minute ?? 99) <= 59 &&
    (second ?? 99) <= 60 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
};

/** Registers the `uri` and `date-time` formats. Safe to call any number of times. */
export const registerFormats = (): void => {
  if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', isUri);
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);
};
