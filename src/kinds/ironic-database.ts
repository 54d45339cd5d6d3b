/** The IronicDatabase parent kind: a MariaDB managed for Ironic. */
import { DATABASE_USED_BY, IronicDatabaseSpec, IronicDatabaseStatus } from '../api/ironic-database/schema.js';
import { ageColumn, readyColumns } from '../crd/crd.js';
import { customizeIronicDatabase, finalizeIronicDatabase, syncIronicDatabase } from '../hooks/ironic-database.js';
import { children, overlayChildren, parentIdentity, type ParentKind } from './descriptor.js';
import {
  CONFIG_MAPS,
  CRON_JOBS,
  JOBS,
  MARIADB_BACKUPS,
  MARIADB_DATABASES,
  MARIADB_GRANTS,
  MARIADB_RESTORES,
  MARIADB_USERS,
  MARIADBS,
  PERSISTENT_VOLUME_CLAIMS,
  SECRETS,
  SERVICES,
  STATEFUL_SETS,
  IRONIC_DATABASES,
} from '../api/shared/resource-types.js';

/** IronicDatabase: its MariaDB StatefulSet, configuration, Service, generated password, backup CronJob and volume and restore Job, or mariadb-operator objects. */
export const IRONIC_DATABASE: ParentKind<'IronicDatabase'> = {
  ...parentIdentity(IRONIC_DATABASES),
  hookPath: 'ironicdatabase',
  spec: IronicDatabaseSpec,
  status: IronicDatabaseStatus,
  crd: {
    description: 'A MariaDB database managed for Ironic, with persistent storage. Ironic objects use it through spec.databaseName.',
    // The StatefulSet `<name>-database` labels its pods with `<statefulset>-<hash>`, which must fit 63 characters.
    rules: [
      { rule: 'size(self.metadata.name) <= 43', message: 'the name of an IronicDatabase is at most 43 characters (its StatefulSet name must fit pod labels)' },
    ],
    columns: [...readyColumns, { name: 'Host', type: 'string', jsonPath: '.status.host', description: 'Where Ironic connects to', priority: 1 }, ageColumn],
  },
  hooks: { customize: customizeIronicDatabase, sync: syncIronicDatabase, finalize: finalizeIronicDatabase },
  childTypes: [
    ...children(SECRETS, CONFIG_MAPS, STATEFUL_SETS, SERVICES, CRON_JOBS, PERSISTENT_VOLUME_CLAIMS, JOBS),
    // Engine MariaDBOperator: for clusters with mariadb-operator only.
    ...overlayChildren('mariadb-operator', MARIADBS, MARIADB_DATABASES, MARIADB_USERS, MARIADB_GRANTS, MARIADB_BACKUPS, MARIADB_RESTORES),
  ],
  controllerName: 'ironicdatabase',
  metricLabel: 'IronicDatabase',
  // First: the Ironics that use a database read the status it got in the same round.
  syncOrder: 1,
  usedBy: DATABASE_USED_BY,
};
