/**
 * Children of an IronicDatabase: credentials, a MariaDB configuration file, the StatefulSet and its
 * Service (engine Builtin), on the official MariaDB image. The metal3 mariadb-image it replaces: ironic-image.md §5.1.
 */
import { podPullSecrets } from '../shared/pull-secrets.js';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { stamped, toChild, type KubeChild } from '../child.js';
import { LABELS, databaseNames, labelValue, versionAnnotation } from '../names.js';
import { base64, contentHash, databaseLabels, keptRenders, nodeSelection } from '../meta.js';
import { connectionBudget } from '../../api/shared/constants.js';
import { compareQuantities, parseQuantity } from '../../api/shared/quantity.js';
import { restricted } from '../security.js';
import { claimFields, ephemeralVolumes } from '../volume-claim.js';
import { DATABASE_SCHEMA, MARIADB_PORT, type DatabaseRenderInput } from './input.js';
import type { TLSVersion } from '../../api/shared/tls-profile.js';
import { resolveTLSProfile } from '../shared/tls-profiles.js';
import { CREDENTIALS_DIR, MYSQL_UID, TLS_DIR } from '../shared/mariadb.js';

const CONFIG_FILE = 'ironic-database.cnf';
const DATA_VOLUME = 'data';
/** Where the official image reads extra configuration files, on every start. */
const CONFIG_DIR = '/etc/mysql/conf.d';

const selector = (input: DatabaseRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(databaseNames(input.name).statefulSet) });

/**
 * The server settings, the same for both engines: the connection limit (the budget of spec.maxConductors;
 * NOTE: the metal3 image's 64 was fewer than two conductors' default pools), and the character set Ironic
 * asks for (its URL says charset=utf8, utf8mb3 in MariaDB, and its tables are created with it).
 */
export const serverSettings = (input: DatabaseRenderInput): string[] => {
  const budget = connectionBudget(input.model.maxConductors);
  return [
    `max_connections = ${budget.maxConnections}`,
    // Per account (the Builtin engine's user has no limit of its own): Ironic's user never takes the last ones.
    `max_user_connections = ${budget.maxUserConnections}`,
    'character_set_server = utf8mb3',
    'collation_server = utf8mb3_general_ci',
    ...tlsProfileSettings(input),
  ];
};

/** MariaDB's names of the TLS versions, from the lowest up. */
const MARIADB_TLS_VERSIONS: readonly (readonly [TLSVersion, string])[] = [
  ['VersionTLS10', 'TLSv1.0'],
  ['VersionTLS11', 'TLSv1.1'],
  ['VersionTLS12', 'TLSv1.2'],
  ['VersionTLS13', 'TLSv1.3'],
];

/**
 * The profile's versions (`tls_version`: that one and every newer one) and TLS 1.2 cipher suites (`ssl_cipher`,
 * OpenSSL names joined by `:`), only when TLS is on. TLS 1.3 suites stay OpenSSL's, as in every profile.
 */
const tlsProfileSettings = (input: DatabaseRenderInput): string[] => {
  if (input.tls === undefined || input.model.tlsProfile === undefined) return [];
  const profile = resolveTLSProfile(input.model.tlsProfile);
  const from = MARIADB_TLS_VERSIONS.findIndex(([version]) => version === profile.minTLSVersion);
  return [
    `tls_version = ${MARIADB_TLS_VERSIONS.slice(from)
      .map(([, name]) => name)
      .join(',')}`,
    ...(profile.ciphers.length > 0 ? [`ssl_cipher = ${profile.ciphers.join(':')}`] : []),
  ];
};

/**
 * The server configuration, mounted as its own file in /etc/mysql/conf.d, which the official image reads
 * on every start. NOTE: the metal3 image wrote its metal3.cnf only on the first start, so TLS and the
 * connection limit disappeared on the second (ironic-image quirk Q12); a mounted file cannot.
 */
export const mariadbConfig = (input: DatabaseRenderInput): string =>
  [
    '[mariadb]',
    ...serverSettings(input),
    ...(input.tls !== undefined ? [`ssl_cert = ${TLS_DIR}/tls.crt`, `ssl_key = ${TLS_DIR}/tls.key`, 'require_secure_transport = ON'] : []),
    '',
  ].join('\n');

export const renderDatabaseCredentials = (input: DatabaseRenderInput): ISecret | undefined =>
  input.credentials.generated
    ? {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: input.credentials.secretName, namespace: input.namespace, labels: databaseLabels(input.name) },
        type: 'kubernetes.io/basic-auth',
        data: { username: base64(input.credentials.username), password: base64(input.credentials.password) },
      }
    : undefined;

export const renderDatabaseConfig = (input: DatabaseRenderInput): IConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: databaseNames(input.name).config, namespace: input.namespace, labels: databaseLabels(input.name) },
  data: { [CONFIG_FILE]: mariadbConfig(input) },
});

/** The official image's healthcheck.sh, with the healthcheck user its entrypoint creates (first start or upgrade). */
const probe = (checks: readonly string[], failureThreshold: number): IProbe => ({
  exec: { command: ['healthcheck.sh', ...checks] },
  initialDelaySeconds: 5,
  periodSeconds: 10,
  timeoutSeconds: 5,
  successThreshold: 1,
  failureThreshold,
});

/**
 * The documented variables of the official image's entrypoint. It creates the database, the user (from the
 * credentials files) and root only when the data directory has no `mysql` directory yet; otherwise (a data
 * directory of an earlier start, or of the metal3 image) it keeps every user as it is and, with
 * MARIADB_AUTO_UPGRADE, upgrades the system tables and adds its healthcheck user.
 */
const mariadbEnv = (): { name: string; value: string }[] => [
  { name: 'MARIADB_DATABASE', value: DATABASE_SCHEMA },
  { name: 'MARIADB_USER_FILE', value: `${CREDENTIALS_DIR}/username` },
  { name: 'MARIADB_PASSWORD_FILE', value: `${CREDENTIALS_DIR}/password` },
  // The host part of the SQL account: Ironic connects from other pods.
  { name: 'MARIADB_USER_HOST', value: '%' },
  // root exists only on the socket, inside the pod (its password is the user's: no other secret to keep).
  { name: 'MARIADB_ROOT_HOST', value: 'localhost' },
  { name: 'MARIADB_ROOT_PASSWORD_FILE', value: `${CREDENTIALS_DIR}/password` },
  { name: 'MARIADB_AUTO_UPGRADE', value: '1' },
];

/**
 * The container's start. The official entrypoint creates the user from the credentials files on the first start
 * only, so a new password (or user name) in the credentials Secret never reached MariaDB. On every later start
 * (the data directory has its `mysql` schema) this writes SQL that creates the user if it is missing and sets the
 * passwords of the user and of root@localhost from the mounted files, and hands it to mariadbd as --init-file,
 * which the server runs before it accepts connections. Values are read with `$(< file)` and escaped for an SQL
 * string literal exactly as the entrypoint reads and escapes MARIADB_*_FILE values; the SQL goes to the `run`
 * emptyDir (memory), readable by MariaDB's user only. The first start is the entrypoint's own, unchanged. A change
 * of the credentials restarts the pod (the `credentials-version` annotation), so it is applied within one restart.
 * The paths can be moved with DATADIR, CREDENTIALS_DIR and CREDENTIALS_SQL (the tests run it with a real mariadbd).
 */
export const MARIADB_START_SCRIPT = [
  'set -euo pipefail',
  'datadir="${DATADIR:-/var/lib/mysql}"',
  'credentials="${CREDENTIALS_DIR:-/auth/mariadb}"',
  'sql="${CREDENTIALS_SQL:-/run/mysqld/credentials.sql}"',
  'if [ -d "$datadir/mysql" ]; then',
  '  escape() {',
  "    local newline=$'\\n'",
  '    local escaped=${1//\\\\/\\\\\\\\}',
  '    escaped="${escaped//$newline/\\\\n}"',
  "    printf '%s' \"${escaped//\\'/\\\\\\'}\"",
  '  }',
  '  user="$(escape "$(< "$credentials/username")")"',
  '  password="$(escape "$(< "$credentials/password")")"',
  '  umask 077',
  '  {',
  "    printf '%s\\n' \"SET @@SESSION.SQL_MODE = REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', '');\"",
  "    printf '%s\\n' \"CREATE USER IF NOT EXISTS '$user'@'%' IDENTIFIED BY '$password';\"",
  "    printf '%s\\n' \"ALTER USER '$user'@'%' IDENTIFIED BY '$password';\"",
  "    printf '%s\\n' \"GRANT ALL ON \\`ironic\\`.* TO '$user'@'%';\"",
  "    printf '%s\\n' \"ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY '$password';\"",
  '  } > "$sql"',
  '  set -- "$@" "--init-file=$sql"',
  'fi',
  'exec docker-entrypoint.sh "$@"',
  '',
].join('\n');

const mariadbContainer = (input: DatabaseRenderInput): IContainer => ({
  name: 'mariadb',
  image: input.model.image ?? input.config.images.mariadb,
  command: ['bash', '-c', MARIADB_START_SCRIPT, 'start-mariadb', 'mariadbd'],
  env: mariadbEnv(),
  ports: [{ name: 'mariadb', containerPort: MARIADB_PORT, protocol: 'TCP' }],
  volumeMounts: [
    { name: DATA_VOLUME, mountPath: '/var/lib/mysql' },
    // Credentials are read from files, never from the environment.
    { name: 'credentials', mountPath: CREDENTIALS_DIR, readOnly: true },
    { name: 'config', mountPath: `${CONFIG_DIR}/${CONFIG_FILE}`, subPath: CONFIG_FILE, readOnly: true },
    { name: 'tmp', mountPath: '/tmp' },
    // The socket and pid file: the root file system stays read-only.
    { name: 'run', mountPath: '/run/mysqld' },
    ...(input.tls !== undefined ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
  ],
  ...(input.model.resources !== undefined && { resources: input.model.resources }),
  // --connect fails while the entrypoint's temporary server (no networking) initializes or upgrades.
  startupProbe: { ...probe(['--connect', '--innodb_initialized'], 60), periodSeconds: 5 },
  livenessProbe: probe(['--connect'], 6),
  readinessProbe: probe(['--connect', '--innodb_initialized'], 3),
  securityContext: restricted(MYSQL_UID, MYSQL_UID),
});

const volumes = (input: DatabaseRenderInput): IVolume[] => [
  ...ephemeralVolumes(input, DATA_VOLUME),
  { name: 'credentials', secret: { secretName: input.credentials.secretName, defaultMode: 0o440 } },
  { name: 'config', configMap: { name: databaseNames(input.name).config } },
  { name: 'tmp', emptyDir: { medium: 'Memory' } },
  { name: 'run', emptyDir: { medium: 'Memory' } },
  ...(input.tls !== undefined ? [{ name: 'tls', secret: { secretName: input.tls.secretName, defaultMode: 0o440 } }] : []),
];

export const renderDatabaseStatefulSet = (input: DatabaseRenderInput): IStatefulSet => stamped(statefulSet(input));

const statefulSet = (input: DatabaseRenderInput): IStatefulSet => {
  const names = databaseNames(input.name);
  const annotations = {
    [versionAnnotation('config')]: contentHash(mariadbConfig(input)),
    [versionAnnotation('credentials')]: input.credentialsVersion,
    ...(input.tls !== undefined && { [versionAnnotation('tls-secret')]: input.tls.hash }),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet, namespace: input.namespace, labels: databaseLabels(input.name) },
    spec: {
      replicas: 1,
      serviceName: names.service,
      selector: { matchLabels: selector(input) },
      // NOTE: the data volume outlives the IronicDatabase unless the spec asks otherwise.
      ...claimFields(input, { volume: DATA_VOLUME, labels: databaseLabels(input.name), whenDeleted: input.model.storage.whenDeleted }),
      template: {
        metadata: { labels: { ...selector(input), ...databaseLabels(input.name) }, annotations },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { fsGroup: MYSQL_UID, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
          ...nodeSelection(input.model.nodeSelector),
          ...(input.model.priorityClassName !== undefined && { priorityClassName: input.model.priorityClassName }),
          ...podPullSecrets(input.model.imagePullSecrets, input.config, []),
          containers: [mariadbContainer(input)],
          volumes: volumes(input),
        },
      },
    },
  };
};

export const renderDatabaseService = (input: DatabaseRenderInput): IService => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: databaseNames(input.name).service, namespace: input.namespace, labels: databaseLabels(input.name) },
  spec: { type: 'ClusterIP', selector: selector(input), ports: [{ name: 'mariadb', port: MARIADB_PORT, targetPort: 'mariadb', protocol: 'TCP' }] },
});

/** Every child of an IronicDatabase, in a fixed order; kept (keptRenders): equal inputs get the same frozen children. */
export const renderDatabaseChildren: (input: DatabaseRenderInput) => KubeChild[] = keptRenders((input: DatabaseRenderInput) =>
  [renderDatabaseCredentials(input), renderDatabaseConfig(input), renderDatabaseStatefulSet(input), renderDatabaseService(input)]
    // No compact(): observed claim templates are re-emitted exactly as observed (nulls included).
    .filter((c) => c !== undefined)
    .map(toChild),
);

/** The size the existing claim template asks for, when it differs from spec.storage.size. */
export const pendingResize = (input: DatabaseRenderInput): { readonly from: string; readonly to: string } | undefined => {
  const template = (input.observedClaimTemplates ?? [])[0] as { spec?: { resources?: { requests?: { storage?: unknown } } } } | undefined;
  const current = template?.spec?.resources?.requests?.storage;
  const wanted = input.model.storage.size;
  if (typeof current !== 'string') return undefined;
  const [a, b] = [parseQuantity(current), parseQuantity(wanted)];
  const same = a !== undefined && b !== undefined ? compareQuantities(a, b) === 0 : current === wanted;
  return same ? undefined : { from: current, to: wanted };
};
