/**
 * The backup and restore runs of a Builtin IronicDatabase, shared by the two kinds that start them: the database
 * (its CronJob and its restore Job) and an Ironic (the backup Job before a version upgrade). Both run the same
 * script in the same pod, on the database's backup volume, so that every backup has the same name pattern, the
 * same retention, and is seen by `restoreFrom: latest`. The restore script reads what the backup script writes.
 */
import type { IJobSpec } from 'kubernetes-models/batch/v1/JobSpec';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { databaseNames, LABELS, labelValue } from '../names.js';
import { databaseLabels, nodeSelection } from '../meta.js';
import { restricted } from '../security.js';
import { CREDENTIALS_DIR, MARIADB_PORT, MYSQL_UID, TLS_DIR } from './mariadb.js';
import { pullSecretRefs } from './pull-secrets.js';

/** How many backups the backup script keeps, by count and/or by age. */
export type BackupRetentionInput = { readonly keepCount?: number; readonly maxAgeMinutes?: number };

/**
 * What a backup or restore pod needs of its IronicDatabase: the database's name (its Service and labels derive from
 * it), where it runs, the MariaDB image, the Secrets of its credentials and of its certificate's CA.
 */
export type ScriptPodInput = {
  /** The IronicDatabase's name. */
  readonly database: string;
  readonly namespace: string;
  readonly image: string;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly priorityClassName?: string;
  readonly credentialsSecretName: string;
  readonly tls?: { readonly secretName: string; readonly caKey: string };
  /** The pod's imagePullSecrets: the database's (and, for the Ironic's Job, the Ironic's too). */
  readonly imagePullSecrets: readonly string[];
};

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
  // The file's name and size as the pod's termination message, for the IronicDatabase's status.
  'log="${TERMINATION_LOG:-/dev/termination-log}"',
  'if [ -w "$log" ]; then',
  '  printf \'%s %s\' "$name" "$(stat -c %s "$dir/$name")" > "$log"',
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
const serverEnv = (input: ScriptPodInput): { name: string; value: string }[] => [
  { name: 'DATABASE_HOST', value: `${databaseNames(input.database).service}.${input.namespace}.svc` },
  { name: 'DATABASE_PORT', value: String(MARIADB_PORT) },
  ...(input.tls !== undefined ? [{ name: 'DATABASE_CA', value: `${TLS_DIR}/ca.crt` }] : []),
];

/** The retention, for the backup script. */
const retentionEnv = (retention: BackupRetentionInput): { name: string; value: string }[] => [
  ...(retention.keepCount !== undefined ? [{ name: 'RETENTION_COUNT', value: String(retention.keepCount) }] : []),
  ...(retention.maxAgeMinutes !== undefined ? [{ name: 'RETENTION_MAX_AGE_MINUTES', value: String(retention.maxAgeMinutes) }] : []),
];

export type ScriptPod = {
  readonly container: Pick<IContainer, 'name' | 'command'>;
  readonly claimName: string;
  readonly readOnly: boolean;
  readonly env: { name: string; value: string }[];
};

/** The pod of a backup or restore run: the script as MariaDB's user, the credentials and the backup volume. */
export const scriptPodSpec = (input: ScriptPodInput, pod: ScriptPod): IPodSpec => {
  const volumes: IVolume[] = [
    { name: 'credentials', secret: { secretName: input.credentialsSecretName, defaultMode: 0o440 } },
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
    ...nodeSelection(input.nodeSelector),
    ...(input.priorityClassName !== undefined && { priorityClassName: input.priorityClassName }),
    ...pullSecretRefs(input.imagePullSecrets),
    containers: [
      {
        ...pod.container,
        image: input.image,
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

/**
 * The spec of one backup run: the backup script with the retention, on the database's backup volume, retried
 * twice. The CronJob's jobTemplate and the Job an Ironic runs before an upgrade are both this one.
 */
export const backupJobSpec = (input: ScriptPodInput, retention: BackupRetentionInput): IJobSpec => ({
  backoffLimit: 2,
  template: {
    metadata: { labels: { ...databaseLabels(input.database), ...backupLabels(input.database) } },
    spec: scriptPodSpec(input, {
      container: { name: 'backup', command: ['bash', '-c', BACKUP_SCRIPT, 'backup-database'] },
      claimName: databaseNames(input.database).backupClaim,
      readOnly: false,
      env: retentionEnv(retention),
    }),
  },
});
