/**
 * Everything an Ironic renderer may read. Assembled by the sync hook; nothing else reaches a renderer.
 */
import type { IronicModel } from '../../api/ironic/model.js';
import type { RenderConfig } from '../config.js';
import type { IronicNames } from '../names.js';
import type { BackupRetentionInput, ScriptPodInput } from '../shared/database-backup.js';
import type { OperatorBackupInput } from '../shared/mariadb-operator-backup.js';

/** The JSON-RPC CA of an HA Ironic: the Secret that holds it and a hash of its certificate. */
export type RpcCAReference = {
  readonly secretName: string;
  readonly hash: string;
  /** The signing CA. */
  readonly certPem: string;
  readonly keyPem: string;
  /** Every CA replicas trust (the signing one, and during a rotation the other). */
  readonly bundlePem: string;
  /** The staged next CA, during a rotation. */
  readonly next?: { readonly certPem: string; readonly keyPem: string };
};

/**
 * Generated API certificates: the CA the pods issue their certificates from, and the renewal period the
 * pods were (or are to be) started in; a new period rolls them.
 */
export type GeneratedTLS = {
  readonly ca: RpcCAReference;
  /** Start of the current renewal period (ISO 8601), recorded on the pod template. */
  readonly period: string;
};

/** A referenced Secret or ConfigMap, resolved: how to mount it and a hash of its content. */
export type MountedReference = {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly name: string;
  readonly hash: string;
};

/** The trusted CA bundle, with the key that holds it. */
export type TrustedCAReference = MountedReference & { readonly key: string };

/** The TLS Secret of the API and virtual media. */
export type TLSReference = MountedReference & {
  readonly hasCA: boolean;
  /** The CA clients trust (base64, as in the Secret): ca.crt, or the certificate itself. */
  readonly caData: string;
  /** What cert-manager says it issued the certificate for (its Secret annotations), when it says. */
  readonly issuedFor?: { readonly altNames?: string; readonly ipSans?: string };
};

/**
 * What an Ironic needs to back its IronicDatabase up before an upgrade (the database's spec.backup.beforeUpgrade).
 * Engine Builtin: the pod of a backup run as the database's CronJob has it (the image left out when it is the
 * default one), the retention, and the last successful backup as the database's status reports it. Engine
 * MariaDBOperator: what a one-shot mariadb-operator Backup needs, with the storage and retention of the database's.
 */
export type UpgradeBackupSource =
  | {
      readonly engine: 'Builtin';
      readonly pod: Omit<ScriptPodInput, 'image'> & { readonly image?: string };
      readonly retention: BackupRetentionInput;
      readonly lastBackup?: { readonly job: string; readonly file: string };
    }
  | {
      readonly engine: 'MariaDBOperator';
      /** The IronicDatabase's name. */
      readonly database: string;
      /** A one-shot Backup into the destination of the database's scheduled one. */
      readonly backup: OperatorBackupInput;
    };

/** Connection facts of the database Ironic uses (external or managed). */
export type DatabaseConnection = {
  readonly host: string;
  readonly name: string;
  readonly credentialsName: string;
  readonly tlsCertificateName?: string;
  /** The key of tlsCertificateName that holds the CA (the image reads tls.crt). */
  readonly tlsCAKey?: string;
  /** Hash of the credentials Secret when it was read, so a rotation rolls the pods. */
  readonly credentialsHash?: string;
  /** The name of the IronicDatabase, when it runs a single MariaDB pod (engine Builtin). */
  readonly singlePodDatabase?: string;
  /** The conductors a managed IronicDatabase is sized for (its spec.maxConductors, defaulted). */
  readonly maxConductors?: number;
  /** How to back a managed IronicDatabase up before an upgrade, when it asks for that. */
  readonly upgradeBackup?: UpgradeBackupSource;
};

/** The switch Secrets of the networking service: the user's (related) or our placeholders (children). */
export type SwitchSecrets = {
  readonly config: { readonly name: string; readonly generated: boolean; readonly hash: string };
  readonly credentials: { readonly name: string; readonly generated: boolean; readonly hash: string };
};

/** The IPA URLs an IronicImageCache serves, one entry per architecture, the default one first. */
export type CachedAgentImages = readonly { readonly architecture: string; readonly kernel: string; readonly initramfs: string }[];

/** Resolved references of an Ironic spec. */
export type IronicReferences = {
  /** The images of the IronicImageCache named in spec.imageCacheName, once it is ready. */
  readonly imageCache?: CachedAgentImages;
  readonly switches?: SwitchSecrets;
  readonly tls?: TLSReference;
  readonly bmcCA?: MountedReference;
  readonly trustedCA?: TrustedCAReference;
  readonly database?: DatabaseConnection;
  /** The keys of Secrets that features read (SecretRead), by the spec field that names the Secret. */
  readonly secretValues?: Readonly<Record<string, SecretValue>>;
};

/**
 * A key of a Secret the spec names that a feature reads at sync, to render with (a password its
 * configuration holds). A missing Secret or a value the check refuses stops the sync with Ready=False.
 */
export type SecretRead = {
  /** The Secret. */
  readonly name: string;
  /** The spec field that names it: the key of its value, and where messages point. */
  readonly path: string;
  readonly key: string;
  /** What to do when the Secret is missing (the end of the message). */
  readonly fix: string;
  /** Why a value (trimmed) cannot be used, or undefined. */
  readonly problem?: (value: string) => string | undefined;
};

/**
 * A value read, with the Secret's name and uid: the uid keys a hash that must not reveal the value (a
 * content-named Secret's name), as only those who may read the Secret know it.
 */
export type SecretValue = { readonly name: string; readonly value: string; readonly uid: string };

/** The API credentials and the bcrypt htpasswd derived from them. */
export type ApiCredentials = {
  /** The Secret clients read: the user's, or the generated one. */
  readonly secretName: string;
  readonly username: string;
  readonly password: string;
  /** True when the Secret is generated (and so rendered) by us. */
  readonly generated: boolean;
  /** `username:bcrypt-hash`, re-used while it still matches. */
  readonly htpasswd: string;
  /** Hash of the credentials, for the restart annotation. */
  readonly hash: string;
  /** The content-named Secret that holds the htpasswd. */
  readonly htpasswdSecretName: string;
};

export type IronicRenderInput = {
  readonly name: string;
  readonly namespace: string;
  /** The names of every child, computed once. */
  readonly names: IronicNames;
  readonly model: IronicModel;
  readonly references: IronicReferences;
  readonly credentials: ApiCredentials;
  /** Only with highAvailability. */
  readonly rpcCA?: RpcCAReference;
  /** Only with tls.generateCertificate. */
  readonly generatedTLS?: GeneratedTLS;
  readonly config: RenderConfig;
};
