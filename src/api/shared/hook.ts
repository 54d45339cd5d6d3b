/**
 * The Metacontroller v2 hook wire format (CompositeController sync, finalize and customize), as TypeBox
 * schemas. Request schemas check the envelope only: the parent's spec is checked by validateIronic /
 * validateIronicDatabase so that a bad spec becomes a status condition, not an HTTP error.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ObjectMeta } from './common.js';
import {
  CERTIFICATES,
  CONFIG_MAPS,
  CRON_JOBS,
  DAEMON_SETS,
  DEPLOYMENTS,
  groupKeyOfType,
  INGRESSES,
  IRONIC_DATABASES,
  IRONIC_IMAGE_CACHES,
  IRONICS,
  JOBS,
  MARIADB_BACKUPS,
  MARIADB_DATABASES,
  MARIADB_GRANTS,
  MARIADB_RESTORES,
  MARIADB_USERS,
  MARIADBS,
  PERSISTENT_VOLUME_CLAIMS,
  POD_DISRUPTION_BUDGETS,
  SECRETS,
  SERVICE_MONITORS,
  SERVICES,
  STATEFUL_SETS,
} from './resource-types.js';

/** Any Kubernetes object: apiVersion, kind and metadata.name are required, the rest is kept as is. */
export const KubeObject = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    metadata: ObjectMeta,
  },
  { additionalProperties: true },
);
export type KubeObject = Static<typeof KubeObject> & Readonly<Record<string, unknown>>;

/** `children` / `related`: `Kind.group/version` → (`namespace/name` or `name`) → object. Go may send null for empty maps. */
export const ObjectMap = Type.Record(Type.String(), Type.Union([Type.Record(Type.String(), KubeObject), Type.Null()]));
export type ObjectMap = Record<string, Record<string, KubeObject> | null>;

export const SyncRequest = Type.Object(
  {
    controller: Type.Optional(Type.Unknown()),
    parent: KubeObject,
    children: Type.Optional(Type.Union([ObjectMap, Type.Null()])),
    related: Type.Optional(Type.Union([ObjectMap, Type.Null()])),
    finalizing: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type SyncRequest = Omit<Static<typeof SyncRequest>, 'parent' | 'children' | 'related'> & {
  readonly parent: KubeObject;
  readonly children?: ObjectMap | null;
  readonly related?: ObjectMap | null;
};

export const SyncResponse = Type.Object(
  {
    status: Type.Record(Type.String(), Type.Unknown()),
    children: Type.Array(Type.Unknown()),
    resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    finalized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SyncResponse = Static<typeof SyncResponse>;

export const CustomizeRequest = Type.Object(
  {
    controller: Type.Optional(Type.Unknown()),
    parent: KubeObject,
  },
  { additionalProperties: true },
);
export type CustomizeRequest = Omit<Static<typeof CustomizeRequest>, 'parent'> & { readonly parent: KubeObject };

/** One rule of a customize response. We only ever select by namespace and names (never by selector). */
export const RelatedResourceRule = Type.Object(
  {
    apiVersion: Type.String(),
    resource: Type.String(),
    namespace: Type.Optional(Type.String()),
    names: Type.Optional(Type.Array(Type.String())),
    labelSelector: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type RelatedResourceRule = Static<typeof RelatedResourceRule>;

export const CustomizeResponse = Type.Object({ relatedResources: Type.Array(RelatedResourceRule) }, { additionalProperties: false });
export type CustomizeResponse = Static<typeof CustomizeResponse>;

/** Outer keys of the object maps, as Metacontroller builds them (`Kind.version` for the core group). */
export const GROUP_KEYS = {
  secret: groupKeyOfType(SECRETS),
  configMap: groupKeyOfType(CONFIG_MAPS),
  service: groupKeyOfType(SERVICES),
  persistentVolumeClaim: groupKeyOfType(PERSISTENT_VOLUME_CLAIMS),
  deployment: groupKeyOfType(DEPLOYMENTS),
  daemonSet: groupKeyOfType(DAEMON_SETS),
  statefulSet: groupKeyOfType(STATEFUL_SETS),
  job: groupKeyOfType(JOBS),
  cronJob: groupKeyOfType(CRON_JOBS),
  ingress: groupKeyOfType(INGRESSES),
  podDisruptionBudget: groupKeyOfType(POD_DISRUPTION_BUDGETS),
  serviceMonitor: groupKeyOfType(SERVICE_MONITORS),
  certificate: groupKeyOfType(CERTIFICATES),
  mariadb: groupKeyOfType(MARIADBS),
  mariadbDatabase: groupKeyOfType(MARIADB_DATABASES),
  mariadbUser: groupKeyOfType(MARIADB_USERS),
  mariadbGrant: groupKeyOfType(MARIADB_GRANTS),
  mariadbBackup: groupKeyOfType(MARIADB_BACKUPS),
  mariadbRestore: groupKeyOfType(MARIADB_RESTORES),
  ironic: groupKeyOfType(IRONICS),
  ironicDatabase: groupKeyOfType(IRONIC_DATABASES),
  ironicImageCache: groupKeyOfType(IRONIC_IMAGE_CACHES),
} as const;
