/**
 * The CompositeControllers of deploy/, read from the manifests, as the emulator's controller specs: what
 * the cluster would really run. Every YAML file under deploy/ is read (wherever it lives), and the
 * controllers are ordered as the parent kinds sync (src/kinds).
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { ChildType, ControllerSpec, UpdateStrategy } from '../../src/cli/controllers.js';
import { inSyncOrder, PARENT_KINDS } from '../../src/kinds/index.js';
import { BUILTIN_RESOURCES } from '../../src/api/shared/resource-types.js';
import { kustomizeBuild } from '../deploy/kustomize.js';
import { filesUnder } from './files.js';

type Json = Record<string, unknown>;

/** Plural resources of the manifests and their kinds: the built-in ones and every parent kind. */
const KINDS: ReadonlyMap<string, string> = new Map([
  ...BUILTIN_RESOURCES.map((r) => [r.resource, r.kind] as const),
  ...PARENT_KINDS.map((k) => [k.plural, k.kind] as const),
]);

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

const groupOf = (rule: unknown): string => {
  const kind = KINDS.get(String(at(rule, 'resource')));
  if (kind === undefined) throw new Error(`unknown resource ${String(at(rule, 'resource'))}`);
  return `${kind}.${String(at(rule, 'apiVersion'))}`;
};

const STRATEGIES: readonly UpdateStrategy[] = ['OnDelete', 'Recreate', 'InPlace'];

const strategyOf = (rule: unknown): UpdateStrategy => {
  const method = at(rule, 'updateStrategy', 'method') ?? 'OnDelete';
  const strategy = STRATEGIES.find((s) => s === method);
  if (strategy === undefined) throw new Error(`the emulator does not model update method ${typeof method === 'string' ? method : JSON.stringify(method)}`);
  return strategy;
};

/** The path of a webhook: its `path` (with a `service`), or the path of its `url`. */
const webhookPath = (webhook: unknown): string => {
  const path = at(webhook, 'path');
  if (typeof path === 'string') return path;
  const url = at(webhook, 'url');
  if (typeof url === 'string') return new URL(url).pathname;
  throw new Error('the emulator needs hooks.sync.webhook.url, or service and path');
};

/** A CompositeController object as a controller spec (hook paths from the sync webhook). */
export const controllerSpecOf = (object: unknown): ControllerSpec => {
  const spec = at(object, 'spec');
  const syncPath = webhookPath(at(spec, 'hooks', 'sync', 'webhook'));
  if (at(spec, 'generateSelector') !== true) throw new Error('the emulator models generateSelector: true only');
  const children = at(spec, 'childResources');
  const childTypes: ChildType[] = (Array.isArray(children) ? children : []).map((rule) => ({ group: groupOf(rule), strategy: strategyOf(rule) }));
  return {
    name: String(at(object, 'metadata', 'name')),
    parentGroup: groupOf(at(spec, 'parentResource')),
    hookPath: syncPath.replace(/\/sync$/, ''),
    childTypes,
    finalize: at(spec, 'hooks', 'finalize') !== undefined,
  };
};

/** Every .yaml/.yml file under a directory, recursively, sorted. */
export const yamlFilesUnder = (dir: string): string[] => filesUnder(dir).filter((file) => /\.ya?ml$/.test(file));

/** The objects (mappings) of every YAML document under a directory, with the file each comes from. */
const readManifestsUnder = (dir: string): { readonly file: string; readonly object: Json }[] =>
  yamlFilesUnder(dir).flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' }).flatMap((document) => {
      const value: unknown = document.toJS();
      return isRecord(value) ? [{ file, object: value }] : [];
    }),
  );

const manifestsRead = new Map<string, { readonly file: string; readonly object: Json }[]>();

/**
 * The manifests under a directory, read once per test process (deploy/ does not change while the tests run); every
 * caller gets its own copy. Overlay builds are kept by kustomizeBuild itself, between processes.
 */
const manifestsUnder = (dir: string): { readonly file: string; readonly object: Json }[] => {
  const known = manifestsRead.get(dir) ?? readManifestsUnder(dir);
  manifestsRead.set(dir, known);
  return structuredClone(known);
};

/** The CompositeController objects under a directory (deploy/ by default). */
const compositeControllersUnder = (dir = 'deploy'): { readonly file: string; readonly object: Json }[] =>
  manifestsUnder(dir).filter(({ object }) => object['kind'] === 'CompositeController' && String(object['apiVersion']).startsWith('metacontroller.k8s.io/'));

/** The position of a controller's parent kind in the sync order (unknown parents last). */
const syncRank = (controller: ControllerSpec): number => {
  const index = inSyncOrder(PARENT_KINDS).findIndex((k) => k.groupKey === controller.parentGroup);
  return index < 0 ? PARENT_KINDS.length : index;
};

/** The deployed controllers, in sync order (databases first: an Ironic then sees the status its database got in the same round). */
export const deployedControllers = (): ControllerSpec[] => {
  const controllers = compositeControllersUnder().map(({ object }) => controllerSpecOf(object));
  const names = controllers.map((c) => c.name);
  const twice = names.filter((name, index) => names.indexOf(name) !== index);
  if (twice.length > 0) throw new Error(`deploy/ declares the CompositeController(s) ${twice.join(', ')} more than once`);
  return controllers.sort((a, b) => syncRank(a) - syncRank(b));
};

/**
 * The controllers and the hook server's environment of a deploy overlay (e.g. `mariadb-operator`), built
 * with the real `kubectl kustomize`: its CompositeControllers declare the overlay's child types and its
 * Deployment sets the variables that turn them on.
 */
export const overlayDeployment = (overlay: string): { readonly controllers: ControllerSpec[]; readonly env: Readonly<Record<string, string>> } => {
  const objects = kustomizeBuild(`deploy/overlays/${overlay}`);
  const controllers = objects.filter((o) => o['kind'] === 'CompositeController').map(controllerSpecOf);
  return { controllers: controllers.sort((a, b) => syncRank(a) - syncRank(b)), env: hookEnvironment(objects) };
};

/** The variables with a plain value that a build's hook Deployment (`ironic-hooks`) sets: MARIADB_OPERATOR, CERT_MANAGER, ... */
export const hookEnvironment = (objects: readonly unknown[]): Record<string, string> => {
  const deployment = objects.find((o) => at(o, 'kind') === 'Deployment' && at(o, 'metadata', 'name') === 'ironic-hooks');
  const containers = at(deployment, 'spec', 'template', 'spec', 'containers');
  const env = Array.isArray(containers) ? at(containers[0], 'env') : undefined;
  const variables = (Array.isArray(env) ? env : []).flatMap((e) =>
    typeof at(e, 'value') === 'string' ? [[String(at(e, 'name')), String(at(e, 'value'))] as const] : [],
  );
  return Object.fromEntries(variables);
};
