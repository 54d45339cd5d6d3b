/**
 * `parseIronicDatabase`: an IronicDatabase spec in, every problem or the typed, defaulted model out.
 */
import { jsonMemo, type JsonMemo } from '../shared/memo.js';
import { pullSecretNames } from '../shared/pull-secrets.js';
import { DEFAULT_DATABASE_ENGINE, DEFAULT_DATABASE_SIZE, DEFAULT_GALERA_REPLICAS, DEFAULT_MAX_CONDUCTORS, DEFAULT_WHEN_DELETED } from '../shared/constants.js';
import {
  DEFAULT_BACKUP_COUNT,
  DEFAULT_BACKUP_SIZE,
  DEFAULT_GALERA_BACKUP_MAX_AGE,
  IronicDatabaseSpec,
  type BackupS3,
  type DatabaseBackup,
  type RestoreFrom,
} from './schema.js';
import type { DatabaseBackupModel, IronicDatabaseModel, RestoreModel, S3Model } from './model.js';
import type { Parsed } from '../shared/model.js';
import type { DatabaseEngine } from '../shared/constants.js';
import { canonical, canonicalResources, given, optionalFields, sortedMap } from '../shared/fields.js';
import { compiledCheck, isRecord } from '../shared/problems.js';
import { volumeStorageModel } from '../shared/storage.js';
import { validateIronicDatabase } from './validate.js';

/** `36h` or `30d`, in minutes. */
const minutesOf = (age: string): number => Number(age.slice(0, -1)) * (age.endsWith('d') ? 24 * 60 : 60);

const s3Model = (s3: BackupS3): S3Model => ({
  kind: 'S3',
  endpoint: s3.endpoint,
  bucket: s3.bucket,
  credentialsSecretName: s3.credentialsSecretName,
  tls: s3.tls ?? true,
  ...optionalFields({ prefix: given(s3.prefix), region: given(s3.region), caSecretName: given(s3.caSecretName) }),
});

/**
 * The retention: Builtin keeps the newest DEFAULT_BACKUP_COUNT unless told; mariadb-operator prunes by age only
 * (validation refuses a count), DEFAULT_GALERA_BACKUP_MAX_AGE unless told.
 */
const retentionModel = (retention: DatabaseBackup['retention'], engine: DatabaseEngine): { keepCount?: number; maxAgeMinutes?: number } => {
  if (engine === 'MariaDBOperator') return { maxAgeMinutes: minutesOf(retention?.maxAge ?? DEFAULT_GALERA_BACKUP_MAX_AGE) };
  const keepCount = retention?.count ?? (retention?.maxAge === undefined ? DEFAULT_BACKUP_COUNT : undefined);
  return { ...(keepCount !== undefined && { keepCount }), ...(retention?.maxAge !== undefined && { maxAgeMinutes: minutesOf(retention.maxAge) }) };
};

const backupModel = (backup: DatabaseBackup, engine: DatabaseEngine): DatabaseBackupModel => {
  const { retention, s3, persistentVolumeClaim: claim } = backup;
  return {
    schedule: backup.schedule.trim(),
    ...retentionModel(retention, engine),
    beforeUpgrade: backup.beforeUpgrade ?? true,
    destination:
      s3 !== undefined
        ? s3Model(s3)
        : {
            kind: 'PersistentVolumeClaim',
            size: canonical(claim?.size ?? DEFAULT_BACKUP_SIZE),
            ...optionalFields({ storageClassName: given(claim?.storageClassName) }),
          },
  };
};

const restoreModel = (restore: RestoreFrom): RestoreModel => ({
  backup: restore.backup,
  ...optionalFields({ claimName: given(restore.claimName) }),
  ...(restore.s3 !== undefined && { s3: s3Model(restore.s3) }),
});

const databaseModel = (spec: IronicDatabaseSpec): IronicDatabaseModel => {
  const engine = spec.engine ?? DEFAULT_DATABASE_ENGINE;
  return {
    engine,
    replicas: engine === 'MariaDBOperator' ? (spec.replicas ?? DEFAULT_GALERA_REPLICAS) : 1,
    ...optionalFields({
      image: given(spec.image),
      priorityClassName: given(spec.priorityClassName),
      credentialsName: given(spec.credentialsName),
      tlsCertificateName: given(spec.tlsCertificateName),
    }),
    imagePullSecrets: pullSecretNames(spec.imagePullSecrets),
    ...(spec.tlsProfile !== undefined && { tlsProfile: spec.tlsProfile }),
    storage: { ...volumeStorageModel(spec.storage, DEFAULT_DATABASE_SIZE), whenDeleted: spec.storage?.whenDeleted ?? DEFAULT_WHEN_DELETED },
    ...(spec.resources && { resources: canonicalResources(spec.resources) }),
    nodeSelector: sortedMap(spec.nodeSelector),
    maxConductors: spec.maxConductors ?? DEFAULT_MAX_CONDUCTORS,
    ...(spec.backup !== undefined && { backup: backupModel(spec.backup, engine) }),
    ...(spec.restoreFrom !== undefined && { restore: restoreModel(spec.restoreFrom) }),
  };
};

const isIronicDatabaseSpec = (value: unknown): value is IronicDatabaseSpec => compiledCheck(IronicDatabaseSpec).Check(value);

/** Parses a spec there and then (see parseIronicDatabase). */
const parseIronicDatabaseNow = (spec: unknown, old?: unknown): Parsed<IronicDatabaseModel> => {
  const problems = validateIronicDatabase(spec, old);
  if (problems.length > 0) return { ok: false, problems };
  if (!isIronicDatabaseSpec(spec))
    return {
      ok: false,
      problems: [{ path: 'spec', message: 'the spec does not match the IronicDatabase API: compare it with `kubectl explain ironicdatabase.spec`' }],
    };
  return { ok: true, model: databaseModel(spec) };
};

/**
 * Specs already parsed, with the old spec they were checked against, by the exact JSON of both: every sync
 * of a parent parses the same spec against the same observed engine and storage. Frozen answers.
 */
export const parsedIronicDatabaseSpecs: JsonMemo<Parsed<IronicDatabaseModel>> = jsonMemo(64, 256 * 1024, (pair) =>
  isRecord(pair) ? parseIronicDatabaseNow(pair['spec'], pair['old']) : parseIronicDatabaseNow(undefined),
);

/**
 * Parses an IronicDatabase spec (`old`: the previous spec, or what the observed children say it was, for the
 * rules about changes): every problem, or the model. Pure and total: never throws.
 */
export const parseIronicDatabase = (spec: unknown, old?: unknown): Parsed<IronicDatabaseModel> =>
  parsedIronicDatabaseSpecs.get({ spec, ...(old !== undefined && { old }) });
