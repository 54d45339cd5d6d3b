/**
 * The database an Ironic uses: an external MariaDB (spec.database) or a managed IronicDatabase
 * (spec.databaseName), resolved from the related objects.
 */
import type { ObjectMap } from '../../api/shared/hook.js';
import { GROUP_KEYS } from '../../api/shared/hook.js';
import type { DatabaseModel } from '../../api/model.js';
import { findObject, pathOf, textOf } from '../observed.js';
import { findCondition, previousReady } from '../status.js';
import { READY_CONDITION } from '../../api/shared/common.js';
import { DEFAULT_MAX_CONDUCTORS } from '../../api/shared/constants.js';
import type { DatabaseConnection } from './input.js';

export type DatabaseResult =
  { readonly ok: true; readonly database?: DatabaseConnection } | { readonly ok: false; readonly kind: 'missing' | 'waiting'; readonly message: string };

const MARIADB_PORT = 3306;

/** Connection facts an IronicDatabase publishes in its status once it is ready. */
const managedConnection = (status: unknown): DatabaseConnection | undefined => {
  const host = textOf(pathOf(status, 'host'));
  const name = textOf(pathOf(status, 'databaseName'));
  const credentialsName = textOf(pathOf(status, 'credentialsName'));
  if (host === undefined || name === undefined || credentialsName === undefined) return undefined;
  const port = pathOf(status, 'port');
  const tlsSecret = textOf(pathOf(status, 'tlsCertificateName'));
  const caKey = textOf(pathOf(status, 'tlsCAKey'));
  return {
    host: typeof port === 'number' && port !== MARIADB_PORT ? `${host}:${port}` : host,
    name,
    credentialsName,
    ...(tlsSecret !== undefined && { tlsCertificateName: tlsSecret }),
    ...(tlsSecret !== undefined && caKey !== undefined && { tlsCAKey: caKey }),
  };
};

/** The connection of the model's database: external as given, managed once its IronicDatabase is ready. */
export const resolveDatabase = (database: DatabaseModel, related: ObjectMap | null | undefined, namespace: string): DatabaseResult => {
  if (database.kind === 'none') return { ok: true };
  if (database.kind === 'external') {
    const { host, name, credentialsName, tlsCertificateName } = database;
    return { ok: true, database: { host, name, credentialsName, ...(tlsCertificateName !== undefined && { tlsCertificateName }) } };
  }
  const dbName = database.name;
  const db = findObject(related, GROUP_KEYS.ironicDatabase, namespace, dbName);
  if (db === undefined) {
    return {
      ok: false,
      kind: 'missing',
      message: `IronicDatabase ${namespace}/${dbName} named in spec.databaseName was not found: create it, or fix the name`,
    };
  }
  const status = db['status'];
  const condition = previousReady(status);
  const connection = managedConnection(status);
  if (db.metadata.deletionTimestamp !== undefined) {
    return {
      ok: false,
      kind: 'waiting',
      message: `IronicDatabase ${namespace}/${dbName} is being deleted; it keeps running while this Ironic uses it: delete this Ironic, or name another database`,
    };
  }
  if (condition?.status !== 'True' || connection === undefined) {
    const why = textOf(findCondition(status, READY_CONDITION)?.message);
    return { ok: false, kind: 'waiting', message: `waiting for IronicDatabase ${namespace}/${dbName} to become ready${why !== undefined ? `: ${why}` : ''}` };
  }
  // A single MariaDB pod (engine Builtin, the default): named, so that high availability can say so.
  const engine = pathOf(db, 'spec', 'engine');
  const maxConductors = pathOf(db, 'spec', 'maxConductors');
  return {
    ok: true,
    database: {
      ...connection,
      ...(engine !== 'MariaDBOperator' && { singlePodDatabase: dbName }),
      maxConductors: typeof maxConductors === 'number' ? maxConductors : DEFAULT_MAX_CONDUCTORS,
    },
  };
};

/**
 * A short note for the Ready message when this Ironic alone runs more conductors (pods scheduled) than its
 * IronicDatabase's connection limits are sized for, or undefined. NOTE: other Ironics on the same database
 * are not counted (this one cannot see their pods); the README's Sizing section says to count them.
 */
export const conductorBudgetHint = (conductors: number, databaseName: string | undefined, database: DatabaseConnection | undefined): string | undefined =>
  databaseName !== undefined && database?.maxConductors !== undefined && conductors > database.maxConductors
    ? `note: this Ironic runs ${conductors} conductors but IronicDatabase ${databaseName} is sized for ${database.maxConductors} (spec.maxConductors): under load the database may refuse connections; raise its maxConductors to at least ${conductors}`
    : undefined;

/**
 * A short note for the Ready message of a highly available Ironic whose database is one MariaDB pod, or
 * undefined when there is nothing to say.
 */
export const singlePodDatabaseHint = (highAvailability: boolean, database: DatabaseConnection | undefined): string | undefined =>
  highAvailability && database?.singlePodDatabase !== undefined
    ? `note: IronicDatabase ${database.singlePodDatabase} is a single MariaDB pod, the last single point of failure; engine MariaDBOperator runs a Galera cluster instead`
    : undefined;
