/**
 * The CompositeController (metacontroller.k8s.io/v1alpha1) as Metacontroller v4.17.2 documents it
 * (types.go, docs/src/api/compositecontroller.md and hook.md; shared/reference/metacontroller.md §1.1-1.4).
 * Every object is closed (additionalProperties: false), so a misspelt field fails instead of being
 * pruned by the API server and silently ignored.
 */
import { Type, type Static, type TLiteral, type TObject, type TProperties, type TUnion } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const closed = <T extends TProperties>(properties: T): TObject<T> => Type.Object(properties, { additionalProperties: false });
const literals = <const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> => Type.Union(values.map((v) => Type.Literal(v)));

/** A Go `time.Duration` string, e.g. `10s`, `1m30s`, `500ms`. */
export const GO_DURATION = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

export const UPDATE_METHODS = ['OnDelete', 'Recreate', 'InPlace', 'RollingRecreate', 'RollingInPlace'] as const;

const LabelSelector = closed({
  matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
  matchExpressions: Type.Optional(
    Type.Array(closed({ key: Type.String(), operator: literals(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: Type.Optional(Type.Array(Type.String())) })),
  ),
});

const SecretRef = closed({ name: Type.String(), namespace: Type.String(), key: Type.Optional(Type.String()) });

/** TLS and authentication of a webhook or an endpoint config (not used by deploy/, but documented). */
const Security = {
  caBundle: Type.Optional(closed({ inline: Type.Optional(Type.String()), secretRef: Type.Optional(SecretRef), configMapRef: Type.Optional(SecretRef) })),
  clientTLS: Type.Optional(closed({ secretRef: SecretRef, certKey: Type.Optional(Type.String()), privateKeyKey: Type.Optional(Type.String()) })),
  authorization: Type.Optional(closed({ type: Type.Optional(Type.String()), secretRef: SecretRef })),
  basicAuth: Type.Optional(closed({ secretRef: SecretRef, usernameKey: Type.Optional(Type.String()), passwordKey: Type.Optional(Type.String()) })),
};

const WebhookCommon = {
  timeout: Type.Optional(Type.String({ pattern: GO_DURATION })),
  etag: Type.Optional(
    closed({ enabled: Type.Optional(Type.Boolean()), cacheTimeoutSeconds: Type.Optional(Type.Integer()), cacheCleanupSeconds: Type.Optional(Type.Integer()) }),
  ),
  responseUnMarshallMode: Type.Optional(literals(['loose', 'strict'])),
  ...Security,
};

/** `url`, or `service` + `path` (MC then calls `{protocol}://{name}.{namespace}:{port}{path}`). */
const Webhook = Type.Union([
  closed({ url: Type.String({ pattern: '^https?://' }), ...WebhookCommon }),
  closed({
    service: closed({
      name: Type.String(),
      namespace: Type.String(),
      port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
      protocol: Type.Optional(literals(['http', 'https'])),
    }),
    path: Type.String({ pattern: '^/' }),
    ...WebhookCommon,
  }),
]);

export const Hook = closed({ version: Type.Optional(literals(['v1', 'v2'])), webhook: Webhook });

export const ChildResource = closed({
  apiVersion: Type.String({ minLength: 1 }),
  resource: Type.String({ pattern: '^[a-z0-9.-]+$' }),
  updateStrategy: Type.Optional(
    closed({
      method: Type.Optional(literals(UPDATE_METHODS)),
      statusChecks: Type.Optional(
        closed({
          conditions: Type.Optional(Type.Array(closed({ type: Type.String(), status: Type.Optional(Type.String()), reason: Type.Optional(Type.String()) }))),
        }),
      ),
    }),
  ),
});
export type ChildResource = Static<typeof ChildResource>;

export const CompositeController = closed({
  apiVersion: Type.Literal('metacontroller.k8s.io/v1alpha1'),
  kind: Type.Literal('CompositeController'),
  // Cluster-scoped: no namespace.
  metadata: closed({
    name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' }),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
  }),
  spec: closed({
    parentResource: closed({
      apiVersion: Type.String({ minLength: 1 }),
      resource: Type.String({ pattern: '^[a-z0-9.-]+$' }),
      labelSelector: Type.Optional(LabelSelector),
      revisionHistory: Type.Optional(closed({ fieldPaths: Type.Optional(Type.Array(Type.String())) })),
      ignoreStatusChanges: Type.Optional(Type.Boolean()),
    }),
    childResources: Type.Optional(Type.Array(ChildResource)),
    hooks: closed({
      sync: Type.Optional(Hook),
      finalize: Type.Optional(Hook),
      customize: Type.Optional(Hook),
      preUpdateChild: Type.Optional(Hook),
      postUpdateChild: Type.Optional(Hook),
    }),
    resyncPeriodSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
    generateSelector: Type.Optional(Type.Boolean()),
    endpointConfigs: Type.Optional(Type.Array(closed({ host: Type.String(), ...Security }))),
  }),
});
export type CompositeController = Static<typeof CompositeController>;
export type Hook = Static<typeof Hook>;

/** Schema errors as `path: message` lines (empty when valid). */
export const compositeControllerErrors = (object: unknown): string[] =>
  [...Value.Errors(CompositeController, object)].map((e) => `${e.path || '/'}: ${e.message}`);

/** The URL Metacontroller calls for a webhook (webhook.go `webhookURL`). */
export const webhookUrl = (hook: Hook): URL => {
  const webhook = hook.webhook;
  if ('url' in webhook) return new URL(webhook.url);
  const { name, namespace, port = 80, protocol = 'http' } = webhook.service;
  return new URL(`${protocol}://${name}.${namespace}:${port}${webhook.path}`);
};
