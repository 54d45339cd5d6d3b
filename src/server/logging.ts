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

export const createLogger = (level: string, options: Record<string, unknown>, stream: DestinationStream | undefined): FastifyBaseLogger => {
  const settings: LoggerOptions = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    ...options,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
  };
  const logger = stream === undefined ? pino(settings) : pino(settings, stream);
  writePlainValuesDirectly(logger);
  return logger;
};

/** What pino writes a value of a line with: its redactor of a key, or a plain JSON writer. */
type Stringifier = (value: unknown, safe?: unknown) => string | undefined;

/** Values of each plain type that a redactor of paths into an object writes as JSON, and a blanking one does not. */
const PLAIN_PROBES: readonly unknown[] = ['probe', 1, true];

/** Whether a redactor writes plain values as JSON: false for a key blanked whole, whose redactor censors any value. */
const passesPlainValues = (redactor: Stringifier): boolean => PLAIN_PROBES.every((probe) => redactor(probe) === JSON.stringify(probe));

/**
 * pino runs a key's redactor on every value of a line under that key, and the redactor of the `*.` paths on
 * every value of every key (the message too): about 13 µs a line, most of a hook call's logging. A redactor of
 * paths into an object cannot change a string, a number or a boolean; those are written as the redactor would
 * write them, JSON, without running it. Objects still go through it, and the keys blanked whole (a redactor
 * that censors a plain value) keep theirs.
 * Set once on the root logger; its children (one per request) share it.
 */
const writePlainValuesDirectly = (logger: object): void => {
  const stringifiers = (logger as Record<symbol, Record<string | symbol, Stringifier | undefined> | undefined>)[pino.symbols.stringifiersSym];
  if (stringifiers === undefined) return;
  for (const key of [...Object.keys(stringifiers), pino.symbols.wildcardFirstSym]) {
    const redactor = stringifiers[key];
    // Asked, not worked out from the paths: pino's path syntax has brackets and quotes.
    if (redactor === undefined || !passesPlainValues(redactor)) continue;
    stringifiers[key] = (value, safe) =>
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : redactor(value, safe);
  }
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
