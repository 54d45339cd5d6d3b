/**
 * `kubectl kustomize` (kustomize v5, built into kubectl 1.27 and later) run from the tests, and the YAML
 * helpers the deploy tests share. Nothing here interprets a kustomization: the real tool builds it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { Type } from '@sinclair/typebox';
import { jsOf, parseJson } from '../helpers/json.js';

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
export const kustomizeBuild = (dir: string): Obj[] => {
  kustomizeVersion();
  const result = run(['kustomize', dir]);
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr.trim()}`);
  return objectsOf(parseYamlText(result.stdout, `kubectl kustomize ${dir}`), `kubectl kustomize ${dir}`);
};
