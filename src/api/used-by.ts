/**
 * The "used by Ironics" protocol of a kind that Ironic objects name in their spec (IronicDatabase through
 * `spec.databaseName`, IronicImageCache through `spec.imageCacheName`): its `status.usedBy` lists the
 * Ironics of its namespace that name it, and its deletion waits while that list is not empty (the finalize
 * hook keeps the children and reports `DeletionBlocked`, a ValidatingAdmissionPolicy refuses the DELETE).
 * A kind takes part by describing itself with a `UsedBy`; src/render/used-by.ts makes the decisions, the
 * CRD generator writes the admission policy, and this module builds the status field.
 */
import { Type, type TArray, type TOptional, type TString } from '@sinclair/typebox';
import type { IronicSpec } from './ironic/schema.js';

/** How Ironics name an object of a kind they use, and what the messages call that object. */
export type UsedBy = {
  /** What one object of the kind is, in messages: `database`, `image cache`. */
  readonly what: string;
  /** The field of an Ironic's spec that names the object: `databaseName`, `imageCacheName`. */
  readonly ironicField: keyof IronicSpec;
};

/** The `status.usedBy` field of a kind that Ironics use. */
export const UsedByStatus = (usedBy: UsedBy): TOptional<TArray<TString>> =>
  Type.Optional(
    Type.Array(Type.String(), {
      description: `The Ironic objects of the namespace whose spec.${usedBy.ironicField} names this ${usedBy.what}. Deletion waits until this list is empty.`,
    }),
  );
