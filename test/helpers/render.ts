/** Runs the Ironic sync pipeline in process and picks containers out of the result. */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { syncIronic } from '../../src/hooks/ironic.js';
import type { SyncRequest, SyncResponse } from '../../src/api/shared/hook.js';
import { ironic, syncRequest, testConfig, testContext, type Obj } from './hooks.js';
import { childOf, isChild } from './children.js';
import { related } from '../fixtures/ironic-scenarios.js';

export type Container = IContainer;
/** A pod spec as the hooks render it: always with volumes. */
export type PodSpec = IPodSpec & { volumes: NonNullable<IPodSpec['volumes']> };
export { childOf };

/** `env`: the hook server's environment (its render settings), over the test defaults. */
export const syncFor = async (
  spec: Obj,
  relatedObjects: Obj[] = [],
  extra: Partial<SyncRequest> = {},
  env: Readonly<Record<string, string>> = {},
): Promise<SyncResponse> =>
  syncIronic(
    syncRequest({
      // Installed already at the target version: no upgrade Jobs hold the workload back.
      parent: ironic(spec, { status: { installedVersion: typeof spec['version'] === 'string' ? spec['version'] : '38.0' } }),
      children: {},
      related: related(...relatedObjects),
      ...extra,
    }),
    { ...testContext(), config: testConfig(env).render },
  );

/** The pod spec of the first Deployment, or else DaemonSet, of the children. */
export const podOf = (children: readonly unknown[]): PodSpec => {
  const workload = childOf(children, 'Deployment') ?? childOf(children, 'DaemonSet');
  return podSpecOf(workload?.spec?.template.spec);
};

/** The pod template of a workload child (Deployment, DaemonSet, StatefulSet, Job); undefined for other objects. */
export const podTemplateOf = (child: unknown): IPodTemplateSpec | undefined =>
  isChild('Deployment')(child) || isChild('DaemonSet')(child) || isChild('StatefulSet')(child) || isChild('Job')(child) ? child.spec?.template : undefined;

const hasVolumes = (pod: IPodSpec): pod is PodSpec => pod.volumes !== undefined;

/** A rendered pod spec (the object itself); throws when there is none or it has no volumes. */
export const podSpecOf = (pod: IPodSpec | undefined): PodSpec => {
  if (pod === undefined || !hasVolumes(pod)) throw new Error('no pod spec with volumes');
  return pod;
};

export const containerOf = (pod: PodSpec, name: string): Container | undefined =>
  [...pod.containers, ...(pod.initContainers ?? [])].find((c) => c.name === name);

export const envOf = (container: Container | undefined): Record<string, string> =>
  Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? `<${Object.keys(e.valueFrom ?? {})[0] ?? 'unset'}>`]));
