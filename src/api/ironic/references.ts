/**
 * The objects an Ironic spec refers to by name, recorded by the parser: customize asks Metacontroller for
 * exactly these (plus the names the features derive from the parent's name), and nothing else walks the
 * spec for references. Read tolerantly: an invalid spec still names its references, so the status can say
 * what else is wrong with them.
 */
import { CONFIG_MAPS, IRONIC_DATABASES, IRONIC_IMAGE_CACHES, SECRETS, type ResourceType } from '../shared/resource-types.js';
import { CA_FIELDS } from '../shared/constants.js';
import { isRecord } from '../shared/problems.js';

/** One object the spec (or a feature) refers to: its API resource, its name and the field that names it. */
export type ObjectReference = {
  readonly apiVersion: string;
  readonly resource: string;
  readonly name: string;
  /** The spec field that names it, for messages. */
  readonly field: string;
};

const referenceOf = ({ apiVersion, resource }: ResourceType): { readonly apiVersion: string; readonly resource: string } => ({ apiVersion, resource });
export const SECRET_REFERENCE = referenceOf(SECRETS);
export const CONFIG_MAP_REFERENCE = referenceOf(CONFIG_MAPS);
export const IRONIC_DATABASE_REFERENCE = referenceOf(IRONIC_DATABASES);
export const IRONIC_IMAGE_CACHE_REFERENCE = referenceOf(IRONIC_IMAGE_CACHES);

type Resource = { readonly apiVersion: string; readonly resource: string };

const recordAt = (value: unknown, key: string): Record<string, unknown> => (isRecord(value) && isRecord(value[key]) ? value[key] : {});
const textAt = (value: Record<string, unknown>, key: string): string | undefined => {
  const text = value[key];
  return typeof text === 'string' && text !== '' ? text : undefined;
};

const reference = (resource: Resource, name: string | undefined, field: string): ObjectReference[] =>
  name !== undefined ? [{ ...resource, name, field }] : [];

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

/**
 * The VRRP password Secret of a keepalived that runs (keepalived.enabled, or the deprecated ipAddressManager),
 * named in keepalived.passwordRef or in upstream's spelling, networking.keepalivedPasswordRef.
 */
const keepalivedReferences = (spec: Record<string, unknown>): ObjectReference[] => {
  const networking = recordAt(spec, 'networking');
  const keepalived = recordAt(networking, 'keepalived');
  if (keepalived['enabled'] !== true && networking['ipAddressManager'] !== 'keepalived') return [];
  return [
    ...reference(SECRET_REFERENCE, textAt(recordAt(keepalived, 'passwordRef'), 'name'), 'spec.networking.keepalived.passwordRef'),
    ...reference(SECRET_REFERENCE, textAt(recordAt(networking, 'keepalivedPasswordRef'), 'name'), 'spec.networking.keepalivedPasswordRef'),
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
    ...keepalivedReferences(root),
    ...reference(IRONIC_DATABASE_REFERENCE, textAt(root, 'databaseName'), 'spec.databaseName'),
    ...reference(IRONIC_IMAGE_CACHE_REFERENCE, textAt(root, 'imageCacheName'), 'spec.imageCacheName'),
  ];
};
