/**
 * The IPA downloader (spec.deployRamdisk, unless an image cache or custom images replace it): an init
 * container that fetches the agent's kernel and initramfs into /shared, which httpd serves.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { IPA_DOWNLOADER_IMAGE } from '../../shared/ipa-download.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { PROXY_VARIABLES } from '../../shared/proxy.js';
import { proxyEnv } from '../common-env.js';
import { dedupeEnv, imageOf, optionalEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { scratchMounts, sharedMount } from '../volumes.js';

/** The branch, the operator-wide settings (sorted), then the proxy (spec.proxy first). */
export const buildDownloaderEnv = (input: IronicRenderInput): IEnvVar[] => {
  const configured = input.config.ipaSettings;
  const proxyNames: readonly string[] = PROXY_VARIABLES;
  return dedupeEnv([
    ...optionalEnv('IPA_BRANCH', input.model.ramdisk.branch),
    ...Object.keys(configured)
      .filter((k) => !proxyNames.includes(k))
      .sort()
      .flatMap((k) => optionalEnv(k, configured[k])),
    ...proxyEnv(input, { HTTP_PROXY: configured['HTTP_PROXY'], HTTPS_PROXY: configured['HTTPS_PROXY'], NO_PROXY: configured['NO_PROXY'] }),
  ]);
};

const buildDownloaderContainer = (input: IronicRenderInput, context: ContainerContext): IContainer => {
  const env = buildDownloaderEnv(input);
  return {
    name: 'ramdisk-downloader',
    image: imageOf(input, IPA_DOWNLOADER_IMAGE),
    ...(env.length > 0 && { env }),
    volumeMounts: [sharedMount, ...context.mounts, ...scratchMounts('ramdisk-downloader')],
    ...resourcesOf(input, 'ramdisk-downloader'),
    securityContext: restricted(IRONIC_UID, IRONIC_GID),
  };
};

export const DOWNLOADER: IronicFeature = {
  name: 'ramdisk-downloader',
  order: 130,
  applies: (model) => model.ramdisk.downloader,
  images: [IPA_DOWNLOADER_IMAGE],
  initContainers: [{ name: 'ramdisk-downloader', build: buildDownloaderContainer }],
};
