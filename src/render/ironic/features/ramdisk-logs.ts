/** The ramdisk-logs container: prints the logs the agent ramdisks upload (ironic-image's runlogwatch.sh). */
import type { IContainer } from 'kubernetes-models/v1/Container';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { scratchMounts, sharedMount } from '../volumes.js';

const buildRamdiskLogsContainer = (input: IronicRenderInput, context: ContainerContext): IContainer => ({
  name: 'ramdisk-logs',
  image: context.images.ironic,
  command: ['/bin/runlogwatch.sh'],
  volumeMounts: [sharedMount, ...context.mounts, ...scratchMounts('ramdisk-logs')],
  ...resourcesOf(input, 'ramdisk-logs'),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

export const RAMDISK_LOGS: IronicFeature = {
  name: 'ramdisk-logs',
  order: 70,
  applies: () => true,
  containers: [{ name: 'ramdisk-logs', build: buildRamdiskLogsContainer }],
};
