/**
 * The CustomResourceDefinition builder: one namespaced kind of the ironic.metal3.io group, its
 * openAPIV3Schema generated from TypeBox spec and status schemas (src/crd/structural.ts), with a status
 * subresource and printer columns. It knows nothing of the kinds themselves: each parent kind's
 * descriptor (src/kinds) supplies the inputs, and src/kinds/crds.ts assembles the list.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { API_GROUP, API_VERSION } from '../api/shared/common.js';
import { toStructuralSchema, type JsonObject } from './structural.js';

/** One `additionalPrinterColumns` entry (`kubectl get`). */
export type PrinterColumn = {
  readonly name: string;
  readonly type: 'string' | 'date' | 'integer' | 'boolean';
  readonly jsonPath: string;
  readonly description?: string;
  /** 1: shown with `-o wide` only. */
  readonly priority?: number;
};

/** A CEL rule (`x-kubernetes-validations`) with the message the API server answers when it fails. */
export type CelRule = { readonly rule: string; readonly message: string };

/** What the CRD of one kind is made of. */
export type CrdInput = {
  readonly kind: string;
  readonly plural: string;
  /** The description of the whole object (`kubectl explain <kind>`). */
  readonly description: string;
  readonly spec: TSchema;
  readonly status: TSchema;
  readonly columns: readonly PrinterColumn[];
  /** CEL rules on the whole object (e.g. name length limits that children names inherit). */
  readonly rules?: readonly CelRule[];
};

/** Ready and Reason, read from the Ready condition: the first columns of every kind. */
export const readyColumns: readonly PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the object is ready to be used' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', description: 'Why it is, or is not, ready' },
];

/** Age: the last column of every kind, as kubectl shows it for built-in kinds. */
export const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const rootSchema = (input: CrdInput): JsonObject =>
  toStructuralSchema(
    Type.Object(
      {
        apiVersion: Type.Optional(Type.String({ description: 'Version of the schema of this object.' })),
        kind: Type.Optional(Type.String({ description: 'Kind of this object.' })),
        metadata: Type.Optional(Type.Object({})),
        spec: Type.Optional({ ...input.spec, default: {} }),
        status: Type.Optional(input.status),
      },
      { description: input.description, ...(input.rules !== undefined && { 'x-kubernetes-validations': input.rules }) },
    ),
  );

/** The CRD of one kind: namespaced, in the metal3 category, one served and stored version with a status subresource. */
export const crdFor = (input: CrdInput): JsonObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${input.plural}.${API_GROUP}` },
  spec: {
    group: API_GROUP,
    names: {
      kind: input.kind,
      listKind: `${input.kind}List`,
      plural: input.plural,
      singular: input.kind.toLowerCase(),
      categories: ['metal3'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: API_VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: input.columns,
        schema: { openAPIV3Schema: rootSchema(input) },
      },
    ],
  },
});

/** The file a CRD is written to under deploy/crds, e.g. `ironic.metal3.io_ironics.yaml`. */
export const crdFileName = (plural: string): string => `${API_GROUP}_${plural}.yaml`;
