/**
 * The objects an IronicImageCache spec refers to by name: its serving certificate. Read tolerantly (see
 * api/shared/references.ts).
 */
import { reference, SECRET_REFERENCE, textAt, type ObjectReference } from '../shared/references.js';
import { isRecord } from '../shared/problems.js';

/** Every object an IronicImageCache spec names. Total: never throws. */
export const ironicImageCacheSpecReferences = (spec: unknown): ObjectReference[] =>
  reference(SECRET_REFERENCE, textAt(isRecord(spec) ? spec : {}, 'tlsCertificateName'), 'spec.tlsCertificateName');
