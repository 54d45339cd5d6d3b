/**
 * `kubectl kustomize` (kustomize v5, built into kubectl 1.27 and later) run from the tests, and the YAML
 * helpers the deploy tests share. Nothing here interprets a kustomization: the real tool builds it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Type } from '@sinclair/typebox';
import { jsOf, parseJson } from '../helpers/json.js';
import { filesUnder } from '../support/files.js';

export type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const meta = (object: Obj): Obj => (isObj(object['metadata']) ? object['metadata'] : {});
const namespaceOf = (object: Obj): string => {
  const namespace = meta(object)['namespace'];
  return typeof namespace === 'string' ? namespace : '';
};

/** Every YAML document of a text, refusing parse errors. */
export const parseYamlText = (text: string, where: string): unknown[] =>
  parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return jsOf(doc);
  });

/** Every YAML document of a file. */
export const parseYamlFile = (file: string): unknown[] => parseYamlText(readFileSync(file, 'utf8'), file);

const objectsOf = (documents: unknown[], where: string): Obj[] =>
  documents.flatMap((value) => {
    if (value === null || value === undefined) return [];
    if (!isObj(value)) throw new Error(`${where}: a document is not a mapping`);
    return [value];
  });

/** The objects of a manifest file, skipping empty documents. */
export const readYamlDocuments = (file: string): Obj[] => objectsOf(parseYamlFile(file), file);

/** `apiVersion/kind/namespace/name`: the identity kustomize refuses to see twice. */
export const objectId = (object: Obj): string =>
  `${String(object['apiVersion'])}/${String(object['kind'])}/${namespaceOf(object)}/${String(meta(object)['name'])}`;

/** The oldest kustomize that builds deploy/ (components, `patches` with targets, image field specs). */
const MINIMUM_KUSTOMIZE_MAJOR = 5;

const run = (args: readonly string[]): { status: number | null; stdout: string; stderr: string; error?: Error } => {
  const result = spawnSync('kubectl', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ...(result.error && { error: result.error }) };
};

let checkedVersion: string | undefined;

/** kubectl's kustomize version, e.g. `v5.5.0`; throws with what to install when it is missing or too old. */
export const kustomizeVersion = (): string => {
  if (checkedVersion !== undefined) return checkedVersion;
  const result = run(['version', '--client', '--output=json']);
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(`kubectl is needed to build deploy/ (kubectl 1.27 or later): ${result.error?.message ?? result.stderr.trim()}`);
  }
  const version = parseJson(result.stdout, Type.Object({ kustomizeVersion: Type.Optional(Type.String()) }), 'kubectl version').kustomizeVersion ?? '';
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if (!(major >= MINIMUM_KUSTOMIZE_MAJOR)) {
    throw new Error(`kubectl's kustomize is ${version || 'unknown'}; deploy/ needs kustomize v${MINIMUM_KUSTOMIZE_MAJOR} (kubectl 1.27 or later)`);
  }
  checkedVersion = version;
  return version;
};

/** The objects `kubectl kustomize dir` prints; throws with kubectl's message when the build fails. */
const build = (dir: string): Obj[] => {
  const result = run(['kustomize', dir]);
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr.trim()}`);
  return objectsOf(parseYamlText(result.stdout, `kubectl kustomize ${dir}`), `kubectl kustomize ${dir}`);
};

/** The repository's deploy/ tree, whose directories refer only to each other. */
const DEPLOY = resolve('deploy');

/** Where the builds of deploy/'s directories are kept between test processes. */
const CACHE = resolve('node_modules/.cache/kustomize');

/** Every file under a directory, as a relative path, sorted. */
let deployDigest: string | undefined;

/** A digest of every file of deploy/ (its names and contents), taken once per process: deploy/ does not change while the tests run. */
const digestOfDeploy = (): string => {
  if (deployDigest !== undefined) return deployDigest;
  const hash = createHash('sha256');
  for (const file of filesUnder(DEPLOY)) hash.update(`${relative(DEPLOY, file)}\0${readFileSync(file, 'utf8')}\0`);
  deployDigest = hash.digest('hex');
  return deployDigest;
};

/**
 * The objects `kubectl kustomize dir` prints; throws with kubectl's message when the build fails.
 *
 * The same directories of deploy/ are built by many test processes: a successful build of one is kept (as
 * JSON) under a digest of the kustomize version, the directory and every file of deploy/, so a change to
 * any of them builds anew. Directories elsewhere (the tests' own overlays) are always built.
 */
export const kustomizeBuild = (dir: string): Obj[] => {
  const version = kustomizeVersion();
  const inside = relative(DEPLOY, resolve(dir));
  if (inside.startsWith('..') || isAbsolute(inside)) return build(dir);
  const key = createHash('sha256').update(`${version}\0${inside}\0${digestOfDeploy()}`).digest('hex');
  const file = join(CACHE, `${key}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Obj[];
  } catch {
    const objects = build(dir);
    mkdirSync(CACHE, { recursive: true });
    const partial = `${file}.${String(process.pid)}`;
    writeFileSync(partial, JSON.stringify(objects));
    renameSync(partial, file);
    return objects;
  }
};
