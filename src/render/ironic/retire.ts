/**
 * Retiring the workload of the other kind when highAvailability is toggled, so that two Ironic conductors
 * never run on one database: the old workload is scaled to no pod first (a Deployment to 0 replicas, a
 * DaemonSet onto no node), then kept for its pods' termination grace period once its status shows no pod,
 * and only then left out of the response (deleted). The new workload is created once the old one is gone.
 */
import type { KubeObject } from '../../api/shared/hook.js';
import { keepObserved, type KubeChild } from '../child.js';
import { LABELS } from '../names.js';
import { isRecord, pathOf, textOf } from '../observed.js';
import { numberAt, progressing, type Readiness } from '../status.js';

const RETIRED_NODE_LABEL = LABELS.retiredWorkload;

/** When the old workload was first seen without pods (a fixed time, set once, so it never moves). */
const PODS_GONE_ANNOTATION = LABELS.podsGoneSince;

/** Kubernetes' default termination grace period. */
const DEFAULT_GRACE_SECONDS = 30;

/** The next step of the retirement: the child to keep (if any), how ready the switch is, and when to look again. */
export type Retirement = { readonly child?: KubeChild; readonly readiness: Readiness; readonly resyncAfterSeconds?: number };

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** The desired form of the old workload, scaled to no pod. */
const scaledDown = (old: KubeObject, podsGoneSince: string | undefined): KubeChild => {
  const kept = keepObserved(old);
  const spec = record(kept['spec']);
  const template = record(spec['template']);
  const podSpec = record(template['spec']);
  const annotations = { ...record(kept.metadata['annotations']), ...(podsGoneSince !== undefined && { [PODS_GONE_ANNOTATION]: podsGoneSince }) };
  const metadata = { ...kept.metadata, ...(Object.keys(annotations).length > 0 && { annotations }) };
  if (old.kind === 'Deployment') return { ...kept, metadata, spec: { ...spec, replicas: 0 } };
  return { ...kept, metadata, spec: { ...spec, template: { ...template, spec: { ...podSpec, nodeSelector: { [RETIRED_NODE_LABEL]: 'true' } } } } };
};

/** Whether the observed old workload has taken the scale-down and its status counts no pod. */
const podsGone = (old: KubeObject): boolean => {
  const generation = old.metadata.generation;
  const current = generation === undefined || numberAt(old, 'status', 'observedGeneration') >= generation;
  if (!current) return false;
  if (old.kind === 'Deployment') return pathOf(old, 'spec', 'replicas') === 0 && numberAt(old, 'status', 'replicas') === 0;
  const selector = pathOf(old, 'spec', 'template', 'spec', 'nodeSelector', RETIRED_NODE_LABEL);
  return selector === 'true' && numberAt(old, 'status', 'currentNumberScheduled') === 0 && numberAt(old, 'status', 'numberMisscheduled') === 0;
};

const podCount = (old: KubeObject): number =>
  old.kind === 'Deployment'
    ? numberAt(old, 'status', 'replicas')
    : numberAt(old, 'status', 'currentNumberScheduled') + numberAt(old, 'status', 'numberMisscheduled');

/**
 * The step of retiring `old` at `now`, for a switch described by `switching` (for messages, e.g. "switching
 * to high availability").
 */
export const retireWorkload = (old: KubeObject, now: string, switching: string): Retirement => {
  const what = `the ${old.kind} ${old.metadata.name}`;
  if (!podsGone(old)) {
    return {
      child: scaledDown(old, undefined),
      readiness: progressing(`${switching}: scaling ${what} down first (${podCount(old)} pods left), so two conductors never share the database`),
    };
  }
  const since = textOf(pathOf(old, 'metadata', 'annotations', PODS_GONE_ANNOTATION)) ?? now;
  const grace = pathOf(old, 'spec', 'template', 'spec', 'terminationGracePeriodSeconds');
  const graceSeconds = typeof grace === 'number' ? grace : DEFAULT_GRACE_SECONDS;
  const elapsed = (Date.parse(now) - Date.parse(since)) / 1000;
  const remaining = Number.isNaN(elapsed) ? graceSeconds : Math.ceil(graceSeconds - elapsed);
  if (remaining > 0) {
    return {
      child: scaledDown(old, since),
      readiness: progressing(`${switching}: ${what} has no pods; waiting ${remaining}s for their termination grace period`),
      resyncAfterSeconds: remaining,
    };
  }
  return { readiness: progressing(`${switching}: waiting for ${what} to be removed`) };
};
