/**
 * The two CustomResourceDefinitions, generated from the TypeBox schemas of src/api.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { API_GROUP, API_VERSION } from '../api/common.js';
import { IronicSpec, IronicStatus } from '../api/ironic.js';
import { IronicDatabaseSpec, IronicDatabaseStatus } from '../api/ironic-database.js';
import { toStructuralSchema, type JsonObject } from './structural.js';

type PrinterColumn = {
  readonly name: string;
  readonly type: 'string' | 'date' | 'integer' | 'boolean';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
};

type CrdInput = {
  readonly kind: string;
  readonly plural: string;
  readonly description: string;
  readonly spec: TSchema;
  readonly status: TSchema;
  readonly columns: readonly PrinterColumn[];
  /** CEL rules on the whole object (e.g. name length limits that children names inherit). */
  readonly rules?: ReadonlyArray<{ readonly rule: string; readonly message: string }>;
};

const readyColumns: readonly PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the object is ready to be used' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', description: 'Why it is, or is not, ready' },
];
const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

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

const crdFor = (input: CrdInput): JsonObject => ({
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

/** The Ironic CRD. */
export const ironicCrd = (): JsonObject =>
  crdFor({
    kind: 'Ironic',
    plural: 'ironics',
    description: 'An Ironic deployment for Metal3: the bare-metal provisioning API, its image server and, optionally, DHCP.',
    spec: IronicSpec,
    status: IronicStatus,
    columns: [
      ...readyColumns,
      { name: 'Installed Version', type: 'string', jsonPath: '.status.installedVersion', description: 'The last version that became ready' },
      { name: 'Requested Version', type: 'string', jsonPath: '.status.requestedVersion', description: 'The version being installed', priority: 1 },
      ageColumn,
    ],
  });

/** The IronicDatabase CRD. */
export const ironicDatabaseCrd = (): JsonObject =>
  crdFor({
    kind: 'IronicDatabase',
    plural: 'ironicdatabases',
    description: 'A MariaDB database managed for Ironic, with persistent storage. Ironic objects use it through spec.databaseName.',
    spec: IronicDatabaseSpec,
    status: IronicDatabaseStatus,
    // The StatefulSet `<name>-database` labels its pods with `<statefulset>-<hash>`, which must fit 63 characters.
    rules: [{ rule: 'size(self.metadata.name) <= 43', message: 'the name of an IronicDatabase is at most 43 characters (its StatefulSet name must fit pod labels)' }],
    columns: [
      ...readyColumns,
      { name: 'Host', type: 'string', jsonPath: '.status.host', description: 'Where Ironic connects to', priority: 1 },
      ageColumn,
    ],
  });

/** Every CRD with the file name it is written to under deploy/crds. */
export const allCrds = (): ReadonlyArray<{ readonly file: string; readonly crd: JsonObject }> => [
  { file: `${API_GROUP}_ironics.yaml`, crd: ironicCrd() },
  { file: `${API_GROUP}_ironicdatabases.yaml`, crd: ironicDatabaseCrd() },
];
