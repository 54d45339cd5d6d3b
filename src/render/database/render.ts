/**
 * Children of an IronicDatabase: credentials, a MariaDB configuration file, the StatefulSet and its
 * Service. Facts about the mariadb image: ironic-image.md §5.1.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { toChild, type KubeChild } from '../child.js';
import { LABELS, databaseNames, labelValue, versionAnnotation } from '../names.js';
import { base64, contentHash, databaseLabels, nodeSelection } from '../meta.js';
import { compareQuantities, parseQuantity } from '../../api/quantity.js';
import { restricted } from '../security.js';
import { DATABASE_SCHEMA, MARIADB_PORT, type DatabaseRenderInput } from './input.js';

/** The mysql user of the mariadb image. */
const MYSQL_UID = 27;
const CONFIG_FILE = 'ironic-database.cnf';
const DATA_VOLUME = 'data';

const selector = (input: DatabaseRenderInput): Record<string, string> => ({ [LABELS.app]: labelValue(databaseNames(input.name).statefulSet) });

/**
 * The server configuration, mounted as its own file. NOTE: the image writes its metal3.cnf only on the
 * first start, so with persistent data TLS and the connection limit would silently disappear on the
 * second start (ironic-image quirk Q12). Our file is there on every start.
 */
export const mariadbConfig = (input: DatabaseRenderInput): string =>
  [
    '[mysqld]',
    'max_connections = 64',
    ...(input.tls !== undefined
      ? ['ssl_cert = /certs/mariadb/tls.crt', 'ssl_key = /certs/mariadb/tls.key', 'require_secure_transport = ON']
      : []),
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

const probe = (failureThreshold: number): IProbe => ({
  // `mysqladmin ping` succeeds whenever the server answers, without credentials.
  exec: { command: ['mysqladmin', 'ping', '--silent'] },
  initialDelaySeconds: 5,
  periodSeconds: 10,
  timeoutSeconds: 5,
  successThreshold: 1,
  failureThreshold,
});

const mariadbContainer = (input: DatabaseRenderInput): IContainer => ({
  name: 'mariadb',
  image: input.model.image ?? input.config.images.mariadb,
  env: [
    { name: 'MARIADB_DATABASE', value: DATABASE_SCHEMA },
    // The host part of the SQL account: Ironic connects from other pods.
    { name: 'MARIADB_HOST', value: '%' },
    { name: 'MARIADB_MAX_CONNECTIONS', value: '64' },
    ...(input.tls !== undefined ? [{ name: 'RESTART_CONTAINER_CERTIFICATE_UPDATED', value: 'true' }] : []),
  ],
  ports: [{ name: 'mariadb', containerPort: MARIADB_PORT, protocol: 'TCP' }],
  volumeMounts: [
    { name: DATA_VOLUME, mountPath: '/var/lib/mysql' },
    // Credentials are read from files, never from the environment.
    { name: 'credentials', mountPath: '/auth/mariadb', readOnly: true },
    { name: 'config', mountPath: `/etc/my.cnf.d/${CONFIG_FILE}`, subPath: CONFIG_FILE, readOnly: true },
    { name: 'tmp', mountPath: '/tmp' },
    ...(input.tls !== undefined ? [{ name: 'tls', mountPath: '/certs/mariadb', readOnly: true }] : []),
  ],
  ...(input.model.resources !== undefined && { resources: input.model.resources }),
  startupProbe: { ...probe(60), periodSeconds: 5 },
  livenessProbe: probe(6),
  readinessProbe: probe(3),
  // The image writes its first-boot configuration into /etc/my.cnf.d: the root stays writable.
  securityContext: restricted(MYSQL_UID, MYSQL_UID, true),
});

/** Whether the data lives on a claim: asked for, or already there (never drop existing data). */
export const persistent = (input: DatabaseRenderInput): boolean => !input.model.storage.ephemeral || (input.observedClaimTemplates ?? []).length > 0;

const volumes = (input: DatabaseRenderInput): IVolume[] => [
  ...(!persistent(input) ? [{ name: DATA_VOLUME, emptyDir: {} }] : []),
  { name: 'credentials', secret: { secretName: input.credentials.secretName, defaultMode: 0o440 } },
  { name: 'config', configMap: { name: databaseNames(input.name).config } },
  { name: 'tmp', emptyDir: { medium: 'Memory' } },
  ...(input.tls !== undefined ? [{ name: 'tls', secret: { secretName: input.tls.secretName, defaultMode: 0o440 } }] : []),
];

/**
 * The claim template, written as the API server stores it (volumeMode and status defaulted), because
 * Metacontroller replaces this list wholesale and would otherwise see a difference on every sync.
 */
const claimTemplate = (input: DatabaseRenderInput) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: DATA_VOLUME, labels: databaseLabels(input.name) },
  spec: {
    accessModes: ['ReadWriteOnce'],
    ...(input.model.storage.storageClassName !== undefined && { storageClassName: input.model.storage.storageClassName }),
    resources: { requests: { storage: input.model.storage.size } },
    volumeMode: 'Filesystem',
  },
  status: { phase: 'Pending' },
});

export const renderDatabaseStatefulSet = (input: DatabaseRenderInput): IStatefulSet => {
  const names = databaseNames(input.name);
  const annotations = {
    [versionAnnotation('config')]: contentHash(mariadbConfig(input)),
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
      ...(persistent(input) && {
        persistentVolumeClaimRetentionPolicy: { whenDeleted: input.model.storage.whenDeleted, whenScaled: 'Retain' },
        volumeClaimTemplates: ((input.observedClaimTemplates ?? []).length > 0 ? input.observedClaimTemplates : [claimTemplate(input)]) as NonNullable<
          NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']
        >,
      }),
      template: {
        metadata: { labels: { ...selector(input), ...databaseLabels(input.name) }, annotations },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { fsGroup: MYSQL_UID, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
          ...nodeSelection(input.model.nodeSelector),
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

/** Every child of an IronicDatabase, in a fixed order. */
export const renderDatabaseChildren = (input: DatabaseRenderInput): KubeChild[] =>
  [renderDatabaseCredentials(input), renderDatabaseConfig(input), renderDatabaseStatefulSet(input), renderDatabaseService(input)]
    // No compact(): observed claim templates are re-emitted exactly as observed (nulls included).
    .filter((c) => c !== undefined)
    .map(toChild);

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
