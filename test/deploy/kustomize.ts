/**
 * A tiny kustomize, enough for deploy/ (no kubectl or kustomize binary here): follows `resources`
 * (files and directories) recursively, then applies `patches` (JSON 6902 only, with a target), the
 * `namespace` field and `images`, in kustomize's order. Anything else in a kustomization is refused, so
 * a feature this resolver does not model cannot be silently ignored.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export type Obj = Record<string, unknown>;

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'patches', 'namespace', 'images']);

/** Kinds the `namespace` transformer leaves alone (those deploy/ uses). */
const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'CompositeController', 'ClusterRole', 'ClusterRoleBinding']);

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const meta = (object: Obj): Obj => (isObj(object['metadata']) ? object['metadata'] : {});

/** Every YAML document of a file, refusing parse errors (kustomize's parser is stricter than none). */
export const parseYamlFile = (file: string): unknown[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as unknown;
  });

/** The objects of a manifest file, skipping empty documents. */
export const readYamlDocuments = (file: string): Obj[] =>
  parseYamlFile(file).flatMap((value) => {
    if (value === null || value === undefined) return [];
    if (!isObj(value)) throw new Error(`${file}: a document is not a mapping`);
    return [value];
  });

/** `group/version/kind/namespace/name`: the identity kustomize refuses to see twice. */
export const objectId = (object: Obj): string =>
  `${String(object['apiVersion'])}/${String(object['kind'])}/${String(meta(object)['namespace'] ?? '')}/${String(meta(object)['name'])}`;

export type Target = { group?: string; version?: string; kind?: string; name?: string; namespace?: string };

export const matchesTarget = (object: Obj, target: Target): boolean => {
  const apiVersion = String(object['apiVersion']);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === object['kind']) &&
    (target.name === undefined || target.name === meta(object)['name']) &&
    (target.namespace === undefined || target.namespace === meta(object)['namespace'])
  );
};

export type Operation = { op: string; path: string; value?: unknown };

const pointer = (path: string): string[] => {
  if (!path.startsWith('/')) throw new Error(`JSON pointer must start with /: ${path}`);
  return path.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
};

/** Applies one JSON 6902 operation (add, replace, remove) in place; throws when the path does not exist. */
export const applyOperation = (object: Obj, operation: Operation): void => {
  const segments = pointer(operation.path);
  const last = segments.pop();
  if (last === undefined || last === '') throw new Error(`cannot ${operation.op} the whole object`);
  let parent: unknown = object;
  for (const segment of segments) {
    parent = Array.isArray(parent) ? parent[Number(segment)] : isObj(parent) ? parent[segment] : undefined;
    if (parent === undefined) throw new Error(`${operation.path}: ${segment} does not exist`);
  }
  const value = structuredClone(operation.value);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length || (operation.op !== 'add' && index >= parent.length)) {
      throw new Error(`${operation.path}: no index ${last}`);
    }
    if (operation.op === 'add') parent.splice(index, 0, value);
    else if (operation.op === 'replace') parent[index] = value;
    else if (operation.op === 'remove') parent.splice(index, 1);
    else throw new Error(`unsupported op ${operation.op}`);
    return;
  }
  if (!isObj(parent)) throw new Error(`${operation.path}: the parent is not an object or a list`);
  if (operation.op !== 'add' && !(last in parent)) throw new Error(`${operation.path}: ${last} does not exist`);
  if (operation.op === 'add' || operation.op === 'replace') parent[last] = value;
  else if (operation.op === 'remove') delete parent[last];
  else throw new Error(`unsupported op ${operation.op}`);
};

type Image = { name: string; newName?: string; newTag?: string; digest?: string };

/** The image name without tag or digest (a registry port is not a tag). */
export const imageName = (image: string): string => {
  const withoutDigest = image.split('@')[0] ?? image;
  const colon = withoutDigest.lastIndexOf(':');
  return colon > withoutDigest.lastIndexOf('/') ? withoutDigest.slice(0, colon) : withoutDigest;
};

const retag = (image: string, rule: Image): string => {
  const name = rule.newName ?? imageName(image);
  if (rule.digest !== undefined) return `${name}@${rule.digest}`;
  if (rule.newTag !== undefined) return `${name}:${rule.newTag}`;
  return name + image.slice(imageName(image).length);
};

/** Rewrites `image` of every container and init container, wherever a pod spec is. */
const applyImages = (node: unknown, rules: readonly Image[]): void => {
  if (Array.isArray(node)) {
    for (const item of node) applyImages(item, rules);
    return;
  }
  if (!isObj(node)) return;
  for (const key of ['containers', 'initContainers']) {
    const containers = node[key];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isObj(container) || typeof container['image'] !== 'string') continue;
      const image = container['image'];
      const rule = rules.find((r) => r.name === imageName(image));
      if (rule !== undefined) container['image'] = retag(image, rule);
    }
  }
  for (const value of Object.values(node)) applyImages(value, rules);
};

export type Build = {
  readonly objects: Obj[];
  /** Every file read: kustomization files, resources and patches (absolute paths). */
  readonly files: string[];
};

/** The output of `kustomize build dir`. */
export const kustomizeBuild = (dir: string): Build => {
  const root = resolve(dir);
  const kustomizationFile = join(root, 'kustomization.yaml');
  const kustomization: unknown = parse(readFileSync(kustomizationFile, 'utf8'));
  if (!isObj(kustomization)) throw new Error(`${kustomizationFile}: not a mapping`);
  if (kustomization['apiVersion'] !== 'kustomize.config.k8s.io/v1beta1' || kustomization['kind'] !== 'Kustomization') {
    throw new Error(`${kustomizationFile}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  const unknown = Object.keys(kustomization).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length > 0) throw new Error(`${kustomizationFile}: this resolver does not model ${unknown.join(', ')}`);

  const objects: Obj[] = [];
  const files = [kustomizationFile];
  for (const resource of (kustomization['resources'] ?? []) as string[]) {
    const path = resolve(root, resource);
    if (statSync(path).isDirectory()) {
      const nested = kustomizeBuild(path);
      objects.push(...nested.objects);
      files.push(...nested.files);
    } else {
      objects.push(...readYamlDocuments(path));
      files.push(path);
    }
  }
  const seen = new Set<string>();
  for (const object of objects) {
    const id = objectId(object);
    if (seen.has(id)) throw new Error(`${kustomizationFile}: ${id} appears twice`);
    seen.add(id);
  }

  for (const patch of (kustomization['patches'] ?? []) as Array<{ path?: string; patch?: string; target?: Target }>) {
    if (patch.target === undefined) throw new Error(`${kustomizationFile}: only JSON 6902 patches with a target are modelled`);
    let operations: unknown;
    if (patch.path !== undefined) {
      const path = resolve(root, patch.path);
      [operations] = parseYamlFile(path);
      files.push(path);
    } else {
      operations = parse(patch.patch ?? '');
    }
    if (!Array.isArray(operations)) throw new Error(`${kustomizationFile}: patch ${patch.path ?? ''} is not a JSON 6902 list`);
    const targets = objects.filter((o) => matchesTarget(o, patch.target as Target));
    if (targets.length === 0) throw new Error(`${kustomizationFile}: patch ${patch.path ?? ''} matches nothing`);
    for (const target of targets) for (const operation of operations as Operation[]) applyOperation(target, operation);
  }

  const namespace = kustomization['namespace'];
  if (typeof namespace === 'string') {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(String(object['kind']))) object['metadata'] = { ...meta(object), namespace };
    }
  }
  const images = (kustomization['images'] ?? []) as Image[];
  if (images.length > 0) applyImages(objects, images);
  return { objects, files };
};
