/**
 * The database an Ironic uses: an external MariaDB (spec.database) or a managed IronicDatabase
 * (spec.databaseName), resolved from the related objects.
 */
import type { ObjectMap } from '../../api/shared/hook.js';
import { GROUP_KEYS } from '../../api/shared/hook.js';
import type { BackupDestinationModel } from '../../api/ironic-database/model.js';
import type { DatabaseModel } from '../../api/ironic/model.js';
import { databaseNames } from '../names.js';
import { operatorS3 } from '../shared/mariadb-operator-backup.js';
import { findObject, pathOf, textOf } from '../observed.js';
import { findCondition, previousReady } from '../status.js';
import { READY_CONDITION } from '../../api/shared/common.js';
import { DEFAULT_MAX_CONDUCTORS } from '../../api/shared/constants.js';
import { parseIronicDatabase } from '../../api/ironic-database/parse.js';
import type { KubeObject } from '../../api/shared/hook.js';
import type { DatabaseConnection, UpgradeBackupSource } from './input.js';

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

/** The last successful backup a database's status reports: its Job and its file. */
const lastBackupOf = (status: unknown): { readonly job: string; readonly file: string } | undefined => {
  const job = textOf(pathOf(status, 'backup', 'lastSuccessfulJob'));
  const file = textOf(pathOf(status, 'backup', 'lastBackup'));
  return job !== undefined && file !== undefined ? { job, file } : undefined;
};

/**
 * Where the one-shot Backup before an upgrade writes: the claim mariadb-operator made for the database's scheduled
 * Backup (named as that Backup; an existing claim is given as `volume`, which mariadb-operator mounts as it is and
 * never creates), or the same bucket and prefix. Either way a restore (`bootstrapFrom`, `latest`) sees the file.
 */
const operatorStorage = (destination: BackupDestinationModel, database: string): Record<string, unknown> =>
  destination.kind === 'S3' ? { s3: operatorS3(destination) } : { volume: { persistentVolumeClaim: { claimName: databaseNames(database).mariadbBackup } } };

/**
 * How to back the IronicDatabase up before an upgrade, when its spec asks for backups with beforeUpgrade (the
 * default); undefined when no backup is due. It runs in the namespace of the database, which is the Ironic's
 * (spec.databaseName names one of its namespace). Engine Builtin: the pod of its backup CronJob, from its spec and
 * the Secrets its status publishes. Engine MariaDBOperator: a one-shot Backup (one without a schedule) of its
 * MariaDB, with the storage and the retention of its scheduled Backup.
 */
export const upgradeBackupSource = (db: KubeObject, namespace: string, connection: DatabaseConnection): UpgradeBackupSource | undefined => {
  const parsed = parseIronicDatabase(db['spec']);
  if (!parsed.ok) return undefined;
  const { model } = parsed;
  const backup = model.backup;
  if (backup?.beforeUpgrade !== true) return undefined;
  const database = db.metadata.name;
  if (model.engine === 'MariaDBOperator') {
    return {
      engine: 'MariaDBOperator',
      database,
      backup: {
        mariadb: databaseNames(database).mariadb,
        storage: operatorStorage(backup.destination, database),
        // parse.ts always sets an age for this engine (mariadb-operator prunes by age only).
        maxAgeMinutes: backup.maxAgeMinutes ?? 0,
        nodeSelector: model.nodeSelector,
        ...(model.priorityClassName !== undefined && { priorityClassName: model.priorityClassName }),
      },
    };
  }
  // Validation refuses S3 with engine Builtin (its image has no S3 client).
  if (backup.destination.kind !== 'PersistentVolumeClaim') return undefined;
  const lastBackup = lastBackupOf(db['status']);
  return {
    engine: 'Builtin',
    pod: {
      database,
      namespace,
      ...(model.image !== undefined && { image: model.image }),
      nodeSelector: model.nodeSelector,
      ...(model.priorityClassName !== undefined && { priorityClassName: model.priorityClassName }),
      credentialsSecretName: connection.credentialsName,
      imagePullSecrets: model.imagePullSecrets,
      ...(connection.tlsCertificateName !== undefined && {
        tls: { secretName: connection.tlsCertificateName, caKey: connection.tlsCAKey ?? 'tls.crt' },
      }),
    },
    retention: {
      ...(backup.keepCount !== undefined && { keepCount: backup.keepCount }),
      ...(backup.maxAgeMinutes !== undefined && { maxAgeMinutes: backup.maxAgeMinutes }),
    },
    ...(lastBackup !== undefined && { lastBackup }),
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
  const backup = upgradeBackupSource(db, namespace, connection);
  return {
    ok: true,
    database: {
      ...connection,
      ...(engine !== 'MariaDBOperator' && { singlePodDatabase: dbName }),
      maxConductors: typeof maxConductors === 'number' ? maxConductors : DEFAULT_MAX_CONDUCTORS,
      ...(backup !== undefined && { upgradeBackup: backup }),
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
