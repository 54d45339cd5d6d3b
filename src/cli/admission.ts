/**
 * The API server's admission of a parent object (every kind of src/kinds) against its generated CRD, as
 * `kubectl apply` meets it: strict field validation refuses unknown fields by path, then the object is
 * defaulted and checked against the structural schema, then against the CEL rules. The status is the
 * status subresource's business and is not checked (the main resource ignores it).
 */
import { celProblems, defaultAndPrune, schemaProblems } from './emulation/schema-check.js';
import { closestName, typoEdits } from './closest.js';
import { unknownFieldsBeside, type UnknownField } from './emulation/strict.js';
import { crdOf } from '../kinds/crds.js';
import { PARENT_KINDS, type ParentKind } from '../kinds/index.js';
import { isRecord, type Json } from './objects.js';

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);

const schemaCache = new Map<string, Json>();

/** The openAPIV3Schema of a kind's CRD (its only version). */
export const crdSchemaOf = (kind: ParentKind): Json => {
  const cached = schemaCache.get(kind.kind);
  if (cached !== undefined) return cached;
  const versions = (crdOf(kind)['spec'] as Json)['versions'];
  const schema = Array.isArray(versions) && isRecord(versions[0]) && isRecord(versions[0]['schema']) ? versions[0]['schema']['openAPIV3Schema'] : undefined;
  if (!isRecord(schema)) throw new Error(`the CRD of ${kind.kind} has no openAPIV3Schema`);
  schemaCache.set(kind.kind, schema);
  return schema;
};

/** The parent kind of an object, if it is one. */
export const parentKindOf = (object: { readonly apiVersion?: unknown; readonly kind?: unknown }): ParentKind | undefined =>
  PARENT_KINDS.find((k) => k.apiVersion === object.apiVersion && k.kind === object.kind);

/** `spec.networking.ipAdress: unknown field`, and the closest declared name beside it when one is a likely typo. */
const unknownFieldProblem = ({ path, known }: UnknownField): string => {
  const name = path.slice(path.lastIndexOf('.') + 1);
  const closest = closestName(name, known, typoEdits(name));
  return `${path}: unknown field${closest === undefined ? '' : ` (the closest is ${closest})`}`;
};

/** Unknown fields, as strict field validation reports them (`spec.networking.ipAdress: unknown field`), with the closest known name. */
const unknownFieldProblems = (kind: ParentKind, object: Json): string[] =>
  [
    ...Object.keys(object)
      .filter((key) => !TOP_LEVEL.has(key))
      .map((key) => ({ path: key, known: [...TOP_LEVEL] })),
    ...unknownFieldsBeside(kind.spec, object['spec'], 'spec'),
  ].map(unknownFieldProblem);

/** The object as the API server stores it: defaulted and pruned to its CRD (metadata and status untouched). */
export const storedParent = <T extends { readonly kind: string }>(kind: ParentKind, object: T): T => {
  const { metadata, status, ...rest } = object as unknown as Json;
  const stored = defaultAndPrune(crdSchemaOf(kind), rest) as Json;
  return { ...stored, metadata, ...(status !== undefined && { status }) } as unknown as T;
};

/** Defaulted without status; metadata as given (the CRD schema does not describe it). */
const asStored = (schema: Json, object: Json): Json => {
  const { status: _status, metadata, ...rest } = object;
  return { ...(defaultAndPrune(schema, rest) as Json), metadata };
};

/**
 * Why the API server refuses a parent object (empty when it is accepted); `old` (the stored object)
 * enables the transition rules. Objects of other kinds are not checked here.
 */
export const parentProblems = (object: unknown, old?: unknown): string[] => {
  if (!isRecord(object)) return ['the object is not a mapping'];
  const kind = parentKindOf(object);
  if (kind === undefined) return [];
  const unknown = unknownFieldProblems(kind, object);
  if (unknown.length > 0) return unknown;
  const schema = crdSchemaOf(kind);
  const stored = asStored(schema, object);
  const structural = schemaProblems(schema, stored, '');
  if (structural.length > 0) return structural;
  return celProblems(schema, stored, isRecord(old) ? asStored(schema, old) : undefined);
};

/** One line per refused parent, as kubectl prints them: `Ironic "ns/name" is invalid: spec.x: unknown field; ...`. */
export const admissionRefusals = (
  objects: readonly { readonly kind: string; readonly metadata: { readonly name: string; readonly namespace?: string } }[],
): string[] =>
  objects.flatMap((object) => {
    const problems = parentProblems(object);
    const where = object.metadata.namespace === undefined ? object.metadata.name : `${object.metadata.namespace}/${object.metadata.name}`;
    return problems.length === 0 ? [] : [`${object.kind} "${where}" is invalid: ${problems.join('; ')}`];
  });
