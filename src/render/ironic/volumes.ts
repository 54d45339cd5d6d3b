/**
 * Volumes of the Ironic pod and where each container mounts them. Paths are fixed by ironic-image.
 */
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { IronicRenderInput, MountedReference } from './input.js';

export const MOUNTS = {
  shared: '/shared',
  tls: '/certs/ironic',
  vmedia: '/certs/vmedia',
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

const referenceVolume = (name: string, ref: MountedReference): IVolume =>
  ref.kind === 'Secret' ? { name, secret: { secretName: ref.name } } : { name, configMap: { name: ref.name } };

/** Volumes of the referenced Secrets and ConfigMaps, and of the database credentials. */
export const buildReferenceVolumes = (input: IronicRenderInput): IVolume[] => {
  const { tls, bmcCA, trustedCA, database } = input.references;
  return [
    ...(tls ? [referenceVolume(VOLUMES.tls, tls)] : []),
    ...(bmcCA ? [referenceVolume(VOLUMES.bmcCA, bmcCA)] : []),
    ...(trustedCA ? [referenceVolume(VOLUMES.trustedCA, trustedCA)] : []),
    ...(database ? [{ name: VOLUMES.mariadbAuth, secret: { secretName: database.credentialsName } }] : []),
    ...(database !== undefined ? databaseCAVolume(database) : []),
  ];
};

/**
 * The CA of the database, where the image looks for it (/certs/ca/mariadb/tls.crt). A managed database
 * with a CA-issued certificate publishes ca.crt as its CA key; it is projected to tls.crt.
 */
export const databaseCAVolume = (database: NonNullable<IronicRenderInput['references']['database']>): IVolume[] => {
  if (database.tlsCertificateName === undefined) return [];
  // Only the CA is projected: the server's private key, when the Secret holds one, never reaches Ironic.
  return [{ name: VOLUMES.mariadbCA, secret: { secretName: database.tlsCertificateName, items: [{ key: database.tlsCAKey ?? 'tls.crt', path: 'tls.crt' }] } }];
};

/** Mounts shared by the ironic and httpd containers (upstream gives both the same list). */
export const buildIronicMounts = (input: IronicRenderInput): IVolumeMount[] => {
  const { tls, bmcCA, trustedCA, database } = input.references;
  const vmedia = tls !== undefined && input.spec.tls?.disableVirtualMediaTLS !== true;
  return [
    sharedMount,
    ...(tls ? [{ name: VOLUMES.tls, mountPath: MOUNTS.tls, readOnly: true }] : []),
    ...(vmedia ? [{ name: VOLUMES.tls, mountPath: MOUNTS.vmedia, readOnly: true }] : []),
    ...(bmcCA ? [{ name: VOLUMES.bmcCA, mountPath: MOUNTS.bmcCA, readOnly: true }] : []),
    ...(trustedCA ? [{ name: VOLUMES.trustedCA, mountPath: MOUNTS.trustedCA, readOnly: true }] : []),
    ...(database ? [{ name: VOLUMES.mariadbAuth, mountPath: MOUNTS.mariadbAuth, readOnly: true }] : []),
    ...(database?.tlsCertificateName !== undefined ? [{ name: VOLUMES.mariadbCA, mountPath: MOUNTS.mariadbCA, readOnly: true }] : []),
  ];
};
