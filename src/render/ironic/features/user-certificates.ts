/**
 * The certificates and CAs the spec names (spec.tls.certificateName or the Secret cert-manager fills,
 * tls.bmcCA, tls.trustedCA): mounted where ironic-image reads them (volumes.ts), and hashed into the pod
 * template so that new content rolls the pods.
 */
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { versionAnnotation } from '../../names.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { VOLUMES, referenceVolume } from '../volumes.js';

const referenceVolumes = (input: IronicRenderInput): IVolume[] => {
  const { tls, bmcCA, trustedCA } = input.references;
  return [
    ...(tls ? [referenceVolume(VOLUMES.tls, tls)] : []),
    ...(bmcCA ? [referenceVolume(VOLUMES.bmcCA, bmcCA)] : []),
    ...(trustedCA ? [referenceVolume(VOLUMES.trustedCA, trustedCA)] : []),
  ];
};

const referenceAnnotations = (input: IronicRenderInput): Record<string, string> => {
  const { tls, bmcCA, trustedCA } = input.references;
  return {
    ...(tls && { [versionAnnotation('tls-secret')]: tls.hash }),
    ...(bmcCA && { [versionAnnotation('bmc-ca')]: bmcCA.hash }),
    ...(trustedCA && { [versionAnnotation('trusted-ca')]: trustedCA.hash }),
  };
};

export const USER_CERTIFICATES: IronicFeature = {
  name: 'user-certificates',
  order: 30,
  applies: () => true,
  volumes: referenceVolumes,
  annotations: referenceAnnotations,
};
