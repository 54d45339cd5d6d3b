/**
 * The CustomResourceDefinitions of the parent kinds, generated from their descriptors (src/kinds): the
 * TypeBox schemas of src/api plus each kind's description, printer columns and CEL rules.
 */
import { IRONIC } from './ironic.js';
import { IRONIC_DATABASE } from './ironic-database.js';
import { PARENT_KINDS, type ParentKind } from './index.js';
import { crdFileName, crdFor } from '../crd/crd.js';
import type { JsonObject } from '../crd/structural.js';

/** The CRD of one parent kind. */
export const crdOf = (kind: ParentKind): JsonObject => crdFor({ kind: kind.kind, plural: kind.plural, spec: kind.spec, status: kind.status, ...kind.crd });

/** The Ironic CRD. */
export const ironicCrd = (): JsonObject => crdOf(IRONIC);

/** The IronicDatabase CRD. */
export const ironicDatabaseCrd = (): JsonObject => crdOf(IRONIC_DATABASE);

/** Every CRD with the file name it is written to under deploy/crds, one per parent kind. */
export const allCrds = (): readonly { readonly file: string; readonly crd: JsonObject }[] =>
  PARENT_KINDS.map((kind) => ({ file: crdFileName(kind.plural), crd: crdOf(kind) }));
