/**
 * The decisions of an IronicImageCache sync and finalize, as pure functions of the observed objects and
 * the model.
 */
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import type { IronicImageCacheModel } from '../../api/ironic-image-cache/model.js';
import { IMAGE_CACHE_USED_BY, type IronicImageCacheStatus } from '../../api/ironic-image-cache/schema.js';
import { parseIronicImageCache } from '../../api/ironic-image-cache/parse.js';
import { keepObservedChildren, stampOf, type KubeChild } from '../child.js';
import type { RenderConfig } from '../config.js';
import { imageCacheNames, type ImageCacheNames } from '../names.js';
import { conflictMessage, objectsInTheWay, type Wanted } from '../ownership.js';
import { findObject, pathOf } from '../observed.js';
import type { ParentView } from '../parent.js';
import { describeProblems } from '../problems.js';
import { resolveTLSSecret } from '../references.js';
import { combineReadiness, progressing, serviceReadiness, statefulSetReadiness, type Readiness } from '../status.js';
import { finalizeUsed, syncUsed, type UsedKind, type UsedSyncResult } from '../used-by.js';
import { observedClaimTemplates } from '../volume-claim.js';
import type { CacheRenderInput, CacheTLS } from './input.js';
import { renderCache } from './render.js';
import { computeCacheStatus, type CacheOutcome } from './status.js';

/** A sync's answer before it is put on the wire. */
export type CacheSyncResult = UsedSyncResult<IronicImageCacheStatus>;

/** Where a sync stands: keep everything (and why), or render. */
export type PreparedCache =
  { readonly kind: 'keep'; readonly outcome: CacheOutcome } | { readonly kind: 'render'; readonly model: IronicImageCacheModel; readonly tls?: CacheTLS };

/** The children with names fixed by the parent's name that this spec creates. */
export const wantedCacheChildren = (names: ImageCacheNames): Wanted[] => [
  { group: GROUP_KEYS.configMap, name: names.config },
  { group: GROUP_KEYS.statefulSet, name: names.statefulSet },
  { group: GROUP_KEYS.service, name: names.service },
];

/** Parses the spec and resolves its TLS Secret; otherwise the outcome that keeps every observed child. */
export const prepareCache = (view: ParentView): PreparedCache => {
  const parsed = parseIronicImageCache(view.spec);
  if (!parsed.ok) return { kind: 'keep', outcome: { kind: 'invalidSpec', message: describeProblems(parsed.problems) } };
  const { model } = parsed;
  const inTheWay = objectsInTheWay(view, wantedCacheChildren(imageCacheNames(view.name)));
  if (inTheWay.length > 0) {
    return { kind: 'keep', outcome: { kind: 'conflict', message: conflictMessage(inTheWay, view.namespace, 'IronicImageCache') } };
  }
  if (model.tlsCertificateName === undefined) return { kind: 'render', model };
  const tls = resolveTLSSecret({ related: view.related, namespace: view.namespace }, model.tlsCertificateName, 'spec.tlsCertificateName', view.now);
  if (!tls.ok)
    return { kind: 'keep', outcome: { kind: tls.problem.kind === 'missing' ? 'missingReference' : 'invalidReference', message: tls.problem.message } };
  return { kind: 'render', model, tls: { secretName: tls.value.name, hash: tls.value.hash } };
};

/**
 * Readiness of the StatefulSet, saying where to look while the downloads run. A StatefulSet whose stamp is
 * not the one rendered now has not been given the current spec yet (the first sync after a change sees the
 * StatefulSet of the previous spec): it is progressing, whatever its status says.
 */
const workloadReadiness = (set: KubeObject | undefined, stamp: string | undefined): Readiness => {
  if (set === undefined) return progressing('the image cache stateful set is being created');
  if (stampOf(set) !== stamp) return progressing(`stateful set ${set.metadata.name} is being given the current spec`);
  const readiness = statefulSetReadiness(set);
  return readiness.state === 'progressing'
    ? progressing(`${readiness.message}: the downloads run first (kubectl logs ${set.metadata.name}-0 --all-containers shows their progress and any error)`)
    : readiness;
};

/** The rendered children and the outcome (with its readiness), or the kept children. */
const planCache = (view: ParentView, prepared: PreparedCache, config: RenderConfig): { outcome: CacheOutcome; children: KubeChild[] } => {
  if (prepared.kind === 'keep') return { outcome: prepared.outcome, children: keepObservedChildren(view.children) };
  const names = imageCacheNames(view.name);
  const observedSet = findObject(view.children, GROUP_KEYS.statefulSet, view.namespace, names.statefulSet);
  const observedPolicy = pathOf(observedSet, 'spec', 'podManagementPolicy');
  const policy = observedPolicy === 'Parallel' || observedPolicy === 'OrderedReady' ? observedPolicy : undefined;
  const input: CacheRenderInput = {
    name: view.name,
    namespace: view.namespace,
    model: prepared.model,
    ...(prepared.tls && { tls: prepared.tls }),
    ...observedClaimTemplates(observedSet),
    ...(policy !== undefined && { observedPodManagementPolicy: policy }),
    config,
  };
  const children = renderCache(input);
  const rendered = children.find((c) => c.kind === 'StatefulSet');
  const readiness = combineReadiness(
    [
      workloadReadiness(observedSet, rendered !== undefined ? stampOf(rendered) : undefined),
      serviceReadiness(findObject(view.children, GROUP_KEYS.service, view.namespace, names.service)),
    ],
    'all resources are available',
  );
  return { outcome: { kind: 'rendered', readiness, input }, children };
};

/** The cache's side of the used-by protocol: its plan and its status, for one sync or finalize. */
const usedCache = (view: ParentView, prepared: PreparedCache, config: RenderConfig): UsedKind<CacheOutcome, IronicImageCacheStatus> => ({
  usedBy: IMAGE_CACHE_USED_BY,
  plan: () => planCache(view, prepared, config),
  status: (outcome, usage) => computeCacheStatus({ outcome, usage, previousStatus: view.status, generation: view.generation, now: view.now }),
});

/** sync: the children and the status. */
export const finishCache = (view: ParentView, prepared: PreparedCache, config: RenderConfig): CacheSyncResult =>
  syncUsed(view, usedCache(view, prepared, config));

/**
 * finalize: while an Ironic still names this cache, keep everything running and say who blocks. Then
 * delete the children (the claim goes with the StatefulSet) and finish once they are gone.
 */
export const finalizeCache = (view: ParentView, prepared: PreparedCache, config: RenderConfig): CacheSyncResult =>
  finalizeUsed(view, usedCache(view, prepared, config));
