/**
 * The parsed, fully defaulted model of an IronicDatabase (`parseIronicDatabase` is its only producer).
 */
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import type { DatabaseEngine } from '../shared/constants.js';
import type { VolumeStorageModel } from '../shared/model.js';
import type { TLSProfile } from '../shared/tls-profile.js';

/** Storage of the database, and what happens to its volume when the database is deleted. */
export type DatabaseStorageModel = VolumeStorageModel & { readonly whenDeleted: 'Retain' | 'Delete' };

/** An S3-compatible bucket (engine MariaDBOperator). */
export type S3Model = {
  readonly kind: 'S3';
  readonly endpoint: string;
  readonly bucket: string;
  readonly prefix?: string;
  readonly region?: string;
  readonly credentialsSecretName: string;
  /** HTTPS (true, the default) or plain HTTP. */
  readonly tls: boolean;
  readonly caSecretName?: string;
};

/** Where backups go: the database's backup claim, or an S3 bucket. */
export type BackupDestinationModel = { readonly kind: 'PersistentVolumeClaim'; readonly size: string; readonly storageClassName?: string } | S3Model;

/** Scheduled backups of an IronicDatabase. */
export type DatabaseBackupModel = {
  /** A CronJob schedule, in UTC. */
  readonly schedule: string;
  /** How many backups are kept (the newest); undefined: no limit by count. */
  readonly keepCount?: number;
  /** How old, in minutes, a kept backup may be; undefined: no limit by age. */
  readonly maxAgeMinutes?: number;
  readonly destination: BackupDestinationModel;
  /** Whether an Ironic backs the database up before it upgrades the schema (spec.backup.beforeUpgrade, default true). */
  readonly beforeUpgrade: boolean;
};

/** spec.restoreFrom: the backup (`latest` or a file name), and the claim (undefined: the database's own) or bucket holding it. */
export type RestoreModel = { readonly backup: string; readonly claimName?: string; readonly s3?: S3Model };

export type IronicDatabaseModel = {
  readonly engine: DatabaseEngine;
  /** Galera nodes (MariaDBOperator); 1 for Builtin. */
  readonly replicas: number;
  readonly image?: string;
  readonly priorityClassName?: string;
  /** spec.imagePullSecrets, in order. */
  readonly imagePullSecrets: readonly string[];
  /** The user's credentials Secret; undefined means generated. */
  readonly credentialsName?: string;
  readonly tlsCertificateName?: string;
  /** spec.tlsProfile as given: without it, MariaDB's own TLS defaults. */
  readonly tlsProfile?: TLSProfile;
  readonly storage: DatabaseStorageModel;
  readonly resources?: IResourceRequirements;
  /** Sorted. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** The most conductors (Ironic pods) using the database at once: sizes the connection limits. */
  readonly maxConductors: number;
  /** Scheduled backups, when spec.backup asks for them. */
  readonly backup?: DatabaseBackupModel;
  /** The backup a new database is filled from (`latest` or a file name), and the claim or bucket that holds it. */
  readonly restore?: RestoreModel;
};
