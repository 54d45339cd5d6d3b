/**
 * The objects an Ironic spec refers to by name, recorded by the parser: customize asks Metacontroller for
 * exactly these, plus what the features add (the Secrets a feature reads a key of, as its readsSecrets
 * states them, and the names the features derive from the parent's name). Read tolerantly: an invalid spec
 * still names its references, so the status can say what else is wrong with them.
 */
import { CA_FIELDS } from '../shared/constants.js';
import { isRecord } from '../shared/problems.js';
import {
  CONFIG_MAP_REFERENCE,
  IRONIC_DATABASE_REFERENCE,
  IRONIC_IMAGE_CACHE_REFERENCE,
  recordAt,
  reference,
  SECRET_REFERENCE,
  textAt,
  type ObjectReference,
} from '../shared/references.js';

/** The CA references of spec.tls: `{name, kind}` objects, or the deprecated name fields with their fixed kinds. */
const caReferences = (tls: Record<string, unknown>): ObjectReference[] =>
  CA_FIELDS.flatMap(({ ref, legacy, legacyKind }) => {
    const object = tls[ref];
    if (isRecord(object)) {
      const kind = object['kind'];
      const resource = kind === 'Secret' ? SECRET_REFERENCE : kind === 'ConfigMap' ? CONFIG_MAP_REFERENCE : undefined;
      return resource !== undefined ? reference(resource, textAt(object, 'name'), `spec.tls.${ref}`) : [];
    }
    return reference(legacyKind === 'Secret' ? SECRET_REFERENCE : CONFIG_MAP_REFERENCE, textAt(tls, legacy), `spec.tls.${legacy}`);
  });

/** The switch Secrets named by an enabled networking service (the default ones are our children). */
const switchReferences = (spec: Record<string, unknown>): ObjectReference[] => {
  const service = recordAt(spec, 'networkingService');
  if (service['enabled'] !== true) return [];
  return [
    ...reference(SECRET_REFERENCE, textAt(service, 'switchConfigSecretName'), 'spec.networkingService.switchConfigSecretName'),
    ...reference(SECRET_REFERENCE, textAt(service, 'switchCredentialsSecretName'), 'spec.networkingService.switchCredentialsSecretName'),
  ];
};

/** Every object an Ironic spec names, in the order of the spec's fields. Total: never throws. */
export const ironicSpecReferences = (spec: unknown): ObjectReference[] => {
  const root = isRecord(spec) ? spec : {};
  const tls = recordAt(root, 'tls');
  return [
    ...reference(SECRET_REFERENCE, textAt(root, 'apiCredentialsName'), 'spec.apiCredentialsName'),
    ...reference(SECRET_REFERENCE, textAt(tls, 'certificateName'), 'spec.tls.certificateName'),
    ...caReferences(tls),
    ...switchReferences(root),
    ...reference(IRONIC_DATABASE_REFERENCE, textAt(root, 'databaseName'), 'spec.databaseName'),
    ...reference(IRONIC_IMAGE_CACHE_REFERENCE, textAt(root, 'imageCacheName'), 'spec.imageCacheName'),
  ];
};
