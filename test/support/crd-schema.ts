/**
 * What the API server does to a custom resource with a structural schema before storing it: defaults,
 * then pruning of unknown fields (unless x-kubernetes-preserve-unknown-fields). Also the admission
 * check of a parent against its CRD (OpenAPI schema and CEL rules).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { crdOf as generatedCrd } from '../../src/kinds/crds.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { checkAgainstCrd, schemaOf } from '../helpers/crd-check.js';
import { isResource, type KubeResource } from '../../src/cli/objects.js';
import { objAt } from './paths.js';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A published CRD kept as a test fixture (see its SOURCE.md). */
const fixtureCrd = (path: string): (() => Json) => {
  let crd: Json | undefined;
  return () => (crd ??= objAt(parse(readFileSync(path, 'utf8'))));
};

/** cert-manager's CRDs (test/fixtures/cert-manager, release v1.21.1), by kind. */
export const CERT_MANAGER_CRDS: ReadonlyMap<string, () => Json> = new Map([
  ['Certificate', fixtureCrd('test/fixtures/cert-manager/cert-manager.io_certificates.yaml')],
  ['Issuer', fixtureCrd('test/fixtures/cert-manager/cert-manager.io_issuers.yaml')],
]);

/** The CRD of every parent kind, and of the cert-manager kinds, by kind. */
const CRDS: ReadonlyMap<string, () => Json> = new Map([...PARENT_KINDS.map((kind) => [kind.kind, () => generatedCrd(kind)] as const), ...CERT_MANAGER_CRDS]);

const crdOf = (kind: string): Json | undefined => CRDS.get(kind)?.();

/** The value as stored: defaults applied top-down (into defaulted values too), unknown fields dropped. */
export const defaultAndPrune = (schema: Json, value: unknown): unknown => {
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isRecord(items) ? value.map((v) => defaultAndPrune(items, v)) : value;
  }
  if (!isRecord(value)) return value;
  const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
  const additional = isRecord(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  const keepUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const child = properties !== undefined && isRecord(properties[key]) ? properties[key] : additional;
    if (child !== undefined) out[key] = defaultAndPrune(child, item);
    else if (keepUnknown) out[key] = item;
  }
  for (const [key, child] of Object.entries(properties ?? {})) {
    if (out[key] === undefined && isRecord(child) && child['default'] !== undefined) out[key] = defaultAndPrune(child, structuredClone(child['default']));
  }
  return out;
};

/** The status a parent keeps after the API server pruned it. */
export const storedStatus = (kind: string, status: Json): Json => {
  const crd = crdOf(kind);
  if (crd === undefined) return status;
  const schema = objAt(schemaOf(crd), 'properties')['status'];
  return isRecord(schema) ? objAt(defaultAndPrune(schema, status)) : status;
};

/** The spec (and the rest but metadata and status) a parent keeps: defaulted and pruned. */
export const storedObject = (object: KubeResource): KubeResource => {
  const crd = crdOf(object.kind);
  if (crd === undefined) return object;
  const { metadata, status, ...rest } = object;
  const stored = { ...objAt(defaultAndPrune(schemaOf(crd), rest)), metadata, ...(status !== undefined && { status }) };
  if (!isResource(stored)) throw new Error(`${object.kind} ${metadata.name}: not an object once stored`);
  return stored;
};

/** Why the API server refuses a parent (empty when it is accepted); `old` enables transition rules. */
export const admissionProblems = (object: { readonly kind: string }, old?: unknown): string[] => {
  const crd = crdOf(object.kind);
  return crd === undefined ? [] : checkAgainstCrd(crd, object, old);
};
