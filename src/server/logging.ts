/**
 * Logging: pino JSON lines, exactly one per hook call (Fastify's own per-request lines are off).
 * Request bodies carry Secrets (user credentials, TLS keys, the generated password), so they are never
 * logged, and the redaction below blanks every path that could hold secret data should one be logged
 * by mistake.
 */
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Paths blanked in every line. `parent.*` blanks the fields of a parent object, not the `parent`
 * string ("namespace/name") of a hook call line.
 */
export const REDACTED_PATHS = [
  'body',
  'payload',
  'req.body',
  'request.body',
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'parent.*',
  'children',
  'related',
  'object',
  'data',
  'stringData',
  '*.data',
  '*.stringData',
  '*.*.data',
  '*.*.stringData',
  'password',
  '*.password',
  'htpasswd',
  '*.htpasswd',
  'token',
  '*.token',
];

export type LoggerDeps = {
  readonly logger?: FastifyBaseLogger | boolean | Record<string, unknown>;
  readonly logStream?: DestinationStream;
};

/** Fastify's logger options: none, a caller's logger, or our pino (options merged, redaction kept). */
export type FastifyLogging = { readonly logger: false } | { readonly loggerInstance: FastifyBaseLogger };

const isLogger = (value: unknown): value is FastifyBaseLogger =>
  typeof value === 'object' && value !== null && typeof (value as { child?: unknown }).child === 'function';

const CENSOR = '[Redacted]';

/** A rule of REDACTED_PATHS, read once: the keys of its path, `*` matching any key. */
const RULES: readonly (readonly string[])[] = REDACTED_PATHS.map((path) => path.split('.'));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * A copy of `value` with what the rules (the rest of each path, under this level) name blanked, or `value` itself
 * when they name nothing in it: objects are copied only along a path that blanks something.
 */
const redactAt = (value: unknown, rules: readonly (readonly string[])[], top = false): unknown => {
  if (!isObject(value) || rules.length === 0) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = value[key];
    // The error serializer writes `err` and then applies the rules to what it wrote (message and stack included).
    if (top && key === 'err' && field instanceof Error) continue;
    const here = rules.filter((rule) => rule[0] === '*' || rule[0] === key);
    if (here.length === 0) continue;
    const blanked = here.some((rule) => rule.length === 1) && field !== undefined;
    const next = blanked
      ? CENSOR
      : redactAt(
          field,
          here.map((rule) => rule.slice(1)).filter((rule) => rule.length > 0),
        );
    if (next === field) continue;
    copy ??= Array.isArray(value) ? Object.assign([], value) : { ...value };
    copy[key] = next;
  }
  return copy ?? value;
};

/** A log line's fields with REDACTED_PATHS blanked; the caller's objects are never changed. */
export const redactLogFields = (fields: Record<string, unknown>): Record<string, unknown> => redactAt(fields, RULES, true) as Record<string, unknown>;

/** The rules under one key of a line (`err.…` and `*.…`), for a field that a serializer writes. */
const rulesUnder = (key: string): readonly (readonly string[])[] =>
  RULES.filter((rule) => rule.length > 1 && (rule[0] === '*' || rule[0] === key)).map((rule) => rule.slice(1));

const ERR_RULES = rulesUnder('err');

/** pino's error serializer, then the rules that reach into `err` (an error's own fields, such as `data`). */
const redactedError = (error: Error): unknown => redactAt(pino.stdSerializers.err(error), ERR_RULES);

export const createLogger = (level: string, options: Record<string, unknown>, stream: DestinationStream | undefined): FastifyBaseLogger => {
  const given = options as { readonly formatters?: Record<string, unknown>; readonly serializers?: Record<string, unknown> };
  // Redaction by hand rather than pino's `redact`: its library costs every line about 7 µs for the `*.` paths,
  // a third of a small sync's own work. formatters.log sees the fields before the serializers, so the error
  // serializer applies the rules that reach into `err` itself.
  const settings: LoggerOptions = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    ...options,
    formatters: { level: (label: string) => ({ level: label }), ...given.formatters, log: redactLogFields },
    serializers: { ...given.serializers, err: redactedError },
  };
  return stream === undefined ? pino(settings) : pino(settings, stream);
};

export const fastifyLogging = (level: string, deps: LoggerDeps): FastifyLogging => {
  const logger = deps.logger ?? true;
  if (logger === false) return { logger: false };
  if (isLogger(logger)) return { loggerInstance: logger };
  return { loggerInstance: createLogger(level, logger === true ? {} : logger, deps.logStream) };
};

/** The one line of a hook call. */
export type HookCallLine = {
  readonly hook: string;
  readonly parent: string | undefined;
  readonly generation: number | undefined;
  readonly durationMs: number;
  readonly outcome: string;
  readonly statusCode: number;
};

/** info for an answered call, warn for a rejected one (with why), error for a failure (with the error). */
export const logHookCall = (log: FastifyBaseLogger, line: HookCallLine, problem: { readonly message?: string; readonly error?: Error }): void => {
  if (line.statusCode >= 500) log.error({ ...line, err: problem.error }, 'hook call failed');
  else if (line.statusCode >= 400) log.warn({ ...line, reason: problem.message }, 'hook call rejected');
  else log.info(line, 'hook call');
};
