/**
 * `parseIronicDatabase`: an IronicDatabase spec in, every problem or the typed, defaulted model out.
 */
import { pullSecretNames } from '../shared/pull-secrets.js';
import { DEFAULT_DATABASE_ENGINE, DEFAULT_DATABASE_SIZE, DEFAULT_GALERA_REPLICAS, DEFAULT_MAX_CONDUCTORS, DEFAULT_WHEN_DELETED } from '../shared/constants.js';
import { IronicDatabaseSpec } from './schema.js';
import type { IronicDatabaseModel, Parsed } from '../model.js';
import { canonicalResources, given, optionalFields, sortedMap } from '../shared/fields.js';
import { compiledCheck } from '../shared/problems.js';
import { volumeStorageModel } from '../shared/storage.js';
import { validateIronicDatabase } from './validate.js';

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
    storage: { ...volumeStorageModel(spec.storage, DEFAULT_DATABASE_SIZE), whenDeleted: spec.storage?.whenDeleted ?? DEFAULT_WHEN_DELETED },
    ...(spec.resources && { resources: canonicalResources(spec.resources) }),
    nodeSelector: sortedMap(spec.nodeSelector),
    maxConductors: spec.maxConductors ?? DEFAULT_MAX_CONDUCTORS,
  };
};

const isIronicDatabaseSpec = (value: unknown): value is IronicDatabaseSpec => compiledCheck(IronicDatabaseSpec).Check(value);

/**
 * Parses an IronicDatabase spec (`old`: the previous spec, or what the observed children say it was, for the
 * rules about changes): every problem, or the model. Pure and total: never throws.
 */
export const parseIronicDatabase = (spec: unknown, old?: unknown): Parsed<IronicDatabaseModel> => {
  const problems = validateIronicDatabase(spec, old);
  if (problems.length > 0) return { ok: false, problems };
  if (!isIronicDatabaseSpec(spec))
    return {
      ok: false,
      problems: [{ path: 'spec', message: 'the spec does not match the IronicDatabase API: compare it with `kubectl explain ironicdatabase.spec`' }],
    };
  return { ok: true, model: databaseModel(spec) };
};
