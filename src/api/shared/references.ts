/**
 * References by name, as every kind's spec makes them: the object referred to (API resource and name) and the field
 * that names it. Each kind's `references.ts` walks its spec tolerantly with these: an invalid spec still names its
 * references, so customize asks for them and the status can say what else is wrong.
 */
import { CONFIG_MAPS, IRONIC_DATABASES, IRONIC_IMAGE_CACHES, SECRETS, type ResourceType } from './resource-types.js';
import { isRecord } from './problems.js';

/** One object a spec (or a feature) refers to: its API resource, its name and the field that names it. */
export type ObjectReference = {
  readonly apiVersion: string;
  readonly resource: string;
  readonly name: string;
  /** The spec field that names it, for messages. */
  readonly field: string;
};

type Resource = { readonly apiVersion: string; readonly resource: string };

const referenceOf = ({ apiVersion, resource }: ResourceType): Resource => ({ apiVersion, resource });
export const SECRET_REFERENCE = referenceOf(SECRETS);
export const CONFIG_MAP_REFERENCE = referenceOf(CONFIG_MAPS);
export const IRONIC_DATABASE_REFERENCE = referenceOf(IRONIC_DATABASES);
export const IRONIC_IMAGE_CACHE_REFERENCE = referenceOf(IRONIC_IMAGE_CACHES);

/** The mapping at `key`, or an empty one. */
export const recordAt = (value: unknown, key: string): Record<string, unknown> => (isRecord(value) && isRecord(value[key]) ? value[key] : {});

/** The non-empty text at `key`, if any. */
export const textAt = (value: Record<string, unknown>, key: string): string | undefined => {
  const text = value[key];
  return typeof text === 'string' && text !== '' ? text : undefined;
};

/** A reference when the field names something. */
export const reference = (resource: Resource, name: string | undefined, field: string): ObjectReference[] =>
  name !== undefined ? [{ ...resource, name, field }] : [];
