/**
 * The hook server: builds the Fastify app (without listening) with the six Metacontroller hook routes,
 * health, readiness and metrics, and the optional TLS and authentication. The parts live in src/server/.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Server } from 'node:https';
import type { DestinationStream } from 'pino';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { registerFormats } from './api/shared/formats.js';
import { DEFAULT_RELOAD_INTERVAL_MS, DEFAULT_REQUEST_TIMEOUT_MS, type Config } from './config.js';
import type { HookContext } from './hooks/ironic.js';
import { bcryptSecrets, type Secrets } from './hooks/materialize.js';
import { authenticator } from './server/auth.js';
import { clientErrorHandler } from './server/client-errors.js';
import { hookCalls } from './server/calls.js';
import { errorHandler, notFoundHandler } from './server/errors.js';
import { registerHookRoutes } from './server/hook-routes.js';
import { closeConnectionWhenDraining, isDraining } from './server/lifecycle.js';
import { fastifyLogging } from './server/logging.js';
import { hookMetrics, type HookMetrics } from './server/metrics.js';
import { readTls, watchTls, type TlsFiles } from './server/tls.js';

export { beginDrain, closeGracefully } from './server/lifecycle.js';

/** Things a test may replace. */
export type ServerDeps = {
  readonly secrets?: Secrets;
  readonly now?: () => string;
  /** false: no logs; a logger: used as is; true or pino options: our pino (with redaction). */
  readonly logger?: FastifyBaseLogger | boolean | Record<string, unknown>;
  /** Where our pino writes (stdout by default). */
  readonly logStream?: DestinationStream;
};

/** RFC 3339 with whole seconds, as Kubernetes writes times. */
export const rfc3339Now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const PUBLIC_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

const isPublic = (request: FastifyRequest): boolean => PUBLIC_ROUTES.has(request.routeOptions.url ?? '');

const registerProbes = (app: FastifyInstance, metrics: HookMetrics): void => {
  app.get('/healthz', () => Promise.resolve({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => (isDraining(app) ? reply.code(503).send({ status: 'shutting down' }) : Promise.resolve({ status: 'ready' })));
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).send(body);
  });
};

/**
 * Requires authentication (reading its file: a ConfigError when unusable, before any watch starts) and
 * reloads the auth and TLS files when they change.
 */
const registerFiles = (app: FastifyInstance<Server>, config: Config, tls: TlsFiles | undefined): void => {
  const interval = config.reloadIntervalMs ?? DEFAULT_RELOAD_INTERVAL_MS;
  if (config.auth !== undefined) {
    const auth = authenticator(config.auth, isPublic, interval, app.log);
    app.addHook('onRequest', auth.onRequest);
    app.addHook('onClose', (_instance, done) => {
      auth.close();
      done();
    });
  }
  if (config.tls !== undefined && tls !== undefined) {
    const watch = watchTls(app.server, config.tls, tls, interval, app.log);
    app.addHook('onClose', (_instance, done) => {
      watch.close();
      done();
    });
  }
};

/** How often, at most, the server looks for requests past their timeout (Node's default is 30 s). */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * A request (headers and body) that has not fully arrived after `timeoutMs` is answered 408 and its
 * connection closed: a slowly sent body no longer holds memory and a connection for ever.
 */
const boundRequestTime = (server: Server & { connectionsCheckingInterval?: number }, timeoutMs: number): void => {
  server.requestTimeout = timeoutMs;
  server.headersTimeout = Math.min(server.headersTimeout, timeoutMs);
  server.connectionsCheckingInterval = Math.min(TIMEOUT_CHECK_MS, Math.max(10, Math.floor(timeoutMs / 4)));
};

/** Builds the app. Nothing listens until the caller calls `listen`; throws ConfigError for unusable files. */
export const buildServer = (config: Config, deps: ServerDeps = {}): FastifyInstance => {
  registerFormats();
  const tls = config.tls && readTls(config.tls);
  const requestTimeoutMs = config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Typed as HTTPS for setSecureContext; with `https: null` Fastify creates a plain HTTP server.
  const app: FastifyInstance<Server> = Fastify<Server>({
    ...fastifyLogging(config.logLevel, deps),
    https: tls ?? null,
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
    // A map of the spec may have a "__proto__" key that the API server accepted: drop it rather than refuse
    // the parent forever (Fastify's default is a 400).
    onProtoPoisoning: 'remove',
    // Likewise a "constructor" key holding a "prototype" (e.g. in spec.overrides, which keeps unknown
    // fields): dropped, as the hooks never read such a key, rather than "Body is not valid JSON".
    onConstructorPoisoning: 'remove',
    logController: new LogController({ disableRequestLogging: true }),
    // A 408 names REQUEST_TIMEOUT_SECONDS and is logged.
    clientErrorHandler: clientErrorHandler(requestTimeoutMs, () => app.log),
  });
  boundRequestTime(app.server, requestTimeoutMs);
  // Only JSON: anything else (text/plain is accepted by default) is a 415.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  const metrics = hookMetrics();
  const calls = hookCalls(metrics);
  registerFiles(app, config, tls);
  app.addHook('onSend', closeConnectionWhenDraining(app));
  app.addHook('onResponse', calls.finished);
  app.setErrorHandler(errorHandler(config.bodyLimit, calls.rejected));
  app.setNotFoundHandler(notFoundHandler);
  const ctx: HookContext = { config: config.render, secrets: deps.secrets ?? bcryptSecrets(), now: deps.now ?? rfc3339Now };
  registerHookRoutes(app, ctx, calls);
  registerProbes(app, metrics);
  return app;
};
