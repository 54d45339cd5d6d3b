/**
 * Children of an IronicDatabase with engine MariaDBOperator: mariadb-operator objects (k8s.mariadb.com,
 * v1alpha1, as of mariadb-operator 26.6.0) instead of the StatefulSet. A `MariaDB` runs a Galera cluster
 * of `replicas` nodes; `Database`, `User` and `Grant` create what Ironic connects with, the user's password
 * copied from the credentials Secret an Ironic mounts into a Secret of ours. mariadb-operator makes the
 * Services, the StatefulSet and the root password itself.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { toChild, type KubeChild } from '../child.js';
import { databaseNames, LABELS } from '../names.js';
import { base64, databaseLabels } from '../meta.js';
import { DATABASE_SCHEMA, MARIADB_PORT, type DatabaseRenderInput } from './input.js';
import { connectionBudget } from '../../api/shared/constants.js';
import { renderDatabaseCredentials, serverSettings } from './render.js';
import { MARIADB_API_VERSION } from '../shared/mariadb-operator-backup.js';

export { MARIADB_API_VERSION };

type Spec = Record<string, unknown>;

const object = (input: DatabaseRenderInput, kind: string, spec: Spec): KubeChild => ({
  apiVersion: MARIADB_API_VERSION,
  kind,
  metadata: { name: databaseNames(input.name).mariadb, namespace: input.namespace, labels: databaseLabels(input.name) },
  spec,
});

/** An object of `object` under another name. */
const named = (child: KubeChild, name: string): KubeChild => ({ ...child, metadata: { ...child.metadata, name } });

/** The MariaDB the Database, User and Grant belong to (same namespace). */
const mariaDbRef = (input: DatabaseRenderInput): Spec => ({ name: databaseNames(input.name).mariadb });

/**
 * NOTE: the volumes follow storage.whenDeleted as with the Builtin engine. Deleting the Database, User or
 * Grant objects never drops what they created (cleanupPolicy Skip): the data is the volume's to keep or lose.
 */
const storage = (input: DatabaseRenderInput): Spec => {
  const { ephemeral, size, storageClassName, whenDeleted } = input.model.storage;
  if (ephemeral) return { ephemeral: true };
  return { size, ...(storageClassName !== undefined && { storageClassName }), pvcRetentionPolicy: { whenDeleted, whenScaled: 'Retain' } };
};

/** TLS with the user's certificate (its ca.crt is the CA clients trust); otherwise mariadb-operator's default. */
const tls = (input: DatabaseRenderInput): Spec =>
  input.tls === undefined
    ? {}
    : { tls: { enabled: true, required: true, serverCertSecretRef: { name: input.tls.secretName }, serverCASecretRef: { name: input.tls.secretName } } };

/**
 * One Galera node per Kubernetes node: mariadb-operator schedules the pods anywhere unless told (its default
 * is no anti-affinity), and replicas on one node all stop with it. mariadb-operator refuses to change
 * antiAffinityEnabled once the MariaDB exists, so it is rendered from the first sync. It needs as many
 * schedulable nodes as replicas.
 */
const ONE_NODE_EACH: Spec = { affinity: { antiAffinityEnabled: true } };

/**
 * Voluntary disruptions (node drains) take one Galera node at a time: the others keep a majority and the
 * node that comes back resynchronises from one donor. mariadb-operator creates the PodDisruptionBudget once,
 * from this field when the MariaDB is created.
 */
const ONE_NODE_AT_A_TIME: Spec = { podDisruptionBudget: { maxUnavailable: 1 } };

/**
 * The MariaDB; `bootstrapFrom`: the backup a cluster made before the hooks' own Restore was filled from (kept as
 * mariadb-operator has it); `restoreFrom`: the backup a new cluster is to be filled from by the hooks' Restore,
 * recorded on it so that a later sync tells it from a cluster a restore was added to.
 */
export const renderMariaDB = (input: DatabaseRenderInput, bootstrapFrom?: Spec, restoreFrom?: string): KubeChild => {
  const { model } = input;
  const mariadb = object(input, 'MariaDB', {
    ...(bootstrapFrom !== undefined && { bootstrapFrom }),
    ...(model.image !== undefined && { image: model.image }),
    replicas: model.replicas,
    galera: { enabled: true },
    ...ONE_NODE_EACH,
    ...ONE_NODE_AT_A_TIME,
    port: MARIADB_PORT,
    rootPasswordSecretKeyRef: { name: databaseNames(input.name).rootPassword, key: 'password', generate: true },
    storage: storage(input),
    myCnf: ['[mariadb]', ...serverSettings(input), ''].join('\n'),
    ...tls(input),
    ...(model.priorityClassName !== undefined && { priorityClassName: model.priorityClassName }),
    // mariadb-operator v26.6.0 api/v1alpha1/mariadb_types.go: MariaDBPodTemplate (inline) has imagePullSecrets.
    ...(model.imagePullSecrets.length > 0 && { imagePullSecrets: model.imagePullSecrets.map((name) => ({ name })) }),
    ...(Object.keys(model.nodeSelector).length > 0 && { nodeSelector: model.nodeSelector }),
    ...(model.resources !== undefined && { resources: model.resources }),
  });
  return restoreFrom === undefined ? mariadb : { ...mariadb, metadata: { ...mariadb.metadata, annotations: { [LABELS.restoreFrom]: restoreFrom } } };
};

export const renderMariaDBDatabase = (input: DatabaseRenderInput): KubeChild =>
  object(input, 'Database', {
    mariaDbRef: mariaDbRef(input),
    name: DATABASE_SCHEMA,
    characterSet: 'utf8mb3',
    collate: 'utf8mb3_general_ci',
    cleanupPolicy: 'Skip',
  });

/**
 * Where the User of the database user is, and the Secret of ours its password is read from. The Secret
 * is named by a keyed hash of the password, so that a new password is a change of the User: mariadb-operator
 * reconciles a User when it changes, but a Secret only when it carries the label k8s.mariadb.com/watch,
 * which the user's own credentials Secret does not (and is not ours to label).
 */
export type OperatorUser = { readonly name: string; readonly passwordSecret: string };

/** The password of the database user, in a Secret of ours named by it (immutable: a new password is a new Secret). */
export const renderUserPassword = (input: DatabaseRenderInput, user: OperatorUser): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: user.passwordSecret, namespace: input.namespace, labels: databaseLabels(input.name) },
  type: 'Opaque',
  immutable: true,
  data: { password: base64(input.credentials.password) },
});

/**
 * The User of `input.credentials`, named `user.name`. mariadb-operator never renames a user (spec.name is
 * immutable): another user name gets a User and Grant of another name (users.ts).
 */
export const renderMariaDBUser = (input: DatabaseRenderInput, user: OperatorUser): KubeChild =>
  named(
    object(input, 'User', {
      mariaDbRef: mariaDbRef(input),
      name: input.credentials.username,
      host: '%',
      passwordSecretKeyRef: { name: user.passwordSecret, key: 'password' },
      // mariadb-operator's default is 10, fewer than Ironic's connection pools open. Below max_connections,
      // so that a user at its limit never locks out root, the health checks or mariadb-operator.
      maxUserConnections: connectionBudget(input.model.maxConductors).maxUserConnections,
      cleanupPolicy: 'Skip',
    }),
    user.name,
  );

/** The Grant of the user of `input.credentials`, named as its User (its username is immutable too). */
export const renderMariaDBGrant = (input: DatabaseRenderInput, name: string): KubeChild =>
  named(
    object(input, 'Grant', {
      mariaDbRef: mariaDbRef(input),
      privileges: ['ALL PRIVILEGES'],
      database: DATABASE_SCHEMA,
      table: '*',
      username: input.credentials.username,
      host: '%',
      cleanupPolicy: 'Skip',
    }),
    name,
  );

/**
 * Every child of an IronicDatabase with engine MariaDBOperator but its Backup, in a fixed order; `user` names the
 * User, its Grant and password; `bootstrapFrom` goes into the MariaDB.
 */
export const renderOperatorChildren = (input: DatabaseRenderInput, user: OperatorUser, bootstrapFrom?: Spec, restoreFrom?: string): KubeChild[] => [
  ...[renderDatabaseCredentials(input), renderUserPassword(input, user)].filter((c) => c !== undefined).map(toChild),
  renderMariaDB(input, bootstrapFrom, restoreFrom),
  renderMariaDBDatabase(input),
  renderMariaDBUser(input, user),
  renderMariaDBGrant(input, user.name),
];
