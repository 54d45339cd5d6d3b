/**
 * The hook server: builds the Fastify app (without listening) with the six Metacontroller hook routes
 * and the health endpoints.
 */
import Fastify, { type FastifyInstance, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { CustomizeRequest, SyncRequest, type SyncResponse, type CustomizeResponse } from './api/hook.js';
import { API_GROUP } from './api/common.js';
import { registerFormats } from './api/formats.js';
import type { Config } from './config.js';
import { customizeIronic, finalizeIronic, syncIronic, type HookContext } from './hooks/ironic.js';
import { bcryptSecrets, type Secrets } from './hooks/materialize.js';
import { customizeIronicDatabase, finalizeIronicDatabase, syncIronicDatabase } from './hooks/ironic-database.js';

/** Things a test may replace. */
export type ServerDeps = {
  readonly secrets?: Secrets;
  readonly now?: () => string;
  readonly logger?: FastifyBaseLogger | boolean | Record<string, unknown>;
};

/** RFC 3339 with whole seconds, as Kubernetes writes times. */
export const rfc3339Now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

type Parent = 'Ironic' | 'IronicDatabase';

type Hooks = {
  readonly customize: (request: CustomizeRequest) => CustomizeResponse;
  readonly sync: (request: SyncRequest, ctx: HookContext) => Promise<SyncResponse> | SyncResponse;
  readonly finalize: (request: SyncRequest, ctx: HookContext) => Promise<SyncResponse> | SyncResponse;
};

class HookInputError extends Error {
  readonly statusCode = 400;
}

const checkParent = (kind: Parent, parent: { apiVersion: string; kind: string }): void => {
  if (parent.kind !== kind || !parent.apiVersion.startsWith(`${API_GROUP}/`)) {
    throw new HookInputError(`this hook serves ${kind} (${API_GROUP}); the parent is ${parent.kind} (${parent.apiVersion})`);
  }
};

const parentName = (body: unknown): string => {
  const metadata = (body as { parent?: { metadata?: { namespace?: unknown; name?: unknown } } } | undefined)?.parent?.metadata;
  return `${String(metadata?.namespace ?? '')}/${String(metadata?.name ?? '')}`;
};

const registerHooks = (app: FastifyInstance, path: string, kind: Parent, hooks: Hooks, ctx: HookContext): void => {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(`/${path}/customize`, { schema: { body: CustomizeRequest } }, async (request) => {
    checkParent(kind, request.body.parent);
    return hooks.customize(request.body as CustomizeRequest);
  });
  typed.post(`/${path}/sync`, { schema: { body: SyncRequest } }, async (request) => {
    const body = request.body as SyncRequest;
    checkParent(kind, body.parent);
    return body.finalizing === true ? hooks.finalize(body, ctx) : hooks.sync(body, ctx);
  });
  typed.post(`/${path}/finalize`, { schema: { body: SyncRequest } }, async (request) => {
    const body = request.body as SyncRequest;
    checkParent(kind, body.parent);
    return hooks.finalize(body, ctx);
  });
};

const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
  const status = error.statusCode ?? 500;
  if (status < 500) {
    const message = error.validation !== undefined ? `invalid hook request: ${error.message}` : error.message;
    void reply.code(status).send({ error: 'Bad Request', message });
    return;
  }
  request.log.error({ err: error, parent: parentName(request.body), url: request.url }, 'hook failed');
  void reply.code(500).send({ error: 'Internal Server Error', message: 'the hook failed; see the hook server logs' });
};

/** Builds the app. Nothing listens until the caller calls `listen`. */
export const buildServer = (config: Config, deps: ServerDeps = {}): FastifyInstance => {
  registerFormats();
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
  });
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.setErrorHandler(errorHandler);
  const ctx: HookContext = { config: config.render, secrets: deps.secrets ?? bcryptSecrets(), now: deps.now ?? rfc3339Now };
  registerHooks(app, 'ironic', 'Ironic', { customize: customizeIronic, sync: syncIronic, finalize: finalizeIronic }, ctx);
  registerHooks(app, 'ironicdatabase', 'IronicDatabase', { customize: customizeIronicDatabase, sync: syncIronicDatabase, finalize: finalizeIronicDatabase }, ctx);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ready' }));
  return app;
};
