/**
 * Shared TypeBox building blocks for the ironic.metal3.io API.
 *
 * Every schema here is written so that the CRD generator (src/crd/structural.ts) can turn it into a
 * Kubernetes structural schema: enums are unions of string literals, maps are `Type.Record(String, …)`,
 * and embedded Kubernetes types whose full schema we do not restate keep unknown fields.
 */
import { Type, type Static, type TObject, type TRecord, type TSchema, type TString, type TLiteral, type TUnion, type SchemaOptions } from '@sinclair/typebox';
import { QUANTITY_PATTERN } from './schema-messages.js';

/** The API group of both custom resources. */
export const API_GROUP = 'ironic.metal3.io';
/** The only served and stored version. */
export const API_VERSION = 'v1alpha1';
/** `apiVersion` as it appears on objects. */
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/** The single condition type we maintain, as upstream does. */
export const READY_CONDITION = 'Ready';

/**
 * A closed set of strings. Emits `anyOf` of literals in TypeBox; the CRD generator folds it into
 * `{type: string, enum: [...]}`.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnion<TLiteral<T[number]>[]> =>
  Type.Union(
    values.map((v: T[number]) => Type.Literal(v)),
    options,
  );

/** A map of strings (labels, annotations, node selectors). */
export const StringMap = (description: string): ReturnType<typeof Type.Record<ReturnType<typeof Type.String>, ReturnType<typeof Type.String>>> =>
  Type.Record(Type.String(), Type.String(), { description });

/** Kubernetes `IntOrString` (quantities, ports by name). */
export const IntOrString = (options: SchemaOptions = {}): TUnion<[ReturnType<typeof Type.Integer>, ReturnType<typeof Type.String>]> =>
  Type.Union([Type.Integer(), Type.String()], { ...options, 'x-kubernetes-int-or-string': true });

/** A Kubernetes quantity: a whole number, or a string such as `100m`, `2` or `1Gi`. */
export const Quantity = (): ReturnType<typeof IntOrString> => IntOrString({ pattern: QUANTITY_PATTERN });

/** A map of quantities by resource name (`cpu`, `memory`, `ephemeral-storage`, ...). */
export const QuantityMap = (description: string): TRecord<TString, ReturnType<typeof Quantity>> =>
  Type.Record(Type.String(), Quantity(), { description, maxProperties: 16 });

/**
 * An embedded Kubernetes object (Container, Volume, Probe, …) whose full upstream schema is not restated
 * here. Unknown fields are preserved by the API server; the hook checks the object against the upstream
 * Kubernetes schema before using it.
 */
export const EmbeddedObject = <P extends Record<string, TSchema>>(properties: P, description: string): TObject<P> =>
  Type.Object(properties, {
    description,
    additionalProperties: true,
    'x-kubernetes-preserve-unknown-fields': true,
  });

/** `metav1.Condition`, with `lastTransitionTime` optional so foreign writers cannot break the status. */
export const Condition = Type.Object(
  {
    type: Type.String({ description: 'Type of the condition. This operator maintains `Ready`.', maxLength: 316 }),
    status: StringEnum(['True', 'False', 'Unknown'], { description: 'Status of the condition: True, False or Unknown.' }),
    reason: Type.Optional(Type.String({ description: 'A CamelCase word that explains the status.', maxLength: 1024 })),
    message: Type.Optional(Type.String({ description: 'A human-readable explanation, including what to do when something is wrong.', maxLength: 32768 })),
    lastTransitionTime: Type.Optional(Type.String({ description: 'When the status last changed.', format: 'date-time' })),
    observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the object this condition was computed for.', minimum: 0 })),
  },
  { description: 'A condition of the object, in the standard Kubernetes shape.' },
);
export type Condition = Static<typeof Condition>;

/** The conditions list, as a list-map keyed by type. */
export const Conditions = Type.Array(Condition, {
  description: 'The latest observations of the object. The `Ready` condition summarises whether it is usable.',
  maxItems: 16,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

/** Kinds a CA bundle reference may point to. */
export const ResourceKind = StringEnum(['ConfigMap', 'Secret'], {
  description: 'Kind of the referenced object: ConfigMap or Secret.',
});
export type ResourceKind = Static<typeof ResourceKind>;

/** Reference to a Secret or ConfigMap in the same namespace. */
export const ResourceReference = Type.Object(
  {
    name: Type.String({ description: 'Name of the Secret or ConfigMap, in the namespace of this object.', minLength: 1, maxLength: 253 }),
    kind: ResourceKind,
  },
  { description: 'A Secret or ConfigMap in the same namespace.' },
);
export type ResourceReference = Static<typeof ResourceReference>;

/** Reference to a Secret or ConfigMap plus an optional key. */
export const ResourceReferenceWithKey = Type.Object(
  {
    name: Type.String({ description: 'Name of the Secret or ConfigMap, in the namespace of this object.', minLength: 1, maxLength: 253 }),
    kind: ResourceKind,
    key: Type.Optional(
      Type.String({
        description: 'Key of the CA bundle inside the object. When empty, the alphabetically first key is used.',
        maxLength: 253,
      }),
    ),
  },
  { description: 'A key of a Secret or ConfigMap in the same namespace.' },
);
export type ResourceReferenceWithKey = Static<typeof ResourceReferenceWithKey>;

/** Minimal object metadata that the hooks read from a parent. */
export const ObjectMeta = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    generation: Type.Optional(Type.Integer()),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    deletionTimestamp: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type ObjectMeta = Static<typeof ObjectMeta>;
