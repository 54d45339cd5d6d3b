/**
 * Backups of a Builtin IronicDatabase (spec.backup): a CronJob on the database's own MariaDB image that dumps
 * the ironic schema over the network as Ironic's user, and the PersistentVolumeClaim the dumps are kept on.
 * The restore script reads what the backup script writes.
 */
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { DatabaseBackupModel } from '../../api/model.js';
import { databaseNames, LABELS, labelValue } from '../names.js';
import { databaseLabels, nodeSelection } from '../meta.js';
import { restricted } from '../security.js';
import { CREDENTIALS_DIR, MYSQL_UID, TLS_DIR } from './render.js';
import { MARIADB_PORT, type DatabaseRenderInput } from './input.js';

/** The labels of a database's backup Jobs and pods, which its customize hook selects them by. */
export const backupLabels = (name: string, component: 'backup' | 'restore' = 'backup'): Record<string, string> => ({
  [LABELS.database]: labelValue(name),
  [LABELS.component]: component,
});

/** Where the backup volume is mounted. */
export const BACKUP_DIR = '/backups';
/** The name of a complete backup; anything else in the backup directory is not one. */
export const BACKUP_FILE_PATTERN = /^ironic-[0-9]{8}T[0-9]{6}Z\.sql\.gz$/;

/**
 * The client options of both scripts, written to a file only MariaDB's user reads (mktemp -d, umask 077): the
 * user and password read from the mounted credentials files (never from the environment), the database
 * Service over TCP, and the CA of the server certificate when the database uses TLS.
 */
const CLIENT_OPTIONS = [
  'credentials="${CREDENTIALS_DIR:-/auth/mariadb}"',
  'dir="${BACKUP_DIR:-/backups}"',
  ': "${DATABASE_HOST:?the database host}" "${DATABASE_PORT:?the database port}"',
  'umask 077',
  'work="$(mktemp -d)"',
  'partial=""',
  'trap \'rm -rf -- "$work"; if [ -n "$partial" ]; then rm -f -- "$partial"; fi\' EXIT',
  '{',
  '  printf \'[client]\\nprotocol=tcp\\nhost=%s\\nport=%s\\n\' "$DATABASE_HOST" "$DATABASE_PORT"',
  '  printf \'user=%s\\npassword=%s\\n\' "$(< "$credentials/username")" "$(< "$credentials/password")"',
  '  if [ -n "${DATABASE_CA:-}" ]; then',
  '    printf \'ssl-ca=%s\\n\' "$DATABASE_CA"',
  '  fi',
  '} > "$work/client.cnf"',
];

/**
 * The backup: `mariadb-dump --single-transaction` of the ironic schema (one consistent snapshot, no locks on
 * Ironic's InnoDB tables), through gzip into a hidden `.ironic-<UTC time>.sql.gz.partial`, checked, then renamed
 * to `ironic-<UTC time>.sql.gz`: only a complete dump ever has a backup's name. `pipefail` makes a failed dump
 * (or gzip, or a full volume) fail the script, and so the Job. A run that is killed midway leaves at most a hidden
 * partial file, which the next run deletes. Then the retention prunes the oldest backups: by count
 * (RETENTION_COUNT), then by age (RETENTION_MAX_AGE_MINUTES); the backup just taken is always kept. Paths and the
 * server can be moved with CREDENTIALS_DIR, BACKUP_DIR, DATABASE_HOST, DATABASE_PORT (the tests run it against a
 * real MariaDB). NOTE: --skip-add-locks writes no LOCK TABLES around the rows, which Galera does not support, so
 * that mariadb-operator's Restore can replay the file into a Galera cluster (README, moving to Galera).
 */
export const BACKUP_SCRIPT = [
  'set -euo pipefail',
  ...CLIENT_OPTIONS,
  'shopt -s nullglob',
  'rm -f -- "$dir"/.ironic-*.partial',
  'name="ironic-$(date -u +%Y%m%dT%H%M%SZ).sql.gz"',
  'partial="$dir/.$name.partial"',
  'mariadb-dump --defaults-file="$work/client.cnf" --single-transaction --quick --skip-lock-tables --skip-add-locks --no-tablespaces --hex-blob --triggers ironic | gzip -c > "$partial"',
  'gzip -t "$partial"',
  'sync "$partial"',
  'mv -- "$partial" "$dir/$name"',
  'partial=""',
  'echo "backup $name written ($(stat -c %s "$dir/$name") bytes)"',
  // The file's name as the pod's termination message, for the IronicDatabase's status.
  'log="${TERMINATION_LOG:-/dev/termination-log}"',
  'if [ -w "$log" ]; then',
  '  printf \'%s\' "$name" > "$log"',
  'fi',
  'backups=("$dir"/ironic-*.sql.gz)',
  'keep="${RETENTION_COUNT:-0}"',
  'if [ "$keep" -gt 0 ] && [ "${#backups[@]}" -gt "$keep" ]; then',
  '  for old in "${backups[@]:0:${#backups[@]}-keep}"; do',
  '    rm -f -- "$old"',
  '    echo "pruned ${old##*/} (more than $keep backups)"',
  '  done',
  'fi',
  'age="${RETENTION_MAX_AGE_MINUTES:-0}"',
  'if [ "$age" -gt 0 ]; then',
  '  find "$dir" -maxdepth 1 -type f -name "ironic-*.sql.gz" ! -name "$name" -mmin "+$age" -printf "pruned %f (older than $age minutes)\\n" -delete',
  'fi',
  '',
].join('\n');

/**
 * The restore: RESTORE_FROM names a backup file of the backup directory, or is `latest` (the newest). The whole
 * file is checked before any statement runs: a corrupt or truncated gzip, or a dump without mariadb-dump's
 * closing `-- Dump completed` line, fails with nothing changed. Then the ironic schema is created if missing and
 * the dump is replayed into it (its tables are dropped and created again, so a second run gives the same result).
 */
export const RESTORE_SCRIPT = [
  'set -euo pipefail',
  ...CLIENT_OPTIONS,
  'from="${RESTORE_FROM:?the backup to restore, or latest}"',
  'shopt -s nullglob',
  'if [ "$from" = latest ]; then',
  '  backups=("$dir"/ironic-*.sql.gz)',
  '  if [ "${#backups[@]}" -eq 0 ]; then',
  '    echo "restore failed: there is no backup (ironic-*.sql.gz) in the backup volume" >&2',
  '    exit 1',
  '  fi',
  '  file="${backups[-1]}"',
  'else',
  '  file="$dir/$from"',
  '  if [ ! -f "$file" ]; then',
  '    echo "restore failed: there is no backup $from in the backup volume" >&2',
  '    exit 1',
  '  fi',
  'fi',
  'echo "restoring ${file##*/}"',
  'if ! gzip -t "$file"; then',
  '  echo "restore failed: ${file##*/} is corrupt (not a complete gzip file); nothing was changed" >&2',
  '  exit 1',
  'fi',
  'if [ "$(gzip -dc "$file" | tail -n 1 | cut -c 1-17)" != "-- Dump completed" ]; then',
  '  echo "restore failed: ${file##*/} is not a complete mariadb-dump (no closing -- Dump completed line); nothing was changed" >&2',
  '  exit 1',
  'fi',
  'mariadb --defaults-file="$work/client.cnf" -e \'CREATE DATABASE IF NOT EXISTS `ironic`\'',
  'gzip -dc "$file" | mariadb --defaults-file="$work/client.cnf" --database=ironic',
  'echo "restored ${file##*/}"',
  'log="${TERMINATION_LOG:-/dev/termination-log}"',
  'if [ -w "$log" ]; then',
  '  printf \'%s\' "${file##*/}" > "$log"',
  'fi',
  '',
].join('\n');

/** The environment of both scripts: where the database is (none of it secret). */
const serverEnv = (input: DatabaseRenderInput): { name: string; value: string }[] => [
  { name: 'DATABASE_HOST', value: `${databaseNames(input.name).service}.${input.namespace}.svc` },
  { name: 'DATABASE_PORT', value: String(MARIADB_PORT) },
  ...(input.tls !== undefined ? [{ name: 'DATABASE_CA', value: `${TLS_DIR}/ca.crt` }] : []),
];

/** The retention, for the backup script. */
const retentionEnv = (backup: DatabaseBackupModel): { name: string; value: string }[] => [
  ...(backup.keepCount !== undefined ? [{ name: 'RETENTION_COUNT', value: String(backup.keepCount) }] : []),
  ...(backup.maxAgeMinutes !== undefined ? [{ name: 'RETENTION_MAX_AGE_MINUTES', value: String(backup.maxAgeMinutes) }] : []),
];

type ScriptPod = {
  readonly container: Pick<IContainer, 'name' | 'command'>;
  readonly claimName: string;
  readonly readOnly: boolean;
  readonly env: { name: string; value: string }[];
};

/** The pod of a backup or restore run: the script as MariaDB's user, the credentials and the backup volume. */
const scriptPodSpec = (input: DatabaseRenderInput, pod: ScriptPod): IPodSpec => {
  const volumes: IVolume[] = [
    { name: 'credentials', secret: { secretName: input.credentials.secretName, defaultMode: 0o440 } },
    { name: 'backups', persistentVolumeClaim: { claimName: pod.claimName, ...(pod.readOnly && { readOnly: true }) } },
    { name: 'tmp', emptyDir: { medium: 'Memory' } },
    // Only the CA: the server's private key stays out of the backup pod.
    ...(input.tls !== undefined
      ? [{ name: 'tls', secret: { secretName: input.tls.secretName, defaultMode: 0o440, items: [{ key: input.tls.caKey, path: 'ca.crt' }] } }]
      : []),
  ];
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: { fsGroup: MYSQL_UID, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
    ...nodeSelection(input.model.nodeSelector),
    ...(input.model.priorityClassName !== undefined && { priorityClassName: input.model.priorityClassName }),
    containers: [
      {
        ...pod.container,
        image: input.model.image ?? input.config.images.mariadb,
        env: [...serverEnv(input), ...pod.env],
        volumeMounts: [
          { name: 'credentials', mountPath: CREDENTIALS_DIR, readOnly: true },
          { name: 'backups', mountPath: BACKUP_DIR, ...(pod.readOnly && { readOnly: true }) },
          { name: 'tmp', mountPath: '/tmp' },
          ...(input.tls !== undefined ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
        ],
        // A failed run's log tail is its termination message: the failure's reason in the IronicDatabase's status.
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext: restricted(MYSQL_UID, MYSQL_UID),
      },
    ],
    volumes,
  };
};

/** The claim the backups are kept on (destination persistentVolumeClaim). */
export const renderBackupClaim = (input: DatabaseRenderInput, backup: DatabaseBackupModel): IPersistentVolumeClaim | undefined =>
  backup.destination.kind === 'PersistentVolumeClaim'
    ? {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: databaseNames(input.name).backupClaim, namespace: input.namespace, labels: databaseLabels(input.name) },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: backup.destination.size } },
          ...(backup.destination.storageClassName !== undefined && { storageClassName: backup.destination.storageClassName }),
        },
      }
    : undefined;

/**
 * The CronJob of scheduled backups, in UTC. One run at a time (Forbid): a slow dump is never doubled. A failed
 * dump fails its Job, retried twice; the last three successful and failed Jobs are kept for their logs.
 */
export const renderBackupCronJob = (input: DatabaseRenderInput, backup: DatabaseBackupModel): ICronJob => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: databaseNames(input.name).backupCronJob, namespace: input.namespace, labels: databaseLabels(input.name) },
  spec: {
    schedule: backup.schedule,
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    // A run missed by more than an hour (the controller was down) is skipped, not started late in a burst.
    startingDeadlineSeconds: 3600,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 3,
    jobTemplate: {
      metadata: { labels: { ...databaseLabels(input.name), ...backupLabels(input.name) } },
      spec: {
        backoffLimit: 2,
        template: {
          metadata: { labels: { ...databaseLabels(input.name), ...backupLabels(input.name) } },
          spec: scriptPodSpec(input, {
            container: { name: 'backup', command: ['bash', '-c', BACKUP_SCRIPT, 'backup-database'] },
            claimName: databaseNames(input.name).backupClaim,
            readOnly: false,
            env: retentionEnv(backup),
          }),
        },
      },
    },
  },
});

/** The backup children of a Builtin IronicDatabase with spec.backup: its volume and its CronJob. */
export const renderBackupChildren = (input: DatabaseRenderInput): (IPersistentVolumeClaim | ICronJob)[] => {
  const backup = input.model.backup;
  if (backup === undefined || input.model.engine !== 'Builtin') return [];
  const claim = renderBackupClaim(input, backup);
  return [...(claim !== undefined ? [claim] : []), renderBackupCronJob(input, backup)];
};

/**
 * The Job that fills a new database from a backup (spec.restoreFrom), read-only on the claim that holds it. It is
 * retried twice (the restore replays the whole dump, tables dropped first, so a retry gives the same result); when
 * it fails, the database's status says why, and it runs again once its Job is deleted.
 */
export const renderRestoreJob = (input: DatabaseRenderInput, restore: { readonly backup: string; readonly claimName?: string }): IJob => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: databaseNames(input.name).restoreJob,
    namespace: input.namespace,
    labels: { ...databaseLabels(input.name), ...backupLabels(input.name, 'restore') },
  },
  spec: {
    backoffLimit: 2,
    template: {
      metadata: { labels: { ...databaseLabels(input.name), ...backupLabels(input.name, 'restore') } },
      spec: scriptPodSpec(input, {
        container: { name: 'restore', command: ['bash', '-c', RESTORE_SCRIPT, 'restore-database'] },
        claimName: restore.claimName ?? databaseNames(input.name).backupClaim,
        readOnly: true,
        env: [{ name: 'RESTORE_FROM', value: restore.backup }],
      }),
    },
  },
});
