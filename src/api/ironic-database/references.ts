/**
 * The objects an IronicDatabase spec refers to by name: the credentials and certificate Secrets, and the Secrets of
 * the S3 buckets of its backups and of its restore. Read tolerantly (see api/shared/references.ts).
 */
import { recordAt, reference, SECRET_REFERENCE, textAt, type ObjectReference } from '../shared/references.js';
import { isRecord } from '../shared/problems.js';

/** The credentials and CA Secrets of the bucket at `path` (spec.backup.s3, spec.restoreFrom.s3). */
const bucketReferences = (spec: Record<string, unknown>, field: 'backup' | 'restoreFrom'): ObjectReference[] => {
  const s3 = recordAt(recordAt(spec, field), 's3');
  return [
    ...reference(SECRET_REFERENCE, textAt(s3, 'credentialsSecretName'), `spec.${field}.s3.credentialsSecretName`),
    ...reference(SECRET_REFERENCE, textAt(s3, 'caSecretName'), `spec.${field}.s3.caSecretName`),
  ];
};

/** Every object an IronicDatabase spec names, in the order of the spec's fields. Total: never throws. */
export const ironicDatabaseSpecReferences = (spec: unknown): ObjectReference[] => {
  const root = isRecord(spec) ? spec : {};
  return [
    ...reference(SECRET_REFERENCE, textAt(root, 'credentialsName'), 'spec.credentialsName'),
    ...reference(SECRET_REFERENCE, textAt(root, 'tlsCertificateName'), 'spec.tlsCertificateName'),
    ...bucketReferences(root, 'backup'),
    ...bucketReferences(root, 'restoreFrom'),
  ];
};
