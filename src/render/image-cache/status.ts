/** The status of an IronicImageCache. */
import type { Condition } from '../../api/shared/common.js';
import { IMAGE_CACHE_USED_BY, type IronicImageCacheStatus } from '../../api/ironic-image-cache/schema.js';
import { pathOf, textOf } from '../observed.js';
import { readyCondition, readyReason, REFUSAL_REASONS, type RefusableOutcome } from '../status.js';
import { usageConditions, usageStatus, type Usage } from '../used-by.js';
import type { CacheRenderInput } from './input.js';
import { cachedImages, downloadedBranch } from './render.js';

export const CACHE_REASONS = {
  available: 'ImagesAvailable',
  inProgress: 'DownloadInProgress',
  failed: 'CacheFailed',
  ...REFUSAL_REASONS,
} as const;

export type CacheOutcome = RefusableOutcome<CacheRenderInput>;

const reasonOf = (outcome: CacheOutcome): { status: 'True' | 'False'; reason: string; message: string } =>
  readyReason(outcome, CACHE_REASONS, 'the IPA images are served');

/**
 * What is being served: the inputs of the ready pods, or (while a new download runs or nothing renders)
 * what the previous status said was served.
 */
const served = (outcome: CacheOutcome, previousStatus: unknown): Pick<IronicImageCacheStatus, 'agentBranch' | 'agentMinimumModificationTime'> => {
  if (outcome.kind === 'rendered' && outcome.readiness.state === 'ready') {
    const { agentMinimumModificationTime } = outcome.input.model;
    return { agentBranch: downloadedBranch(outcome.input.model), ...(agentMinimumModificationTime !== undefined && { agentMinimumModificationTime }) };
  }
  const branch = textOf(pathOf(previousStatus, 'agentBranch'));
  const time = textOf(pathOf(previousStatus, 'agentMinimumModificationTime'));
  return { ...(branch !== undefined && { agentBranch: branch }), ...(time !== undefined && { agentMinimumModificationTime: time }) };
};

export const computeCacheStatus = (params: {
  readonly outcome: CacheOutcome;
  readonly usage: Usage;
  readonly previousStatus: unknown;
  readonly generation: number | undefined;
  readonly now: string;
}): IronicImageCacheStatus => {
  const conditions: Condition[] = [
    readyCondition({ ...reasonOf(params.outcome), generation: params.generation, previousStatus: params.previousStatus, now: params.now }),
    ...usageConditions(IMAGE_CACHE_USED_BY, params.usage, params.previousStatus, params.now),
  ];
  const rendered = params.outcome.kind === 'rendered' ? params.outcome.input : undefined;
  return {
    conditions,
    ...(rendered !== undefined && { images: cachedImages(rendered) }),
    ...served(params.outcome, params.previousStatus),
    ...(rendered?.tls !== undefined && { tlsCertificateName: rendered.tls.secretName }),
    ...usageStatus(params.usage),
    ...(params.generation !== undefined && { observedGeneration: params.generation }),
  };
};
