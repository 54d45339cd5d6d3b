/**
 * Validation of an IronicDatabase spec: the TypeBox schema first, then a few semantic rules on storage,
 * resources and the node selector. Every problem is reported.
 */
import { imagePullSecretsProblems } from '../shared/pull-secrets.js';
import { DEFAULT_DATABASE_ENGINE, DEFAULT_DATABASE_SIZE, type DatabaseEngine } from '../shared/constants.js';
import { cronProblem } from '../shared/cron.js';
import { tlsProfileProblems } from '../shared/tls-profile.js';
import { registerFormats } from '../shared/formats.js';
import { nodeSelectorProblems } from '../shared/labels.js';
import { DEFAULT_GALERA_BACKUP_MAX_AGE, GALERA_SHRINK_MESSAGE, IronicDatabaseSpec } from './schema.js';
import { compiledCheck, problem, schemaProblems, withoutThrowing, type Problem } from '../shared/problems.js';
import { compareQuantities, parseQuantity } from '../shared/quantity.js';
import { storageClassMessage } from '../shared/storage.js';
import { storageProblems } from '../shared/validate-storage.js';
import { quantityProblems, requestsAboveLimits } from '../validate-resources.js';

/** What the rules about changes read of the previous spec: its engine and storage, defaulted. */
type Previous = { readonly engine: DatabaseEngine; readonly size: string; readonly storageClassName: string };

type Rule = (spec: IronicDatabaseSpec, previous: Previous | undefined) => Problem[];

const engineOf = (spec: { readonly engine?: unknown } | undefined): DatabaseEngine =>
  spec?.engine === 'MariaDBOperator' ? 'MariaDBOperator' : DEFAULT_DATABASE_ENGINE;

const engineUnchanged: Rule = (spec, previous) =>
  previous !== undefined && engineOf(spec) !== previous.engine
    ? [
        problem(
          'spec.engine',
          `engine cannot be changed once the database exists: the data stays with the engine that wrote it (${previous.engine}); create a new IronicDatabase with the other engine instead, or set engine back to ${previous.engine}`,
        ),
      ]
    : [];

/** Whether the spec and the previous one are both Galera clusters of mariadb-operator, whose webhook refuses some changes. */
const bothGalera = (spec: IronicDatabaseSpec, previous: Previous | undefined): previous is Previous =>
  previous?.engine === 'MariaDBOperator' && engineOf(spec) === 'MariaDBOperator';

// mariadb-operator's webhook refuses a MariaDB whose storage shrinks (mariadb_webhook.go).
const galeraSizeNotDecreased: Rule = (spec, previous) => {
  if (!bothGalera(spec, previous)) return [];
  const [size, before] = [parseQuantity(spec.storage?.size ?? DEFAULT_DATABASE_SIZE), parseQuantity(previous.size)];
  return size !== undefined && before !== undefined && compareQuantities(size, before) < 0
    ? [problem('spec.storage.size', `${GALERA_SHRINK_MESSAGE} (its volumes have ${previous.size})`)]
    : [];
};

// mariadb-operator's webhook refuses a new storageClassName of a MariaDB (an immutable field). The CRD refuses
// it for both engines; for Builtin the renderer keeps the claim template of the StatefulSet instead.
const galeraStorageClassUnchanged: Rule = (spec, previous) => {
  if (!bothGalera(spec, previous) || (spec.storage?.storageClassName ?? '') === previous.storageClassName) return [];
  const current = previous.storageClassName === '' ? 'the cluster default' : `class ${previous.storageClassName}`;
  return [problem('spec.storage.storageClassName', `${storageClassMessage('database')} (its volumes use ${current})`)];
};

const replicasNeedOperator: Rule = (spec) =>
  spec.replicas !== undefined && engineOf(spec) !== 'MariaDBOperator'
    ? [
        problem(
          'spec.replicas',
          'replicas is only for engine MariaDBOperator: the Builtin engine runs one MariaDB pod; remove replicas, or set engine to MariaDBOperator on a new IronicDatabase',
        ),
      ]
    : [];

/** The archived metal3 mariadb-image: its start is not the official entrypoint the Builtin container runs. */
const METAL3_MARIADB_IMAGE = /(^|\/)metal3-io\/mariadb([:@]|$)/;

const builtinImageOfficial: Rule = (spec) =>
  engineOf(spec) === 'Builtin' && spec.image !== undefined && METAL3_MARIADB_IMAGE.test(spec.image)
    ? [
        problem(
          'spec.image',
          `image ${spec.image} is the archived metal3 mariadb-image, which the Builtin engine no longer runs (it starts the official image's docker-entrypoint.sh): remove image to use the default, or set an official MariaDB image such as docker.io/library/mariadb:11.8; the data directory is used as it is`,
        ),
      ]
    : [];

const replicasOdd: Rule = (spec) =>
  spec.replicas !== undefined && spec.replicas % 2 === 0
    ? [
        problem(
          'spec.replicas',
          `replicas must be odd (3, 5, 7 or 9), but it is ${spec.replicas}: Galera keeps working while a majority of its nodes is up, and an even number adds a node without surviving one more failure`,
        ),
      ]
    : [];

// mariadb-operator's webhook refuses it: "ephemeral storage is only compatible with non HA MariaDBs".
const ephemeralNeedsBuiltin: Rule = (spec) =>
  spec.storage?.ephemeral === true && engineOf(spec) === 'MariaDBOperator'
    ? [
        problem(
          'spec.storage.ephemeral',
          'storage.ephemeral cannot be used with engine MariaDBOperator: mariadb-operator keeps the data of a Galera cluster on volumes only (it refuses ephemeral storage for a cluster); remove storage.ephemeral, or use engine Builtin for a throwaway database',
        ),
      ]
    : [];

const storageValid: Rule = (spec) => storageProblems(spec.storage, DEFAULT_DATABASE_SIZE);

// NOTE: the int-or-string pattern of common.ts sits on the union, where TypeBox does not apply it, so the
// syntax of quantity strings is checked here, by the same rules (and messages) as an Ironic's resources.
const quantitiesValid: Rule = (spec) => [
  ...quantityProblems('spec.resources.requests', spec.resources?.requests ?? {}),
  ...quantityProblems('spec.resources.limits', spec.resources?.limits ?? {}),
];

// Only pairs whose quantities both parse are compared; quantitiesValid reports the others.
const requestsWithinLimits: Rule = (spec) => requestsAboveLimits('spec.resources', spec.resources ?? {});

const backupScheduleValid: Rule = (spec) => {
  const why = spec.backup === undefined ? undefined : cronProblem(spec.backup.schedule);
  return why === undefined ? [] : [problem('spec.backup.schedule', `schedule "${spec.backup?.schedule ?? ''}" is not a valid CronJob schedule: ${why}`)];
};

const backupOneDestination: Rule = (spec) =>
  spec.backup?.s3 !== undefined && spec.backup.persistentVolumeClaim !== undefined
    ? [problem('spec.backup', 'backup has one destination: persistentVolumeClaim or s3, not both; remove one of them')]
    : [];

// The official MariaDB image has no S3 client: the Builtin CronJob and restore Job cannot reach a bucket.
const s3NeedsOperator: Rule = (spec) =>
  engineOf(spec) !== 'Builtin'
    ? []
    : [
        ...(spec.backup?.s3 !== undefined
          ? [
              problem(
                'spec.backup.s3',
                'backup.s3 cannot be used with engine Builtin: its CronJob runs on the official MariaDB image, which has no S3 client; remove s3 to back up to the persistentVolumeClaim (the default), and copy the files to a bucket from there if needed',
              ),
            ]
          : []),
        ...(spec.restoreFrom?.s3 !== undefined
          ? [
              problem(
                'spec.restoreFrom.s3',
                'restoreFrom.s3 cannot be used with engine Builtin: its restore Job runs on the official MariaDB image, which has no S3 client; copy the file into a claim of this namespace and name it in restoreFrom.claimName',
              ),
            ]
          : []),
      ];

const restoreOneSource: Rule = (spec) =>
  spec.restoreFrom?.s3 !== undefined && spec.restoreFrom.claimName !== undefined
    ? [problem('spec.restoreFrom', 'restoreFrom has one source: claimName or s3, not both; remove one of them')]
    : [];

// A CA is handed to the S3 client only over HTTPS (mariadb-operator's tls.caSecretKeyRef).
const s3CANeedsTLS: Rule = (spec) =>
  (
    [
      ['spec.backup.s3', spec.backup?.s3],
      ['spec.restoreFrom.s3', spec.restoreFrom?.s3],
    ] as const
  ).flatMap(([path, s3]) =>
    s3?.caSecretName !== undefined && s3.tls === false
      ? [problem(`${path}.caSecretName`, 's3.caSecretName needs tls: a CA is only used over HTTPS; remove caSecretName, or tls: false')]
      : [],
  );

// mariadb-operator's Backup prunes by age only (spec.maxRetention): a count has nothing to map to.
const galeraRetentionByAge: Rule = (spec) =>
  spec.backup?.retention?.count !== undefined && engineOf(spec) === 'MariaDBOperator'
    ? [
        problem(
          'spec.backup.retention.count',
          `retention.count cannot be used with engine MariaDBOperator: mariadb-operator's Backup prunes backups by age only (maxRetention); remove count and set retention.maxAge (without it, backups older than ${DEFAULT_GALERA_BACKUP_MAX_AGE} are deleted)`,
        ),
      ]
    : [];

/** Each engine reads the backup files it writes: the Builtin restore `ironic-<time>.sql.gz`, mariadb-operator `backup.<time>.sql…`. */
const restoreFileOfEngine: Rule = (spec) => {
  const backup = spec.restoreFrom?.backup;
  if (backup === undefined || backup === 'latest') return [];
  if (engineOf(spec) === 'Builtin' && backup.startsWith('backup.'))
    return [
      problem(
        'spec.restoreFrom.backup',
        `restoreFrom.backup ${backup} is a file of mariadb-operator's backups: with engine Builtin it is latest or a file ironic-<UTC time>.sql.gz of a Builtin backup`,
      ),
    ];
  if (engineOf(spec) === 'MariaDBOperator' && backup.startsWith('ironic-'))
    return [
      problem(
        'spec.restoreFrom.backup',
        `restoreFrom.backup ${backup} is a file of a Builtin backup, which mariadb-operator does not find by that name: use latest or a file backup.<UTC time>.sql.gz; to move a Builtin backup to Galera, copy it into a claim as backup.<its UTC time>.sql.gz (README, section Backups and restore)`,
      ),
    ];
  return [];
};

const nodeSelectorKeys: Rule = (spec) => nodeSelectorProblems('spec.nodeSelector', spec.nodeSelector);

/** The semantic rules, in order. */
const tlsProfileValid: Rule = (spec) => tlsProfileProblems(spec.tlsProfile, 'spec.tlsProfile');

const RULES: readonly Rule[] = [
  tlsProfileValid,
  engineUnchanged,
  galeraSizeNotDecreased,
  galeraStorageClassUnchanged,
  replicasNeedOperator,
  builtinImageOfficial,
  replicasOdd,
  ephemeralNeedsBuiltin,
  storageValid,
  quantitiesValid,
  requestsWithinLimits,
  nodeSelectorKeys,
  (spec) => imagePullSecretsProblems(spec.imagePullSecrets),
  backupScheduleValid,
  backupOneDestination,
  restoreOneSource,
  s3NeedsOperator,
  s3CANeedsTLS,
  galeraRetentionByAge,
  restoreFileOfEngine,
];

const isIronicDatabaseSpec = (value: unknown): value is IronicDatabaseSpec => compiledCheck(IronicDatabaseSpec).Check(value);

const textIn = (value: unknown, key: string): string | undefined => {
  const found = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' ? found : undefined;
};

/** The engine and storage of the previous spec, defaulted, when there is one. */
const previousOf = (old: unknown): Previous | undefined => {
  if (typeof old !== 'object' || old === null) return undefined;
  const storage = (old as Record<string, unknown>)['storage'];
  return { engine: engineOf(old), size: textIn(storage, 'size') ?? DEFAULT_DATABASE_SIZE, storageClassName: textIn(storage, 'storageClassName') ?? '' };
};

const validateIronicDatabaseUnsafe = (spec: unknown, old: unknown): Problem[] => {
  registerFormats();
  const shapeProblems = schemaProblems(IronicDatabaseSpec, spec, 'spec');
  if (shapeProblems.length > 0) return shapeProblems;
  if (!isIronicDatabaseSpec(spec))
    return [problem('spec', 'the spec does not match the IronicDatabase API: compare it with `kubectl explain ironicdatabase.spec`')];
  const previous = previousOf(old);
  return RULES.flatMap((rule) => rule(spec, previous));
};

/**
 * Validates an IronicDatabase spec (`old`: the previous spec on update, of which the engine and the
 * storage size and class are read; the sync hook passes what the observed children were made with): schema
 * problems alone when the shape is wrong, otherwise the problems of the semantic rules. Pure and total: it
 * never throws, whatever the input.
 */
export const validateIronicDatabase = (spec: unknown, old?: unknown): Problem[] => withoutThrowing(() => validateIronicDatabaseUnsafe(spec, old));
