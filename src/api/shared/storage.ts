/**
 * The `spec.storage` of every kind whose StatefulSet keeps its data on one volume (IronicDatabase,
 * IronicImageCache): the size, the storage class, or an emptyDir instead of a claim. The schema, the CEL
 * rules that keep the volume's nature once the object exists, and the model; the semantic rules are in
 * validate-storage.ts, the claim template in src/render/volume-claim.ts.
 */
import { Type, type TBoolean, type TObject, type TOptional, type TProperties, type TString } from '@sinclair/typebox';
import { canonical, given } from './fields.js';
import type { VolumeStorageModel } from './model.js';
import { SIZE_PATTERN } from './schema-messages.js';

/** The words a kind's storage is described with. */
export type StorageWords = {
  /** The volume, in descriptions: `data volume`, `cache volume`. */
  readonly volume: string;
  readonly defaultSize: string;
  /** What follows `Size of the <volume>, as a Kubernetes quantity. Defaults to <size>.` */
  readonly sizeNote: string;
  /** The description of `ephemeral`: what an emptyDir means for this kind. */
  readonly ephemeral: string;
  /** The description of the whole `storage` object. */
  readonly description: string;
};

type StorageProperties = {
  size: TOptional<TString>;
  storageClassName: TOptional<TString>;
  ephemeral: TOptional<TBoolean>;
};

const storageProperties = (words: StorageWords): StorageProperties => ({
  size: Type.Optional(
    Type.String({
      description: `Size of the ${words.volume}, as a Kubernetes quantity. Defaults to ${words.defaultSize}. ${words.sizeNote}`,
      pattern: SIZE_PATTERN,
      default: words.defaultSize,
    }),
  ),
  storageClassName: Type.Optional(Type.String({ description: `StorageClass of the ${words.volume}. Empty means the cluster default.` })),
  ephemeral: Type.Optional(Type.Boolean({ description: words.ephemeral, default: false })),
});

/** The `storage` schema of a kind: size, storageClassName and ephemeral, then the kind's own fields (`extra`). */
export const VolumeStorage = <P extends TProperties>(words: StorageWords, extra: P): TObject<StorageProperties & P> =>
  Type.Object(
    { ...storageProperties(words), ...extra },
    {
      description: words.description,
      'x-kubernetes-validations': [
        {
          rule: "!(has(self.ephemeral) && self.ephemeral) || !has(self.storageClassName) || self.storageClassName == ''",
          message: 'storageClassName cannot be used with ephemeral storage',
        },
      ],
    },
  );

/** CEL, on the spec (`root` is self or oldSelf): whether the data lives in an emptyDir. */
export const ephemeralOf = (root: string): string => `(has(${root}.storage) && has(${root}.storage.ephemeral) && ${root}.storage.ephemeral)`;

/** CEL, on the spec: the storage class, empty for the cluster default. */
const storageClassOf = (root: string): string => `(has(${root}.storage) && has(${root}.storage.storageClassName) ? ${root}.storage.storageClassName : '')`;

/** The message of the rule that keeps the storage class of the volume of `what` (a database, a cache). */
export const storageClassMessage = (what: string): string => `storage.storageClassName cannot be changed once the ${what} exists`;

/**
 * The CEL rules of the spec that keep the volume as it was created: neither `ephemeral` nor the storage
 * class can change once the object (`what`, of kind `kind`) exists. NOTE: on the spec, not on storage: a
 * transition rule runs only where the old object has the field too, and storage may be absent before or
 * after the change.
 */
export const storageTransitionRules = (what: string, kind: string): { readonly rule: string; readonly message: string }[] => [
  {
    rule: `${ephemeralOf('self')} == ${ephemeralOf('oldSelf')}`,
    message: `storage.ephemeral cannot be changed once the ${what} exists: create a new ${kind} instead`,
  },
  { rule: `${storageClassOf('self')} == ${storageClassOf('oldSelf')}`, message: storageClassMessage(what) },
];

/** The model of a validated `storage`: the size canonical (or the default), an empty class as none. */
export const volumeStorageModel = (
  storage: { readonly size?: string; readonly storageClassName?: string; readonly ephemeral?: boolean } | undefined,
  defaultSize: string,
): VolumeStorageModel => {
  const storageClassName = given(storage?.storageClassName);
  return {
    size: canonical(given(storage?.size) ?? defaultSize),
    ephemeral: storage?.ephemeral ?? false,
    ...(storageClassName !== undefined && { storageClassName }),
  };
};
