/**
 * Resolves the Secrets, ConfigMaps and IronicDatabase an Ironic spec names, from the `related` objects
 * the customize hook asked for. Pure: returns the references, or problems that say what to fix.
 */
import type { KubeObject, ObjectMap } from '../../api/hook.js';
import { GROUP_KEYS } from '../../api/hook.js';
import type { DefaultedIronicSpec } from '../../api/defaults.js';
import type { ResourceKind } from '../../api/common.js';
import { findObject } from '../observed.js';
import { createHash } from 'node:crypto';
import type { IronicReferences, MountedReference, SwitchSecrets, TLSReference, TrustedCAReference } from './input.js';
import { ironicNames } from '../names.js';
import { SWITCH_PLACEHOLDERS } from './networking-service.js';

/** Why a reference cannot be used: `missing` objects may appear later; `invalid` ones need a change. */
export type ReferenceProblem = { readonly kind: 'missing' | 'invalid'; readonly path: string; readonly message: string };

export type ReferenceResult =
  | { readonly ok: true; readonly references: IronicReferences }
  | { readonly ok: false; readonly problems: readonly ReferenceProblem[] };

type Lookup = { readonly related: ObjectMap | null | undefined; readonly namespace: string };

const groupOf = (kind: ResourceKind): string => (kind === 'Secret' ? GROUP_KEYS.secret : GROUP_KEYS.configMap);

/** The keys of the `data` (and ConfigMap `binaryData`) of an object, sorted. */
export const dataKeys = (object: KubeObject): string[] => {
  const keys = new Set<string>();
  for (const field of ['data', 'binaryData']) {
    const data = object[field];
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) Object.keys(data).forEach((k) => keys.add(k));
  }
  return [...keys].sort();
};

/** A hash of the content of a Secret or ConfigMap (its data maps), stable across key order. */
export const objectContentHash = (object: KubeObject): string => {
  const hash = createHash('sha256');
  for (const field of ['data', 'binaryData']) {
    const data = object[field];
    if (typeof data !== 'object' || data === null || Array.isArray(data)) continue;
    const map = data as Record<string, unknown>;
    for (const key of Object.keys(map).sort()) hash.update(`${field}\0${key}\0${String(map[key])}\0`);
  }
  return hash.digest('hex');
};

const missing = (path: string, kind: string, lookup: Lookup, name: string): ReferenceProblem => ({
  kind: 'missing',
  path,
  message: `${kind} ${lookup.namespace}/${name} named in ${path} was not found: create it, or fix the name`,
});

const find = (lookup: Lookup, kind: ResourceKind, name: string): KubeObject | undefined =>
  findObject(lookup.related, groupOf(kind), lookup.namespace, name);

const resolveTLS = (spec: DefaultedIronicSpec, lookup: Lookup, problems: ReferenceProblem[]): TLSReference | undefined => {
  const name = spec.tls?.certificateName;
  if (name === undefined || name === '') return undefined;
  const secret = find(lookup, 'Secret', name);
  if (secret === undefined) {
    problems.push(missing('spec.tls.certificateName', 'Secret', lookup, name));
    return undefined;
  }
  const keys = dataKeys(secret);
  const absent = ['tls.crt', 'tls.key'].filter((k) => !keys.includes(k));
  if (absent.length > 0) {
    problems.push({
      kind: 'invalid',
      path: 'spec.tls.certificateName',
      message: `Secret ${lookup.namespace}/${name} has no ${absent.join(' and ')}: use a kubernetes.io/tls Secret with tls.crt and tls.key`,
    });
    return undefined;
  }
  return { kind: 'Secret', name, hash: objectContentHash(secret), hasCA: keys.includes('ca.crt') };
};

/** `bmcCA`, or the deprecated `bmcCAName` (a Secret). */
const bmcCARef = (spec: DefaultedIronicSpec): { name: string; kind: ResourceKind; path: string } | undefined => {
  const tls = spec.tls;
  if (tls?.bmcCA !== undefined) return { name: tls.bmcCA.name, kind: tls.bmcCA.kind, path: 'spec.tls.bmcCA' };
  if (tls?.bmcCAName !== undefined && tls.bmcCAName !== '') return { name: tls.bmcCAName, kind: 'Secret', path: 'spec.tls.bmcCAName' };
  return undefined;
};

/** `trustedCA`, or the deprecated `trustedCAName` (a ConfigMap). */
const trustedCARef = (spec: DefaultedIronicSpec): { name: string; kind: ResourceKind; key?: string; path: string } | undefined => {
  const tls = spec.tls;
  if (tls?.trustedCA !== undefined) {
    return { name: tls.trustedCA.name, kind: tls.trustedCA.kind, path: 'spec.tls.trustedCA', ...(tls.trustedCA.key !== undefined && tls.trustedCA.key !== '' && { key: tls.trustedCA.key }) };
  }
  if (tls?.trustedCAName !== undefined && tls.trustedCAName !== '') return { name: tls.trustedCAName, kind: 'ConfigMap', path: 'spec.tls.trustedCAName' };
  return undefined;
};

const resolveCA = (
  ref: { name: string; kind: ResourceKind; path: string } | undefined,
  lookup: Lookup,
  problems: ReferenceProblem[],
): { object: KubeObject; reference: MountedReference; keys: string[] } | undefined => {
  if (ref === undefined) return undefined;
  const object = find(lookup, ref.kind, ref.name);
  if (object === undefined) {
    problems.push(missing(ref.path, ref.kind, lookup, ref.name));
    return undefined;
  }
  const keys = dataKeys(object);
  if (keys.length === 0) {
    problems.push({ kind: 'invalid', path: ref.path, message: `${ref.kind} ${lookup.namespace}/${ref.name} named in ${ref.path} holds no CA bundle: add one` });
    return undefined;
  }
  return { object, keys, reference: { kind: ref.kind, name: ref.name, hash: objectContentHash(object) } };
};

const resolveTrustedCA = (spec: DefaultedIronicSpec, lookup: Lookup, problems: ReferenceProblem[]): TrustedCAReference | undefined => {
  const ref = trustedCARef(spec);
  const resolved = resolveCA(ref, lookup, problems);
  if (ref === undefined || resolved === undefined) return undefined;
  // NOTE: as upstream, the alphabetically first key is used when none is named.
  const key = ref.key ?? resolved.keys[0] ?? '';
  if (!resolved.keys.includes(key)) {
    problems.push({
      kind: 'invalid',
      path: `${ref.path}.key`,
      message: `${ref.kind} ${lookup.namespace}/${ref.name} has no key "${key}": name one of ${resolved.keys.join(', ')}`,
    });
    return undefined;
  }
  return { ...resolved.reference, key };
};

const SWITCH_DEFAULTS = {
  config: { field: 'switchConfigSecretName', placeholder: SWITCH_PLACEHOLDERS.config },
  credentials: { field: 'switchCredentialsSecretName', placeholder: SWITCH_PLACEHOLDERS.credentials },
} as const;

/**
 * The switch Secrets of the networking service: a named one must exist (related); under the default
 * name it is ours (a placeholder child, hashed as observed so the user's edits roll the pod).
 */
const resolveSwitches = (
  spec: DefaultedIronicSpec,
  lookup: Lookup,
  children: ObjectMap | null | undefined,
  name: string,
  problems: ReferenceProblem[],
): SwitchSecrets | undefined => {
  const service = spec.networkingService;
  if (service?.enabled !== true) return undefined;
  const names = ironicNames(name);
  const one = (which: 'config' | 'credentials') => {
    const given = service[SWITCH_DEFAULTS[which].field];
    const path = `spec.networkingService.${SWITCH_DEFAULTS[which].field}`;
    const own = which === 'config' ? names.switchConfig : names.switchCredentials;
    // The default name, even written out, is our placeholder: never delete what the user filled in.
    if (given !== undefined && given !== '' && given !== own) {
      const secret = find(lookup, 'Secret', given);
      if (secret === undefined) problems.push(missing(path, 'Secret', lookup, given));
      return { name: given, generated: false, hash: secret !== undefined ? objectContentHash(secret) : '' };
    }
    const observed = findObject(children, GROUP_KEYS.secret, lookup.namespace, own);
    const placeholder = { apiVersion: 'v1', kind: 'Secret', metadata: { name: own }, data: base64Map(SWITCH_DEFAULTS[which].placeholder) };
    // Hashed the same way before and after it is observed, so its creation does not roll the pod twice.
    return { name: own, generated: true, hash: objectContentHash(observed ?? placeholder) };
  };
  return { config: one('config'), credentials: one('credentials') };
};

const base64Map = (data: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

/**
 * Resolves the TLS Secret, BMC CA and trusted CA. The API credentials and the database are resolved by
 * their own steps (credentials need randomness, the database has its own readiness).
 */
export const resolveIronicReferences = (
  spec: DefaultedIronicSpec,
  related: ObjectMap | null | undefined,
  namespace: string,
  children?: ObjectMap | null,
  name = '',
): ReferenceResult => {
  const lookup: Lookup = { related, namespace };
  const problems: ReferenceProblem[] = [];
  const tls = resolveTLS(spec, lookup, problems);
  const bmcCA = resolveCA(bmcCARef(spec), lookup, problems)?.reference;
  const trustedCA = resolveTrustedCA(spec, lookup, problems);
  const switches = resolveSwitches(spec, lookup, children, name, problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    references: { ...(tls && { tls }), ...(bmcCA && { bmcCA }), ...(trustedCA && { trustedCA }), ...(switches && { switches }) },
  };
};
