/**
 * The Metacontroller hook routes, three per parent kind (src/kinds): POST /<hookPath>/{customize,sync,finalize}.
 * Bodies are checked against the TypeBox envelope (no coercion), the parent's kind is checked, and the
 * response is checked before it is sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CustomizeRequest, SyncRequest, type SyncResponse } from '../api/shared/hook.js';
import { API_GROUP, READY_CONDITION } from '../api/shared/common.js';
import type { HookContext } from '../hooks/context.js';
import { PARENT_KINDS, type ParentKind } from '../kinds/index.js';
import type { HookCalls } from './calls.js';
import { MAX_DEPTH, tooDeep } from './depth.js';
import { echo } from './echo.js';
import { jsonText } from '../api/shared/frozen-json.js';
import { HookInputError } from './errors.js';
import type { HookLabels } from './metrics.js';
import { checkCustomizeResponse, checkSyncResponse } from './response.js';

/** A parent kind's descriptor with its metric label as the metrics type it. */
type Parent = ParentKind<HookLabels['kind']>;

const checkParent = (kind: string, parent: { apiVersion: string; kind: string; metadata: { namespace?: string } }): void => {
  if (parent.kind !== kind || !parent.apiVersion.startsWith(`${API_GROUP}/`)) {
    throw new HookInputError(`this hook serves ${kind} (${API_GROUP}); the parent is ${echo(parent.kind)} (${echo(parent.apiVersion)})`);
  }
  // Every parent kind is namespaced (src/crd/crd.ts): without a namespace, related rules would select across the cluster.
  if (parent.metadata.namespace === undefined || parent.metadata.namespace === '') {
    throw new HookInputError(`the parent ${kind} has no metadata.namespace; ${kind} objects are namespaced`);
  }
};

/**
 * A preValidation hook: a body nested deeper than MAX_DEPTH is a 400 that names the object, before the
 * validation and the hook (which recurse) see it. No Kubernetes object comes near that depth, so only a
 * malformed object is refused; Metacontroller retries and leaves the children alone meanwhile.
 */
const boundDepth = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
  const where = tooDeep(request.body);
  done(
    where === undefined ? undefined : new HookInputError(`${where} is nested deeper than ${MAX_DEPTH} levels of objects and arrays; no Kubernetes object is`),
  );
};

/** The reason of the Ready condition of the returned status, for the log line. */
const outcomeOf = (response: SyncResponse): string => {
  const conditions = response.status['conditions'];
  const ready = Array.isArray(conditions) ? (conditions as unknown[]).find((c) => (c as { type?: unknown } | null)?.type === READY_CONDITION) : undefined;
  const reason = (ready as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : 'ok';
};

const registerParent = (app: FastifyInstance, parent: Parent, ctx: HookContext, calls: HookCalls): void => {
  const { hookPath: path, kind, metricLabel, hooks } = parent;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const route = (hook: HookLabels['hook']): string => {
    const url = `/${path}/${hook}`;
    calls.add({ hook, kind: metricLabel, name: `${path}/${hook}`, url });
    return url;
  };
  const respond = async (request: { body: unknown }): Promise<SyncResponse> => {
    const body = request.body as SyncRequest;
    checkParent(kind, body.parent);
    // `finalized` may only be answered to a finalizing call: Metacontroller removes its finalizer on any
    // response that says finalized, so a finalize route called without `finalizing` acts as sync.
    const response = await (body.finalizing === true ? hooks.finalize(body, ctx) : hooks.sync(body, ctx));
    checkSyncResponse(response);
    return response;
  };
  typed.post(route('customize'), { schema: { body: CustomizeRequest }, preValidation: boundDepth }, (request) => {
    const body = request.body as CustomizeRequest;
    checkParent(kind, body.parent);
    const response = hooks.customize(body);
    checkCustomizeResponse(response);
    calls.answered(request, 'ok');
    return Promise.resolve(response);
  });
  for (const hook of ['sync', 'finalize'] as const) {
    typed.post(route(hook), { schema: { body: SyncRequest }, preValidation: boundDepth }, async (request, reply) => {
      const response = await respond(request);
      calls.answered(request, outcomeOf(response));
      // The same text as JSON.stringify, with the kept children's text reused (src/api/shared/frozen-json.ts).
      // A reply with its own serializer gets no content type from Fastify: it is set here as for any JSON answer.
      reply.type('application/json; charset=utf-8').serializer((payload: unknown) => jsonText(payload) ?? 'null');
      return response;
    });
  }
};

/** Registers the three hook routes of every parent kind. */
export const registerHookRoutes = (app: FastifyInstance, ctx: HookContext, calls: HookCalls): void => {
  for (const parent of PARENT_KINDS) registerParent(app, parent, ctx, calls);
};
