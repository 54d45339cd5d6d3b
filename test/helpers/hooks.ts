/**
 * Shared test support: a server with deterministic secrets and clock, parents, and sync requests.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { loadConfig, type Config } from '../../src/config.js';
import { CustomizeRequest, KubeObject, ObjectMap, SyncRequest } from '../../src/api/shared/hook.js';
import { buildServer } from '../../src/server.js';
import type { Secrets } from '../../src/hooks/materialize.js';
import type { HookContext } from '../../src/hooks/ironic.js';
import { FIXED_RPC_CA } from '../fixtures/rpc-ca.js';
import { checked, bodyOf } from './json.js';
import { objsAt } from '../support/paths.js';

export const FIXED_NOW = '2026-01-01T00:00:00Z';

/**
 * Deterministic stand-ins for the random password and bcrypt, so golden files are stable. The
 * production implementations are tested on their own (materialize.test.ts).
 */
export const fakeSecrets = (): Secrets & { readonly hashes: () => number; readonly passwords: () => number; readonly cas: () => number } => {
  let hashes = 0;
  let passwords = 0;
  let cas = 0;
  const fake = (password: string): string => `$2y$10$${createHash('sha256').update(password).digest('base64').slice(0, 53)}`;
  return {
    password: () => {
      passwords += 1;
      return `generated-password-${String(passwords).padStart(13, '0')}`;
    },
    hash: async (password) => {
      hashes += 1;
      return fake(password);
    },
    verify: async (password, hash) => hash === fake(password),
    rpcCA: async () => {
      cas += 1;
      return FIXED_RPC_CA;
    },
    hashes: () => hashes,
    passwords: () => passwords,
    cas: () => cas,
  };
};

/** The hook server's configuration, with extra environment variables (e.g. MARIADB_OPERATOR). */
export const testConfig = (env: Readonly<Record<string, string>> = {}): Config => loadConfig({ ...env, LOG_LEVEL: 'silent' });

export const testContext = (secrets: Secrets = fakeSecrets(), now = FIXED_NOW): HookContext => ({
  config: testConfig().render,
  secrets,
  now: () => now,
});

export const testServer = (secrets: Secrets = fakeSecrets(), now = FIXED_NOW, env: Readonly<Record<string, string>> = {}): FastifyInstance =>
  buildServer(testConfig(env), { secrets, now: () => now, logger: false });

export type Obj = Record<string, unknown>;

/** An Ironic parent; `spec` is whatever the test gives (the hooks must answer any). */
export const ironic = (spec: unknown, extra: Obj = {}): Obj => ({
  apiVersion: 'ironic.metal3.io/v1alpha1',
  kind: 'Ironic',
  metadata: { name: 'ironic', namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-000000000001', generation: 1 },
  spec,
  ...extra,
});

/** A sync or finalize request, checked against the wire schema the server checks it with. */
export const syncRequest = (value: unknown): SyncRequest => checked(SyncRequest, value, 'sync request');

/** A sync request as Metacontroller (and the in-memory cluster) sends it: children, related and finalizing always set. */
export const SentRequest = Type.Object({
  parent: KubeObject,
  children: Type.Record(Type.String(), Type.Record(Type.String(), KubeObject)),
  related: Type.Record(Type.String(), Type.Record(Type.String(), KubeObject)),
  finalizing: Type.Boolean(),
});
export type SentRequest = Static<typeof SentRequest>;

/** A request the in-memory cluster sent, checked. */
export const sentRequest = (value: unknown): SentRequest => checked(SentRequest, value, 'request sent');

/** A customize request, checked against the wire schema the server checks it with. */
export const customizeRequest = (value: unknown): CustomizeRequest => checked(CustomizeRequest, value, 'customize request');

/** A `children` or `related` map, checked against the wire schema. */
export const objectMap = (value: unknown): ObjectMap => checked(ObjectMap, value, 'object map');

/** The body of a sync or finalize response as a test reads it: the wire schema, with children as objects. */
export const HookResponse = Type.Object(
  {
    status: Type.Record(Type.String(), Type.Unknown()),
    children: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    finalized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type HookResponse = Static<typeof HookResponse>;

/** The checked body of a sync or finalize response. */
export const hookResponse = (response: { readonly json: () => unknown }): HookResponse => bodyOf(response, HookResponse, 'hook response');

/** The body of a sync or finalize response whose status has conditions (as every parent hook's does). */
export const SyncBody = Type.Object(
  {
    status: Type.Intersect([Type.Record(Type.String(), Type.Unknown()), Type.Object({ conditions: Type.Array(Type.Record(Type.String(), Type.Unknown())) })]),
    children: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    finalized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;

/** The checked body of a sync or finalize response, with its status conditions. */
export const syncBody = (response: { readonly json: () => unknown }): SyncBody => bodyOf(response, SyncBody, 'sync response');

/** The conditions of a status (of a response or an object), as objects; throws when there is no list. */
export const conditionsOf = (status: unknown): Obj[] => objsAt(status, 'conditions');
