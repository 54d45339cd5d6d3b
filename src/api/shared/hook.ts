/**
 * The Metacontroller v2 hook wire format (CompositeController sync, finalize and customize), as TypeBox
 * schemas. Request schemas check the envelope only: the parent's spec is checked by validateIronic /
 * validateIronicDatabase so that a bad spec becomes a status condition, not an HTTP error.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ObjectMeta } from './common.js';

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
  secret: 'Secret.v1',
  configMap: 'ConfigMap.v1',
  service: 'Service.v1',
  persistentVolumeClaim: 'PersistentVolumeClaim.v1',
  deployment: 'Deployment.apps/v1',
  daemonSet: 'DaemonSet.apps/v1',
  statefulSet: 'StatefulSet.apps/v1',
  job: 'Job.batch/v1',
  cronJob: 'CronJob.batch/v1',
  ingress: 'Ingress.networking.k8s.io/v1',
  podDisruptionBudget: 'PodDisruptionBudget.policy/v1',
  serviceMonitor: 'ServiceMonitor.monitoring.coreos.com/v1',
  certificate: 'Certificate.cert-manager.io/v1',
  mariadb: 'MariaDB.k8s.mariadb.com/v1alpha1',
  mariadbDatabase: 'Database.k8s.mariadb.com/v1alpha1',
  mariadbUser: 'User.k8s.mariadb.com/v1alpha1',
  mariadbGrant: 'Grant.k8s.mariadb.com/v1alpha1',
  mariadbBackup: 'Backup.k8s.mariadb.com/v1alpha1',
  mariadbRestore: 'Restore.k8s.mariadb.com/v1alpha1',
  ironic: 'Ironic.ironic.metal3.io/v1alpha1',
  ironicDatabase: 'IronicDatabase.ironic.metal3.io/v1alpha1',
  ironicImageCache: 'IronicImageCache.ironic.metal3.io/v1alpha1',
} as const;
