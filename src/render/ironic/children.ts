/**
 * The children of an Ironic, folded from the feature records: what each feature renders, in list order,
 * then the workload. Also what the plan and customize need of the same records: the names the children
 * will hold, the Secrets they are, and the objects to fetch. Pure: same input, same output.
 */
import { GROUP_KEYS } from '../../api/shared/hook.js';
import { groupKeyOfType, relatedRank } from '../../api/shared/resource-types.js';
import type { IronicModel } from '../../api/ironic/model.js';
import { SECRET_REFERENCE, type ObjectReference } from '../../api/shared/references.js';
import { toChild, type KubeChild } from '../child.js';
import { keptRenders } from '../meta.js';
import { keptIn } from '../../api/shared/memo.js';
import type { IronicNames } from '../names.js';
import type { Wanted } from '../ownership.js';
import { featuresOf, type IronicFeature } from './feature.js';
import type { IronicRenderInput, SecretRead } from './input.js';
import type { Readiness } from '../status.js';
import { renderUpgradeJob, type Phase, type UpgradeBackupStatus } from './upgrade.js';
import { renderIronicWorkload } from './workload.js';

/**
 * What the plan decided about the children of a sync (plan.ts): the workload rendered, kept as observed
 * (while a pre-upgrade Job runs) or left out (while the other workload kind retires), the upgrade Jobs to
 * render, observed objects kept as they are, and how ready it all is.
 */
export type ChildrenDecision = {
  readonly workload: 'render' | 'keep' | 'omit';
  readonly jobs: readonly Phase[];
  readonly kept: readonly KubeChild[];
  readonly readiness: Readiness;
  readonly resyncAfterSeconds?: number;
  /** The backup before the upgrade (a Job, or mariadb-operator's Backup), while the transition lasts. */
  readonly backup?: KubeChild;
  /** The backup before this transition, for the status. */
  readonly upgradeBackup?: UpgradeBackupStatus;
};

/**
 * The children of a decision: what the features render, the workload only when decided so (it is not rendered
 * otherwise), the kept ones, then the Jobs of the transition from `from`.
 */
export const renderDecision = (input: IronicRenderInput, decision: ChildrenDecision, from: string, all: readonly IronicFeature[]): KubeChild[] => {
  const render = renderersOf(all);
  return [
    ...render.children(input),
    ...(decision.workload === 'render' ? [render.workload(input)] : []),
    ...decision.kept,
    ...(decision.backup !== undefined ? [decision.backup] : []),
    ...decision.jobs.map((phase) => toChild(renderUpgradeJob(input, phase, from))),
  ];
};

/** The renderers of one feature list: the features' children, and the workload; each kept (keptRenders). */
type Renderers = { readonly children: (input: IronicRenderInput) => KubeChild[]; readonly workload: (input: IronicRenderInput) => KubeChild };

/** The kept renderers of each feature list (production has one; a test may fold its own). */
const keptByFeatures = new WeakMap<readonly IronicFeature[], Renderers>();

/** Equal inputs get the same frozen children. */
const renderersOf = (all: readonly IronicFeature[]): Renderers =>
  keptIn(keptByFeatures, all, () => ({
    children: keptRenders((input: IronicRenderInput) =>
      featuresOf(all, input.model)
        .flatMap((f) => f.children?.(input) ?? [])
        .filter((c) => c !== undefined)
        .map(toChild),
    ),
    workload: keptRenders((input: IronicRenderInput) => toChild(renderIronicWorkload(input, featuresOf(all, input.model)))),
  }));

/**
 * The children with names fixed by the parent's name that this spec creates (content-named Secrets and
 * Jobs cannot collide by accident). Both workload kinds count: an orphaned Deployment would run a second
 * conductor next to a DaemonSet.
 */
export const wantedIronicChildren = (model: IronicModel, names: IronicNames, all: readonly IronicFeature[]): Wanted[] =>
  [
    ...featuresOf(all, model).flatMap((f) => f.wanted?.(model, names) ?? []),
    { group: GROUP_KEYS.deployment, name: names.workload },
    { group: GROUP_KEYS.daemonSet, name: names.workload },
  ].sort((a, b) => wantedRank(a) - wantedRank(b));

/** Customize's order of rules, for a child's type. */
const wantedRank = (w: Wanted): number => relatedRank((type) => groupKeyOfType(type) === w.group);

/**
 * Whether a Secret name is one a feature renders, whether or not this spec still has the feature (a
 * database's credentials, for one, belong to someone else).
 */
export const isOwnSecret = (names: IronicNames, secret: string, all: readonly IronicFeature[]): boolean =>
  all.some((f) => f.ownsSecret?.(names, secret) === true);

/** Whether a Secret name is taken by a feature: one it renders, or one it has filled (see takesSecret). */
export const isTakenSecret = (names: IronicNames, secret: string, all: readonly IronicFeature[]): boolean =>
  all.some((f) => f.ownsSecret?.(names, secret) === true || f.takesSecret?.(names, secret) === true);

/** The Secret keys the features of this Ironic read, in list order. */
export const secretReads = (model: IronicModel, all: readonly IronicFeature[]): SecretRead[] =>
  featuresOf(all, model).flatMap((f) => f.readsSecrets?.(model) ?? []);

/**
 * The objects customize asks for: those the spec names, the Secrets the features read, and those the
 * features derive from the parent's name.
 */
export const ironicReferences = (model: IronicModel, names: IronicNames, all: readonly IronicFeature[]): ObjectReference[] => [
  ...model.references,
  ...secretReads(model, all).map((read) => ({ ...SECRET_REFERENCE, name: read.name, field: read.path })),
  ...featuresOf(all, model).flatMap((f) => f.references?.(model, names) ?? []),
];
