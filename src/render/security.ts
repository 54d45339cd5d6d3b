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
