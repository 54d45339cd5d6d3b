/**
 * mariadb-operator's logical Backup (k8s.mariadb.com/v1alpha1, as of 26.6.0), shared by the two kinds that create
 * one: an IronicDatabase with engine MariaDBOperator (its scheduled Backup) and an Ironic (the one-shot Backup before
 * a version upgrade). Both dump the ironic schema, gzip, into the same claim or bucket, pruned by the same age, so
 * that a restore (`bootstrapFrom`) sees every file.
 */
import type { S3Model } from '../../api/ironic-database/model.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } from '../../api/shared/constants.js';

export const MARIADB_API_VERSION = 'k8s.mariadb.com/v1alpha1';

type Spec = Record<string, unknown>;

/** The key of the CA bundle in the Secret named by s3.caSecretName. */
const S3_CA_KEY = 'ca.crt';

/** The schema a Backup dumps (the one Ironic's tables live in). */
const DUMPED_SCHEMA = 'ironic';

/** mariadb-operator's S3 (api/v1alpha1/base_types.go S3): the bucket, and the credentials and CA as Secret keys. */
export const operatorS3 = (s3: S3Model): Spec => ({
  bucket: s3.bucket,
  endpoint: s3.endpoint,
  ...(s3.prefix !== undefined && { prefix: s3.prefix }),
  ...(s3.region !== undefined && { region: s3.region }),
  accessKeyIdSecretKeyRef: { name: s3.credentialsSecretName, key: S3_ACCESS_KEY_ID },
  secretAccessKeySecretKeyRef: { name: s3.credentialsSecretName, key: S3_SECRET_ACCESS_KEY },
  ...(s3.tls && { tls: { enabled: true, ...(s3.caSecretName !== undefined && { caSecretKeyRef: { name: s3.caSecretName, key: S3_CA_KEY } }) } }),
});

/**
 * A retention in minutes as Go writes a metav1.Duration (`720h0m0s`): mariadb-operator writes its defaults back
 * into the spec in that form, so any other spelling of the same duration would be changed back and forth.
 */
export const goDuration = (minutes: number): string => `${Math.floor(minutes / 60)}h${minutes % 60}m0s`;

/** What a Backup's spec is made of besides its schedule. */
export type OperatorBackupInput = {
  /** The MariaDB (same namespace). */
  readonly mariadb: string;
  /** spec.storage: a claim for mariadb-operator to create, an existing one (`volume`), or S3. */
  readonly storage: Spec;
  readonly maxAgeMinutes: number;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly priorityClassName?: string;
};

/**
 * The spec of a Backup without its schedule: mariadb-dump of the ironic schema (one transaction; users and grants
 * are the User and Grant objects'), gzip, files older than the retention deleted by each run. With `schedule`
 * mariadb-operator runs it from a CronJob; without, it runs it once, as a Job named as the Backup.
 */
export const operatorBackupSpec = (input: OperatorBackupInput): Spec => ({
  mariaDbRef: { name: input.mariadb },
  maxRetention: goDuration(input.maxAgeMinutes),
  compression: 'gzip',
  databases: [DUMPED_SCHEMA],
  storage: input.storage,
  ...(Object.keys(input.nodeSelector).length > 0 && { nodeSelector: input.nodeSelector }),
  ...(input.priorityClassName !== undefined && { priorityClassName: input.priorityClassName }),
});
