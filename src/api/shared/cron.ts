/**
 * The schedules a Kubernetes CronJob accepts (robfig/cron's standard parser): five fields (minute, hour,
 * day of month, month, day of week) of `*`, `?`, numbers, ranges, steps and lists, month and day names,
 * or one of the `@` descriptors. What this refuses, the API server would refuse on the CronJob.
 */
import { CronExpressionParser } from 'cron-parser';

type Field = { readonly name: string; readonly min: number; readonly max: number; readonly names?: readonly string[] };

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** A number or a name of the field, as its value; undefined when it is neither or out of range. */
const valueOf = (text: string, field: Field): number | undefined => {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return field.min + named;
  if (!/^[0-9]{1,2}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= field.min && value <= field.max ? value : undefined;
};

/** Whether one element of a list (`*`, `a`, `a-b`, each with an optional `/step`) is valid for the field. */
const elementValid = (element: string, field: Field): boolean => {
  const [range = '', step, ...rest] = element.split('/');
  if (rest.length > 0 || (step !== undefined && !/^[1-9][0-9]{0,1}$/.test(step))) return false;
  if (range === '*' || range === '?') return true;
  const [from = '', to, ...more] = range.split('-');
  if (more.length > 0) return false;
  const start = valueOf(from, field);
  if (start === undefined) return false;
  if (to === undefined) return true;
  const end = valueOf(to, field);
  return end !== undefined && end >= start;
};

/** Why a schedule is not one a CronJob accepts, or undefined when it is. */
export const cronProblem = (schedule: string): string | undefined => {
  const trimmed = schedule.trim();
  if (trimmed.startsWith('@')) {
    return DESCRIPTORS.includes(trimmed) ? undefined : `unknown descriptor ${trimmed}: use one of ${DESCRIPTORS.join(', ')}, or five fields`;
  }
  if (/^(TZ|CRON_TZ)=/.test(trimmed)) return 'a time zone cannot be given in the schedule: backups are scheduled in UTC';
  const parts = trimmed.split(/\s+/);
  if (parts.length !== FIELDS.length)
    return `a schedule has five fields (minute hour day-of-month month day-of-week), like "30 2 * * *" for 02:30 UTC every day, but this one has ${parts.length}`;
  for (const [index, field] of FIELDS.entries()) {
    const part = parts[index] ?? '';
    if (!part.split(',').every((element) => elementValid(element, field)))
      return `the ${field.name} field "${part}" is not valid: use *, numbers from ${field.min} to ${field.max}${field.names !== undefined ? ' or names' : ''}, ranges a-b, lists a,b and steps */n`;
  }
  return undefined;
};

/** The five fields each descriptor stands for (robfig/cron's own meaning of them). */
const FIVE_FIELDS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * A valid schedule written as five fields: a descriptor as the fields it stands for, anything else trimmed.
 * mariadb-operator parses a Backup's schedule without descriptors (robfig/cron with the five fields only;
 * api/v1alpha1/base_types.go, CronParser), and its webhook refuses `@daily`, where a CronJob accepts it.
 */
export const fiveFieldSchedule = (schedule: string): string => {
  const trimmed = schedule.trim();
  return FIVE_FIELDS[trimmed] ?? trimmed;
};

/** `@midnight`, which the CronJob controller knows and cron-parser does not, is `@daily`. */
const SAME_AS: Readonly<Record<string, string>> = { '@midnight': '@daily' };

/**
 * The first time a CronJob schedule (UTC) fires strictly after `after` (an RFC 3339 time), as RFC 3339 without
 * milliseconds; undefined when the schedule or the time cannot be read. Pure: the time is given, never the clock.
 * `?` stands for `*`, as in the CronJob controller.
 */
export const nextRun = (schedule: string, after: string): string | undefined => {
  const from = Date.parse(after);
  if (Number.isNaN(from) || cronProblem(schedule) !== undefined) return undefined;
  const trimmed = schedule.trim();
  const expression = SAME_AS[trimmed] ?? trimmed.replaceAll('?', '*');
  try {
    const next = CronExpressionParser.parse(expression, { currentDate: new Date(from), tz: 'UTC' })
      .next()
      .toISOString();
    return next === null ? undefined : next.replace(/\.000Z$/, 'Z');
  } catch {
    return undefined;
  }
};
