/**
 * The data volume of a one-replica StatefulSet (IronicDatabase, IronicImageCache): a claim template while
 * the storage is persistent, an emptyDir otherwise. The claim templates of a StatefulSet are immutable, so
 * once it exists its observed templates are rendered again exactly as observed, even when the spec has
 * turned ephemeral: existing data is never dropped for an emptyDir.
 */
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { KubeObject } from '../api/shared/hook.js';
import type { VolumeStorageModel } from '../api/shared/model.js';
import { pathOf } from './observed.js';

type StatefulSetSpec = NonNullable<IStatefulSet['spec']>;

/** What the volume is rendered from (part of a render input): the storage of the model, and the claim templates of the observed StatefulSet. */
export type ClaimInput = {
  readonly model: { readonly storage: VolumeStorageModel };
  readonly observedClaimTemplates?: readonly unknown[];
};

/** The claim templates of an observed StatefulSet, as a render input field (absent when it has none). */
export const observedClaimTemplates = (set: KubeObject | undefined): { readonly observedClaimTemplates?: readonly unknown[] } => {
  const templates = pathOf(set, 'spec', 'volumeClaimTemplates');
  return Array.isArray(templates) && templates.length > 0 ? { observedClaimTemplates: templates } : {};
};

/** Whether the data lives on a claim: asked for, or already there (never drop existing data). */
export const persistent = (input: ClaimInput): boolean => !input.model.storage.ephemeral || (input.observedClaimTemplates ?? []).length > 0;

/** The emptyDir named `volume` of ephemeral storage; nothing when the data lives on a claim. */
export const ephemeralVolumes = (input: ClaimInput, volume: string): IVolume[] => (persistent(input) ? [] : [{ name: volume, emptyDir: {} }]);

/**
 * The claim template, written as the API server stores it (volumeMode and status defaulted), because
 * Metacontroller replaces this list wholesale and would otherwise see a difference on every sync.
 */
const claimTemplate = (storage: VolumeStorageModel, volume: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: volume, labels },
  spec: {
    accessModes: ['ReadWriteOnce'],
    ...(storage.storageClassName !== undefined && { storageClassName: storage.storageClassName }),
    resources: { requests: { storage: storage.size } },
    volumeMode: 'Filesystem',
  },
  status: { phase: 'Pending' },
});

/**
 * The StatefulSet fields of persistent storage: the retention policy (`whenDeleted`: what happens to the
 * claim when the parent goes) and the claim templates, the observed ones once they exist; nothing for
 * ephemeral storage.
 */
export const claimFields = (
  input: ClaimInput,
  claim: { readonly volume: string; readonly labels: Record<string, string>; readonly whenDeleted: 'Retain' | 'Delete' },
): Pick<StatefulSetSpec, 'persistentVolumeClaimRetentionPolicy' | 'volumeClaimTemplates'> => {
  if (!persistent(input)) return {};
  const observed = input.observedClaimTemplates ?? [];
  return {
    persistentVolumeClaimRetentionPolicy: { whenDeleted: claim.whenDeleted, whenScaled: 'Retain' },
    volumeClaimTemplates: (observed.length > 0 ? observed : [claimTemplate(input.model.storage, claim.volume, claim.labels)]) as NonNullable<
      StatefulSetSpec['volumeClaimTemplates']
    >,
  };
};
