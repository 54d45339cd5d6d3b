/**
 * The IronicDatabase hooks: adapters from the Metacontroller wire format to the pure plan
 * (src/render/database/plan.ts), plus generating a password when none exists yet.
 */
import { CRON_JOBS, JOBS, MARIADB_RESTORES, PODS, SERVICES } from '../api/shared/resource-types.js';
import { ironicDatabaseSpecReferences } from '../api/ironic-database/references.js';
import type { CustomizeRequest, CustomizeResponse, SyncRequest, SyncResponse } from '../api/shared/hook.js';
import { isRecord } from '../render/observed.js';
import { finalizeDatabase, finishDatabase, needsPassword, prepareDatabase, wantedDatabaseChildren } from '../render/database/plan.js';
import { parseIronicDatabase } from '../api/ironic-database/parse.js';
import { usersRule } from '../render/used-by.js';
import type { HookContext } from './context.js';
import { viewOf } from './parent.js';
import { wire } from './wire.js';
import { namesRule, referenceRules, withWanted } from './related.js';
import { databaseNames, LABELS, labelValue } from '../render/names.js';

/**
 * customize: the referenced Secrets by name (S3 ones included), the Ironic objects of the namespace (to know who
 * uses us), the objects in the way of our children, with mariadb-operator the Service of the Galera primary, its
 * Backup's CronJob and its Restore, and with Builtin backups the backup Jobs and their pods (by label).
 */
export const customizeIronicDatabase = (request: CustomizeRequest): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const spec = isRecord(request.parent['spec']) ? request.parent['spec'] : {};
  const parsed = parseIronicDatabase(spec);
  // What the spec names, even when it is invalid (the status then says what else is wrong).
  const referenced = [...referenceRules(ironicDatabaseSpecReferences(spec), namespace), usersRule(namespace)];
  const names = databaseNames(request.parent.metadata.name);
  const wanted = parsed.ok ? wantedDatabaseChildren(parsed.model, names) : [];
  // The Service mariadb-operator makes for the Galera primary: the host an Ironic connects to; with backups the
  // CronJob of its Backup (the times of the runs), with a restore its Restore (a failed one).
  const galera = parsed.ok && parsed.model.engine === 'MariaDBOperator' ? parsed.model : undefined;
  const primary =
    galera === undefined
      ? []
      : [
          ...namesRule(SERVICES, namespace, [names.primaryService]),
          ...(galera.backup !== undefined ? namesRule(CRON_JOBS, namespace, [names.mariadbBackup]) : []),
          ...(galera.restore !== undefined ? namesRule(MARIADB_RESTORES, namespace, [names.mariadbRestore]) : []),
        ];
  // The backup Jobs and the pods of backups and restores: the Jobs belong to the CronJob, and pods to their Jobs.
  const builtin = parsed.ok && parsed.model.engine === 'Builtin' ? parsed.model : undefined;
  const components = [...(builtin?.backup !== undefined ? ['backup'] : []), ...(builtin?.restore !== undefined ? ['restore'] : [])];
  const selector = (values: readonly string[]) => ({
    matchLabels: { [LABELS.database]: labelValue(request.parent.metadata.name) },
    matchExpressions: [{ key: LABELS.component, operator: 'In', values }],
  });
  const backups = [
    ...(builtin?.backup !== undefined ? [{ apiVersion: JOBS.apiVersion, resource: JOBS.resource, namespace, labelSelector: selector(['backup']) }] : []),
    ...(components.length > 0 ? [{ apiVersion: PODS.apiVersion, resource: PODS.resource, namespace, labelSelector: selector(components) }] : []),
  ];
  return { relatedResources: [...withWanted([...referenced, ...primary], wanted, namespace), ...backups] };
};

const answer = (request: SyncRequest, ctx: HookContext, finish: typeof finishDatabase): SyncResponse => {
  const view = viewOf(request, ctx.now());
  const prepared = prepareDatabase(view);
  return wire(finish(view, prepared, needsPassword(prepared) ? ctx.secrets.password() : '', ctx.config));
};

/** sync: the children and the status. */
export const syncIronicDatabase = (request: SyncRequest, ctx: HookContext): SyncResponse => answer(request, ctx, finishDatabase);

/** finalize: blocked while an Ironic uses the database, then the children are deleted. */
export const finalizeIronicDatabase = (request: SyncRequest, ctx: HookContext): SyncResponse => answer(request, ctx, finalizeDatabase);
