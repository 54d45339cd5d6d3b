/** The Ironic parent kind: the bare-metal provisioning service itself. */
import { IronicSpec, IronicStatus } from '../api/ironic/schema.js';
import { ageColumn, readyColumns } from '../crd/crd.js';
import { customizeIronic, finalizeIronic, syncIronic } from '../hooks/ironic.js';
import { children, overlayChildren, parentIdentity, type ParentKind } from './descriptor.js';
import {
  CERTIFICATES,
  CONFIG_MAPS,
  DAEMON_SETS,
  DEPLOYMENTS,
  INGRESSES,
  JOBS,
  MARIADB_BACKUPS,
  POD_DISRUPTION_BUDGETS,
  SECRETS,
  SERVICE_MONITORS,
  SERVICES,
  IRONICS,
} from '../api/shared/resource-types.js';

/** Ironic: its Deployment (or DaemonSet and PodDisruptionBudget in high availability), Service, Secrets, upgrade Jobs (and the backup before them) and Ingress. */
export const IRONIC: ParentKind<'Ironic'> = {
  ...parentIdentity(IRONICS),
  hookPath: 'ironic',
  spec: IronicSpec,
  status: IronicStatus,
  crd: {
    description: 'An Ironic deployment for Metal3: the bare-metal provisioning API, its image server and, optionally, DHCP.',
    columns: [
      ...readyColumns,
      { name: 'Installed Version', type: 'string', jsonPath: '.status.installedVersion', description: 'The last version that became ready' },
      { name: 'Requested Version', type: 'string', jsonPath: '.status.requestedVersion', description: 'The version being installed', priority: 1 },
      ageColumn,
    ],
  },
  hooks: { customize: customizeIronic, sync: syncIronic, finalize: finalizeIronic },
  childTypes: [
    ...children(SECRETS, CONFIG_MAPS, SERVICES, DEPLOYMENTS, DAEMON_SETS, JOBS, INGRESSES, POD_DISRUPTION_BUDGETS),
    // The ServiceMonitor of a scraped exporter: for clusters with the Prometheus Operator CRDs only.
    ...overlayChildren('servicemonitor', SERVICE_MONITORS),
    // The cert-manager Certificate of spec.tls.issuerRef: for clusters with cert-manager only.
    ...overlayChildren('cert-manager', CERTIFICATES),
    // mariadb-operator's one-shot Backup before a version upgrade on a Galera IronicDatabase: for clusters with
    // mariadb-operator only. OnDelete: it runs once, its storage is immutable, and deleting it takes it again.
    { type: MARIADB_BACKUPS, strategy: 'OnDelete', overlay: 'mariadb-operator' },
  ],
  controllerName: 'ironic',
  metricLabel: 'Ironic',
  // After the databases and image caches: an Ironic reads the status they got in the same round.
  syncOrder: 3,
};
