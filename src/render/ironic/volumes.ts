/**
 * Volumes of the Ironic pods and where each container mounts them. Paths are fixed by ironic-image.
 */
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { DatabaseConnection, IronicRenderInput, MountedReference } from './input.js';

export const MOUNTS = {
  shared: '/shared',
  tls: '/certs/ironic',
  vmedia: '/certs/vmedia',
  ipxe: '/certs/ipxe',
  bmcCA: '/certs/ca/bmc',
  trustedCA: '/certs/ca/trusted',
  mariadbAuth: '/auth/mariadb',
  mariadbCA: '/certs/ca/mariadb',
  rpcAuth: '/auth/ironic-rpc',
} as const;

export const VOLUMES = {
  shared: 'ironic-shared',
  tls: 'cert-ironic',
  bmcCA: 'cert-bmc',
  trustedCA: 'trusted-ca',
  mariadbAuth: 'auth-mariadb',
  mariadbCA: 'cert-mariadb',
  rpcAuth: 'ironic-auth',
} as const;

/** Writable directories of ironic-image (/conf, /data, /tmp) for a read-only root filesystem (quirk Q8). */
const SCRATCH_DIRS = ['conf', 'data', 'tmp'] as const;

/** Name of the private scratch volume of one container. */
export const scratchVolumeName = (container: string): string => `${container}-scratch`;

/** The scratch emptyDir of a container. */
export const scratchVolume = (container: string): IVolume => ({ name: scratchVolumeName(container), emptyDir: {} });

/** Mounts of a container's scratch volume at /conf, /data and /tmp (one emptyDir, three sub-paths). */
export const scratchMounts = (container: string): IVolumeMount[] =>
  SCRATCH_DIRS.map((dir) => ({ name: scratchVolumeName(container), mountPath: `/${dir}`, subPath: dir }));

export const sharedMount: IVolumeMount = { name: VOLUMES.shared, mountPath: MOUNTS.shared };

/** The emptyDir the init containers fill (IPA, iPXE firmware) and httpd serves. */
export const sharedVolume: IVolume = { name: VOLUMES.shared, emptyDir: {} };

/** A read-only mount of one of our volumes. */
export const readOnlyMount = (name: string, mountPath: string): IVolumeMount => ({ name, mountPath, readOnly: true });

/** A referenced Secret or ConfigMap as a volume. */
export const referenceVolume = (name: string, ref: Pick<MountedReference, 'kind' | 'name'>): IVolume =>
  ref.kind === 'Secret' ? { name, secret: { secretName: ref.name } } : { name, configMap: { name: ref.name } };

/**
 * The RPC credentials (username and password of the API credentials, and our htpasswd) as one projected
 * volume: JSON-RPC between HA replicas and to the networking service authenticates with them.
 */
export const rpcAuthVolume = (input: IronicRenderInput): IVolume => ({
  name: VOLUMES.rpcAuth,
  projected: {
    sources: [
      {
        secret: {
          name: input.credentials.secretName,
          items: [
            { key: 'username', path: 'username' },
            { key: 'password', path: 'password' },
          ],
        },
      },
      { secret: { name: input.credentials.htpasswdSecretName, items: [{ key: 'htpasswd', path: 'htpasswd' }] } },
    ],
  },
});

export const rpcAuthMount: IVolumeMount = readOnlyMount(VOLUMES.rpcAuth, MOUNTS.rpcAuth);

/** The database credentials, where the image reads them. */
export const databaseAuthVolume = (database: DatabaseConnection): IVolume => ({ name: VOLUMES.mariadbAuth, secret: { secretName: database.credentialsName } });

/**
 * The CA of the database, where the image looks for it (/certs/ca/mariadb/tls.crt). A managed database
 * with a CA-issued certificate publishes ca.crt as its CA key; it is projected to tls.crt.
 */
export const databaseCAVolume = (database: DatabaseConnection): IVolume[] => {
  if (database.tlsCertificateName === undefined) return [];
  // Only the CA is projected: the server's private key, when the Secret holds one, never reaches Ironic.
  return [{ name: VOLUMES.mariadbCA, secret: { secretName: database.tlsCertificateName, items: [{ key: database.tlsCAKey ?? 'tls.crt', path: 'tls.crt' }] } }];
};

/** Mounts of the database credentials and CA. */
export const databaseMounts = (database: DatabaseConnection | undefined): IVolumeMount[] => [
  ...(database ? [readOnlyMount(VOLUMES.mariadbAuth, MOUNTS.mariadbAuth)] : []),
  ...(database?.tlsCertificateName !== undefined ? [readOnlyMount(VOLUMES.mariadbCA, MOUNTS.mariadbCA)] : []),
];

/**
 * The certificate at /certs/ipxe (the same volume as /certs/ironic) with tls.ipxe, for ironic, httpd and dnsmasq:
 * tls-common.sh turns IPXE_TLS_SETUP on when it finds tls.crt (and fails without tls.key next to it). The iPXE
 * builder mounts only the certificate it trusts (features/ipxe-tls.ts).
 */
export const ipxeMounts = (input: IronicRenderInput): IVolumeMount[] => (input.model.tls.ipxe ? [readOnlyMount(VOLUMES.tls, MOUNTS.ipxe)] : []);

/** Mounts shared by the ironic and httpd containers (upstream gives both the same list). */
export const buildIronicMounts = (input: IronicRenderInput): IVolumeMount[] => {
  const { bmcCA, trustedCA, database } = input.references;
  // The user's Secret, or the emptyDir the init container issued the generated certificate into.
  const tls = input.references.tls !== undefined || input.generatedTLS !== undefined;
  return [
    sharedMount,
    ...(tls ? [readOnlyMount(VOLUMES.tls, MOUNTS.tls)] : []),
    ...(tls && input.model.tls.virtualMedia ? [readOnlyMount(VOLUMES.tls, MOUNTS.vmedia)] : []),
    ...ipxeMounts(input),
    ...(bmcCA ? [readOnlyMount(VOLUMES.bmcCA, MOUNTS.bmcCA)] : []),
    ...(trustedCA ? [readOnlyMount(VOLUMES.trustedCA, MOUNTS.trustedCA)] : []),
    ...databaseMounts(database),
  ];
};
