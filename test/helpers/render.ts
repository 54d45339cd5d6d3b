/** Runs the Ironic sync pipeline in process and picks containers out of the result. */
import { syncIronic } from '../../src/hooks/ironic.js';
import type { SyncRequest } from '../../src/api/hook.js';
import { ironic, testConfig, testContext, type Obj } from './hooks.js';
import { related } from '../fixtures/ironic-scenarios.js';

export type Container = { name: string; env?: Array<{ name: string; value?: string; valueFrom?: Obj }>; volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>; ports?: Array<{ name: string; containerPort: number; hostPort?: number }>; securityContext?: Obj; [k: string]: unknown };
export type PodSpec = { containers: Container[]; initContainers?: Container[]; volumes: Array<{ name: string; [k: string]: unknown }>; [k: string]: unknown };

/** `env`: the hook server's environment (its render settings), over the test defaults. */
export const syncFor = async (spec: Obj, relatedObjects: Obj[] = [], extra: Partial<SyncRequest> = {}, env: Readonly<Record<string, string>> = {}) =>
  syncIronic(
    {
      // Installed already at the target version: no upgrade Jobs hold the workload back.
      parent: ironic(spec, { status: { installedVersion: typeof spec['version'] === 'string' ? spec['version'] : '38.0' } }),
      children: {},
      related: related(...relatedObjects),
      ...extra,
    } as SyncRequest,
    { ...testContext(), config: testConfig(env).render },
  );

export const childOf = (children: readonly unknown[], kind: string): Obj | undefined =>
  children.find((c) => (c as Obj)['kind'] === kind) as Obj | undefined;

export const podOf = (children: readonly unknown[]): PodSpec => {
  const workload = childOf(children, 'Deployment') ?? childOf(children, 'DaemonSet');
  return ((workload?.['spec'] as Obj)['template'] as Obj)['spec'] as PodSpec;
};

export const containerOf = (pod: PodSpec, name: string): Container | undefined =>
  [...pod.containers, ...(pod.initContainers ?? [])].find((c) => c.name === name);

export const envOf = (container: Container | undefined): Record<string, string> =>
  Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? `<${Object.keys(e.valueFrom ?? {})[0] ?? 'unset'}>`]));
