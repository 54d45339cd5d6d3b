/**
 * Observation of hook calls: the handlers and the error handler record what happened, and when the
 * response has been sent the call is counted, timed and logged in one line.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { echo } from './echo.js';
import type { Rejection } from './errors.js';
import { logHookCall } from './logging.js';
import type { HookLabels, HookMetrics } from './metrics.js';

/** A hook route: its labels and its name in logs, e.g. "ironic/sync". */
export type HookRoute = HookLabels & { readonly name: string; readonly url: string };

type CallRecord = { outcome?: string; rejection?: Rejection };

export type HookCalls = {
  readonly add: (route: HookRoute) => void;
  /** The handler answered; `outcome` is e.g. the Ready reason. */
  readonly answered: (request: FastifyRequest, outcome: string) => void;
  /** The error handler answered. */
  readonly rejected: (request: FastifyRequest, rejection: Rejection) => void;
  /** An onResponse hook. */
  readonly finished: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
};

/** The parent's identity, read from a body that may not have passed validation. */
const identify = (body: unknown): { parent: string | undefined; generation: number | undefined } => {
  const metadata = (body as { parent?: { metadata?: { namespace?: unknown; name?: unknown; generation?: unknown } } } | undefined)?.parent?.metadata;
  const name = typeof metadata?.name === 'string' ? echo(metadata.name) : undefined;
  const namespace = typeof metadata?.namespace === 'string' ? echo(metadata.namespace) : '';
  return {
    parent: name === undefined ? undefined : `${namespace}/${name}`,
    generation: typeof metadata?.generation === 'number' ? metadata.generation : undefined,
  };
};

const fallbackOutcome = (statusCode: number): string =>
  statusCode >= 500 ? 'error' : statusCode === 401 ? 'unauthorized' : statusCode >= 400 ? 'rejected' : 'ok';

export const hookCalls = (metrics: HookMetrics): HookCalls => {
  const routes = new Map<string, HookRoute>();
  const records = new WeakMap<FastifyRequest, CallRecord>();
  const routeOf = (request: FastifyRequest): HookRoute | undefined => routes.get(request.routeOptions.url ?? '');
  return {
    add: (route) => {
      routes.set(route.url, route);
    },
    answered: (request, outcome) => {
      records.set(request, { outcome });
    },
    rejected: (request, rejection) => {
      if (routeOf(request) !== undefined) records.set(request, { rejection });
      else if (rejection.statusCode >= 500) request.log.error({ err: rejection.error, url: request.url }, 'request failed');
    },
    finished: async (request, reply) => {
      const route = routeOf(request);
      if (route === undefined) return;
      const record = records.get(request) ?? {};
      const statusCode = reply.statusCode;
      metrics.observe({ hook: route.hook, kind: route.kind }, statusCode, reply.elapsedTime / 1000);
      const line = {
        hook: route.name,
        ...identify(request.body),
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        outcome: record.outcome ?? fallbackOutcome(statusCode),
        statusCode,
      };
      logHookCall(request.log, line, { ...(record.rejection && { message: record.rejection.message, error: record.rejection.error }) });
    },
  };
};
