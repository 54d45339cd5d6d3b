/** Security contexts shared by the containers we render. */
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';

/** The ironic user and group of ironic-image. */
export const IRONIC_UID = 997;
export const IRONIC_GID = 994;

/**
 * The restricted profile: non-root, no privilege escalation, no capabilities, and a read-only root unless
 * the image must write outside its volumes (`writableRoot`).
 */
export const restricted = (uid: number = IRONIC_UID, gid: number = IRONIC_GID, writableRoot = false): ISecurityContext => ({
  runAsUser: uid,
  runAsGroup: gid,
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  ...(!writableRoot && { readOnlyRootFilesystem: true }),
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
});

/**
 * Network containers need file capabilities (dnsmasq's binary carries them), hence privilege escalation.
 * NOTE: their root filesystem stays writable: the network daemons write pid and lease files in places
 * the image does not move to /conf or /data.
 */
export const withCapabilities = (uid: number, gid: number, add: string[]): ISecurityContext => ({
  runAsUser: uid,
  runAsGroup: gid,
  runAsNonRoot: true,
  privileged: false,
  allowPrivilegeEscalation: true,
  capabilities: { drop: ['ALL'], add },
  seccompProfile: { type: 'RuntimeDefault' },
});
