/**
 * The imagePullSecrets of a pod: the spec's, then (for pods that run the hook server's image, as the
 * certificate init containers do) the hook server's HOOK_IMAGE_PULL_SECRETS, each name once.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ILocalObjectReference } from 'kubernetes-models/v1/LocalObjectReference';
import type { RenderConfig } from '../config.js';
import { DEFAULT_HOOK_IMAGE } from './certificate-issuer.js';

/** The image the hook server's pods run (HOOK_IMAGE or the default). */
export const hookImageOf = (config: RenderConfig): string => config.hookImage ?? DEFAULT_HOOK_IMAGE;

/** `imagePullSecrets` for a pod spec from names, each once and in order; absent when there are none. */
export const pullSecretRefs = (names: readonly string[]): { imagePullSecrets?: ILocalObjectReference[] } =>
  names.length > 0 ? { imagePullSecrets: [...new Set(names)].map((name) => ({ name })) } : {};

/** `imagePullSecrets` for a pod spec, absent when there are none. */
export const podPullSecrets = (
  own: readonly string[],
  config: RenderConfig,
  containers: readonly IContainer[],
): { imagePullSecrets?: ILocalObjectReference[] } => {
  const hook = containers.some((c) => c.image === hookImageOf(config)) ? (config.hookImagePullSecrets ?? []) : [];
  return pullSecretRefs([...own, ...hook]);
};
