/**
 * What the parsed models of every kind share: a data volume's storage, and the result of a parse.
 */
/** Storage of a kind with one data volume (the size and class only matter when it is not ephemeral). */
export type VolumeStorageModel = {
  readonly size: string;
  readonly ephemeral: boolean;
  readonly storageClassName?: string;
};

/** The result of a parse: the model, or every problem (path and message) to report. */
export type Parsed<M> =
  { readonly ok: true; readonly model: M } | { readonly ok: false; readonly problems: readonly { readonly path: string; readonly message: string }[] };
