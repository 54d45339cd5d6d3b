/**
 * The Kubernetes resource types that parents own or read, as a CompositeController names them
 * (`apiVersion` and plural `resource`) and as Metacontroller keys them in its object maps (`Kind.apiVersion`).
 */
import { GROUP_VERSION } from './common.js';

/** One resource type: its kind, its apiVersion and its plural resource name. */
export type ResourceType = {
  readonly kind: string;
  readonly apiVersion: string;
  /** The plural resource name, e.g. `secrets`. */
  readonly resource: string;
};

/** The outer key of Metacontroller's object maps: `Kind.version` (core group) or `Kind.group/version`. */
export const groupKeyOfType = (type: Pick<ResourceType, 'kind' | 'apiVersion'>): string => `${type.kind}.${type.apiVersion}`;

export const SECRETS: ResourceType = { kind: 'Secret', apiVersion: 'v1', resource: 'secrets' };
export const CONFIG_MAPS: ResourceType = { kind: 'ConfigMap', apiVersion: 'v1', resource: 'configmaps' };
export const SERVICES: ResourceType = { kind: 'Service', apiVersion: 'v1', resource: 'services' };
export const PERSISTENT_VOLUME_CLAIMS: ResourceType = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', resource: 'persistentvolumeclaims' };
export const DEPLOYMENTS: ResourceType = { kind: 'Deployment', apiVersion: 'apps/v1', resource: 'deployments' };
export const DAEMON_SETS: ResourceType = { kind: 'DaemonSet', apiVersion: 'apps/v1', resource: 'daemonsets' };
export const STATEFUL_SETS: ResourceType = { kind: 'StatefulSet', apiVersion: 'apps/v1', resource: 'statefulsets' };
export const JOBS: ResourceType = { kind: 'Job', apiVersion: 'batch/v1', resource: 'jobs' };
/** Read only (the pods of backup and restore Jobs, for their termination messages): never a child. */
export const PODS: ResourceType = { kind: 'Pod', apiVersion: 'v1', resource: 'pods' };
export const CRON_JOBS: ResourceType = { kind: 'CronJob', apiVersion: 'batch/v1', resource: 'cronjobs' };
export const INGRESSES: ResourceType = { kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', resource: 'ingresses' };
export const POD_DISRUPTION_BUDGETS: ResourceType = { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', resource: 'poddisruptionbudgets' };
export const NETWORK_POLICIES: ResourceType = { kind: 'NetworkPolicy', apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies' };
export const SERVICE_MONITORS: ResourceType = { kind: 'ServiceMonitor', apiVersion: 'monitoring.coreos.com/v1', resource: 'servicemonitors' };
export const CERTIFICATES: ResourceType = { kind: 'Certificate', apiVersion: 'cert-manager.io/v1', resource: 'certificates' };
/** mariadb-operator's kinds (k8s.mariadb.com), for IronicDatabase engine MariaDBOperator. */
export const MARIADBS: ResourceType = { kind: 'MariaDB', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'mariadbs' };
export const MARIADB_DATABASES: ResourceType = { kind: 'Database', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'databases' };
export const MARIADB_USERS: ResourceType = { kind: 'User', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'users' };
export const MARIADB_GRANTS: ResourceType = { kind: 'Grant', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'grants' };
export const MARIADB_BACKUPS: ResourceType = { kind: 'Backup', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'backups' };
/**
 * A child (the hooks' own Restore that fills a new Galera cluster) and read (the Restore mariadb-operator made for the
 * bootstrapFrom of a cluster made before it).
 */
export const MARIADB_RESTORES: ResourceType = { kind: 'Restore', apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'restores' };

/** The parents (ironic.metal3.io): as related objects (an IronicDatabase an Ironic names) and as Metacontroller keys them. */
export const IRONICS: ResourceType = { kind: 'Ironic', apiVersion: GROUP_VERSION, resource: 'ironics' };
export const IRONIC_DATABASES: ResourceType = { kind: 'IronicDatabase', apiVersion: GROUP_VERSION, resource: 'ironicdatabases' };
export const IRONIC_IMAGE_CACHES: ResourceType = { kind: 'IronicImageCache', apiVersion: GROUP_VERSION, resource: 'ironicimagecaches' };

/**
 * The order of customize's rules by type: the objects specs name (Secrets, ConfigMaps, the kinds of our
 * group), then the children whose names are checked for objects in the way. Any other type goes after them.
 */
const RELATED_ORDER: readonly ResourceType[] = [
  SECRETS,
  CONFIG_MAPS,
  IRONIC_DATABASES,
  IRONIC_IMAGE_CACHES,
  DEPLOYMENTS,
  DAEMON_SETS,
  SERVICES,
  INGRESSES,
  POD_DISRUPTION_BUDGETS,
];

/** The place of the first type that matches in customize's order of rules (a stable sort keeps the order within a type). */
export const relatedRank = (matches: (type: ResourceType) => boolean): number => {
  const index = RELATED_ORDER.findIndex(matches);
  return index === -1 ? RELATED_ORDER.length : index;
};

/** Every built-in (not ironic.metal3.io) resource type the project knows, for lookups by plural or kind. */
export const BUILTIN_RESOURCES: readonly ResourceType[] = [
  SECRETS,
  CONFIG_MAPS,
  SERVICES,
  PERSISTENT_VOLUME_CLAIMS,
  DEPLOYMENTS,
  DAEMON_SETS,
  STATEFUL_SETS,
  JOBS,
  CRON_JOBS,
  INGRESSES,
  NETWORK_POLICIES,
  POD_DISRUPTION_BUDGETS,
  SERVICE_MONITORS,
  CERTIFICATES,
  MARIADBS,
  MARIADB_DATABASES,
  MARIADB_USERS,
  MARIADB_GRANTS,
  MARIADB_BACKUPS,
  MARIADB_RESTORES,
];
