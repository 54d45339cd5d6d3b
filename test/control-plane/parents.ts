/** Reading the parents of the real cluster in its tests: their Ready condition, and waiting for it. */
import { setTimeout as sleep } from 'node:timers/promises';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { isObj, valueAt, type Obj } from '../support/paths.js';
import { waitFor, type RealCluster } from '../support/real-cluster.js';

/** The parents of the three kinds, by plural, for the API paths. */
export const PARENT_PLURALS = PARENT_KINDS.map((k) => `${k.kind.toLowerCase()}s`);

/** The Ready condition of an object, or undefined. */
export const readyOf = (object: unknown): Obj | undefined => {
  const conditions = valueAt(object, 'status', 'conditions');
  return Array.isArray(conditions) ? conditions.filter(isObj).find((c) => c['type'] === 'Ready') : undefined;
};

/** Every parent of a namespace. */
export const parentsIn = async (cluster: RealCluster, namespace: string): Promise<Obj[]> =>
  (await Promise.all(PARENT_PLURALS.map((plural) => cluster.api.list(`/apis/ironic.metal3.io/v1alpha1/namespaces/${namespace}/${plural}`)))).flat();

/** A field that is a string, or ''. */
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export const describeParent = (p: Obj): string => {
  const ready = readyOf(p);
  return `${text(p['kind'])} ${text(valueAt(p, 'metadata', 'name'))}: ${text(ready?.['status']) || 'no Ready'} ${text(ready?.['reason'])} ${text(ready?.['message'])}`;
};

/** Waits until every parent of a namespace is Ready=True for its current generation. */
export const allReady = async (cluster: RealCluster, namespace: string, timeoutMs = 150_000): Promise<Obj[]> => {
  let last: Obj[] = [];
  return waitFor(
    `every parent of ${namespace} Ready`,
    async () => {
      last = await parentsIn(cluster, namespace);
      const ready = last.every((p) => readyOf(p)?.['status'] === 'True' && valueAt(p, 'status', 'observedGeneration') === valueAt(p, 'metadata', 'generation'));
      return last.length > 0 && ready ? last : undefined;
    },
    timeoutMs,
    () => last.map(describeParent).join('; '),
  );
};

/** Metacontroller's log lines that write a child of a parent in `namespaces`, or report an error (any). */
export const writesAndErrors = (lines: readonly Obj[], namespaces: ReadonlySet<string>): string[] =>
  lines.flatMap((line) => {
    const msg = text(line['msg']);
    const child = valueAt(line, 'child');
    const what = isObj(child) ? ` ${text(child['kind'])} ${text(child['namespace'])}/${text(child['name'])}` : '';
    if (line['level'] === 'error') return [`error: ${msg} ${text(line['error'])}`];
    return /^(Creating|Updating|Deleting)/.test(msg) && namespaces.has(text(valueAt(line, 'parent', 'namespace'))) ? [`${msg}${what}`] : [];
  });

/** Waits until Metacontroller has written nothing in `namespaces` (and logged no error) for `quietMs`: a change is applied. */
export const settled = async (cluster: RealCluster, namespaces: ReadonlySet<string>, quietMs: number): Promise<void> => {
  let seen: string[] = [];
  await waitFor(
    'Metacontroller to stop writing',
    async () => {
      const from = cluster.metacontrollerLog().length;
      await sleep(quietMs);
      seen = writesAndErrors(cluster.metacontrollerLog(from).lines, namespaces);
      return seen.length === 0 ? true : undefined;
    },
    150_000,
    () => seen.join('; '),
  );
};
