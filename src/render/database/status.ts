/** The status of an IronicDatabase. */
import type { Condition } from '../../api/shared/common.js';
import { DATABASE_USED_BY, type DatabaseBackupStatus, type IronicDatabaseStatus } from '../../api/ironic-database/schema.js';
import { databaseNames } from '../names.js';
import { previousTrueTime, readyCondition, readyReason, REFUSAL_REASONS, type RefusableOutcome } from '../status.js';
import { usageConditions, usageStatus, type Usage } from '../used-by.js';
import { pendingResize } from './render.js';
import { DATABASE_SCHEMA, MARIADB_PORT, type DatabaseRenderInput } from './input.js';

/** The backup status, as the renderers of backups (backup-status.ts) build it. */
export type { DatabaseBackupStatus };

export const DATABASE_REASONS = {
  available: 'DatabaseAvailable',
  inProgress: 'DatabaseInProgress',
  failed: 'DatabaseFailed',
  ...REFUSAL_REASONS,
} as const;

export type DatabaseOutcome = RefusableOutcome<DatabaseRenderInput>;

const reasonOf = (outcome: DatabaseOutcome): { status: 'True' | 'False'; reason: string; message: string } =>
  readyReason(outcome, DATABASE_REASONS, 'the database is available');

/**
 * Connection facts, published once rendered so that an Ironic can use them as soon as the database is ready.
 * With mariadb-operator, the host is the Service of the current Galera primary: every write goes to one
 * node, so concurrent transactions never fail Galera's certification.
 */
const connection = (input: DatabaseRenderInput): Partial<IronicDatabaseStatus> => ({
  host: `${input.model.engine === 'MariaDBOperator' ? databaseNames(input.name).primaryService : databaseNames(input.name).service}.${input.namespace}.svc`,
  port: MARIADB_PORT,
  databaseName: DATABASE_SCHEMA,
  credentialsName: input.credentials.secretName,
  ...(input.tls !== undefined && { tlsCertificateName: input.tls.secretName, tlsCAKey: input.tls.caKey }),
});

export const computeDatabaseStatus = (params: {
  readonly outcome: DatabaseOutcome;
  readonly usage: Usage;
  readonly previousStatus: unknown;
  readonly generation: number | undefined;
  readonly now: string;
  /** The backup status and its condition, when backups are configured (or were). */
  readonly backup?: { readonly status: DatabaseBackupStatus; readonly condition?: Condition };
  /** The backup the database was filled from, once restored. */
  readonly restoredFrom?: string;
}): IronicDatabaseStatus => {
  const conditions: Condition[] = [
    readyCondition({ ...reasonOf(params.outcome), generation: params.generation, previousStatus: params.previousStatus, now: params.now }),
  ];
  const rendered = params.outcome.kind === 'rendered' ? params.outcome.input : undefined;
  const resize = rendered !== undefined ? pendingResize(rendered) : undefined;
  if (resize !== undefined && rendered !== undefined) {
    conditions.push({
      type: 'StorageResizePending',
      status: 'True',
      reason: 'ManualExpansionRequired',
      message: `storage.size is ${resize.to} but the data volume was created with ${resize.from}; a StatefulSet cannot change its claim template: expand the claim data-${databaseNames(rendered.name).statefulSet}-0 (kubectl edit pvc, if its storage class allows expansion)`,
      lastTransitionTime: previousTrueTime(params.previousStatus, 'StorageResizePending') ?? params.now,
    });
  }
  if (params.backup?.condition !== undefined) conditions.push(params.backup.condition);
  conditions.push(...usageConditions(DATABASE_USED_BY, params.usage, params.previousStatus, params.now));
  return {
    conditions,
    ...(params.outcome.kind === 'rendered' && connection(params.outcome.input)),
    ...usageStatus(params.usage),
    ...(params.backup !== undefined && { backup: params.backup.status }),
    ...(params.restoredFrom !== undefined && { restoredFrom: params.restoredFrom }),
    ...(params.generation !== undefined && { observedGeneration: params.generation }),
  };
};
