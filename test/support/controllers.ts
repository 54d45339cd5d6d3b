/**
 * The CompositeControllers of deploy/metacontroller, read from the manifests, as the emulator's
 * controller specs: what the cluster would really run.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ChildType, ControllerSpec, UpdateStrategy } from '../../src/cli/controllers.js';

type Json = Record<string, unknown>;

/** Plural resources of the manifests and their kinds. */
const KINDS: Readonly<Record<string, string>> = {
  secrets: 'Secret',
  configmaps: 'ConfigMap',
  services: 'Service',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  deployments: 'Deployment',
  daemonsets: 'DaemonSet',
  statefulsets: 'StatefulSet',
  jobs: 'Job',
  ingresses: 'Ingress',
  networkpolicies: 'NetworkPolicy',
  servicemonitors: 'ServiceMonitor',
  ironics: 'Ironic',
  ironicdatabases: 'IronicDatabase',
};

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

const groupOf = (rule: unknown): string => {
  const kind = KINDS[String(at(rule, 'resource'))];
  if (kind === undefined) throw new Error(`unknown resource ${String(at(rule, 'resource'))}`);
  return `${kind}.${String(at(rule, 'apiVersion'))}`;
};

const STRATEGIES = new Set<string>(['OnDelete', 'Recreate', 'InPlace']);

const strategyOf = (rule: unknown): UpdateStrategy => {
  const method = at(rule, 'updateStrategy', 'method') ?? 'OnDelete';
  if (typeof method !== 'string' || !STRATEGIES.has(method)) throw new Error(`the emulator does not model update method ${String(method)}`);
  return method as UpdateStrategy;
};

/** A CompositeController object as a controller spec (hook paths from the sync webhook URL). */
export const controllerSpecOf = (object: unknown): ControllerSpec => {
  const spec = at(object, 'spec');
  const syncUrl = at(spec, 'hooks', 'sync', 'webhook', 'url');
  if (typeof syncUrl !== 'string') throw new Error('the emulator needs hooks.sync.webhook.url');
  if (at(spec, 'generateSelector') !== true) throw new Error('the emulator models generateSelector: true only');
  const children = at(spec, 'childResources');
  const childTypes: ChildType[] = (Array.isArray(children) ? children : []).map((rule) => ({ group: groupOf(rule), strategy: strategyOf(rule) }));
  return {
    name: String(at(object, 'metadata', 'name')),
    parentGroup: groupOf(at(spec, 'parentResource')),
    hookPath: new URL(syncUrl).pathname.replace(/\/sync$/, ''),
    childTypes,
    finalize: at(spec, 'hooks', 'finalize') !== undefined,
  };
};

const read = (file: string): ControllerSpec => controllerSpecOf(parse(readFileSync(file, 'utf8')));

/** The deployed controllers, databases first (an Ironic then sees the status its database got in the same round). */
export const deployedControllers = (): ControllerSpec[] => [
  read('deploy/metacontroller/ironicdatabase-controller.yaml'),
  read('deploy/metacontroller/ironic-controller.yaml'),
];
