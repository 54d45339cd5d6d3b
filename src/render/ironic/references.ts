/**
 * Resolves the Secrets and ConfigMaps an Ironic names (TLS, CA bundles, switch Secrets) from the `related`
 * objects the customize hook asked for. Pure: returns the references, or problems that say what to fix.
 */
import type { KubeObject, ObjectMap } from '../../api/shared/hook.js';
import { GROUP_KEYS } from '../../api/shared/hook.js';
import type { CAReference, IronicModel } from '../../api/ironic/model.js';
import { dataOf, findObject, isRecord } from '../observed.js';
import { base64 } from '../meta.js';
import { certificateBundle } from '../../crypto/certificates.js';
import { boundedMemo, type Memo } from '../../api/shared/memo.js';
import type { IronicNames } from '../names.js';
import {
  dataKeys,
  findReferenced,
  missingReference,
  objectContentHash,
  resolveCredentialsSecret,
  resolveTLSSecret,
  type CredentialsRules,
  type Lookup,
  type ReferenceProblem,
} from '../references.js';
import type { IronicReferences, MountedReference, SecretRead, SecretValue, SwitchSecrets, TLSReference, TrustedCAReference } from './input.js';

/** What the user's API credentials Secret must hold: usernames Ironic's htpasswd and clients accept. */
export const API_CREDENTIALS_RULES: CredentialsRules = { username: /^[A-Za-z0-9_-]+$/, allowed: "letters, digits, '-' and '_'" };

/** The problem of the user's API credentials Secret (spec.apiCredentialsName), if it is named and unusable. */
export const userCredentialsProblems = (lookup: Lookup, secretName: string | undefined): ReferenceProblem[] => {
  if (secretName === undefined) return [];
  const user = resolveCredentialsSecret(lookup, secretName, 'spec.apiCredentialsName', API_CREDENTIALS_RULES);
  return user.ok ? [] : [user.problem];
};

/** Contents of the placeholder switch Secrets, for the user to fill in. */
export const SWITCH_PLACEHOLDERS = {
  config: { 'switch-configs.conf': '# networking-generic-switch configuration: one [genericswitch:<name>] section per switch\n' },
  credentials: {},
} as const satisfies Record<string, Record<string, string>>;

export type ReferenceResult =
  { readonly ok: true; readonly references: IronicReferences } | { readonly ok: false; readonly problems: readonly ReferenceProblem[] };

/** The raw (base64) value of a key, when it is not empty. */
const nonEmptyData = (object: KubeObject, key: string): string | undefined => {
  const data = object['data'];
  const value = isRecord(data) ? data[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The Secret cert-manager fills for spec.tls.issuerRef, once it holds a certificate and its key. Until then
 * there is nothing to use yet (not a problem to fix: the sync waits, see plan.ts).
 */
const resolveIssuedTLS = (names: IronicNames, lookup: Lookup): TLSReference | undefined => {
  const secret = findReferenced(lookup, 'Secret', names.certificateSecret);
  if (secret === undefined || nonEmptyData(secret, 'tls.crt') === undefined || nonEmptyData(secret, 'tls.key') === undefined) return undefined;
  // ACME issuers leave ca.crt out (or empty): clients then trust the certificate's public chain.
  const ca = nonEmptyData(secret, 'ca.crt');
  const annotations = secret.metadata.annotations ?? {};
  const altNames = annotations['cert-manager.io/alt-names'];
  const ipSans = annotations['cert-manager.io/ip-sans'];
  return {
    kind: 'Secret',
    name: names.certificateSecret,
    hash: objectContentHash(secret),
    hasCA: ca !== undefined,
    caData: ca ?? nonEmptyData(secret, 'tls.crt') ?? '',
    issuedFor: { ...(altNames !== undefined && { altNames }), ...(ipSans !== undefined && { ipSans }) },
  };
};

const resolveTLS = (model: IronicModel, names: IronicNames, lookup: Lookup, now: string, problems: ReferenceProblem[]): TLSReference | undefined => {
  if (model.tls.issuerRef !== undefined) return resolveIssuedTLS(names, lookup);
  const name = model.tls.certificateName;
  if (name === undefined) return undefined;
  const resolved = resolveTLSSecret(lookup, name, 'spec.tls.certificateName', now);
  if (!resolved.ok) {
    problems.push(resolved.problem);
    return undefined;
  }
  return { kind: 'Secret', name, hash: resolved.value.hash, hasCA: resolved.value.keys.includes('ca.crt'), caData: resolved.value.caData };
};

/**
 * Keys of CA bundles already read that hold no certificate that parses, by the object's kind (a Secret's data is
 * base64, a ConfigMap's is the text), the content's hash and the keys read.
 */
export const brokenBundleKeys: Memo<readonly string[]> = boundedMemo(256);

/** The keys of an object's data that hold no PEM certificate that parses (binaryData is not PEM text and is left to its reader). */
const brokenKeys = (object: KubeObject, keys: readonly string[]): readonly string[] => {
  const data = dataOf(object);
  return Object.freeze(keys.filter((key) => data[key] !== undefined && certificateBundle(data[key]) === undefined));
};

/** The problem of CA bundle keys (of a resolved object whose content has `hash`) that hold no PEM certificate that parses, if any. */
const bundleProblem = (
  ref: CAReference,
  lookup: Lookup,
  resolved: { readonly object: KubeObject; readonly reference: MountedReference },
  keys: readonly string[],
): ReferenceProblem | undefined => {
  const broken = brokenBundleKeys.get(JSON.stringify([resolved.object.kind, resolved.reference.hash, keys]), () => brokenKeys(resolved.object, keys));
  if (broken.length === 0) return undefined;
  const which = broken.map((key) => JSON.stringify(key)).join(', ');
  return {
    kind: 'invalid',
    path: ref.path,
    message: `${ref.kind} ${lookup.namespace}/${ref.name} named in ${ref.path}: ${broken.length === 1 ? 'key' : 'keys'} ${which} ${broken.length === 1 ? 'holds' : 'hold'} no PEM certificate that parses: put the CA certificates (-----BEGIN CERTIFICATE-----) there`,
  };
};

const resolveCA = (
  ref: CAReference | undefined,
  lookup: Lookup,
  problems: ReferenceProblem[],
): { reference: MountedReference; keys: string[]; object: KubeObject } | undefined => {
  if (ref === undefined) return undefined;
  const object = findReferenced(lookup, ref.kind, ref.name);
  if (object === undefined) {
    problems.push(missingReference(lookup, ref.kind, ref.name, ref.path));
    return undefined;
  }
  const keys = dataKeys(object);
  if (keys.length === 0) {
    problems.push({ kind: 'invalid', path: ref.path, message: `${ref.kind} ${lookup.namespace}/${ref.name} named in ${ref.path} holds no CA bundle: add one` });
    return undefined;
  }
  return { keys, object, reference: { kind: ref.kind, name: ref.name, hash: objectContentHash(object) } };
};

/** The BMC CA: ironic-image concatenates every file of it, so every key must hold certificates. */
const resolveBmcCA = (model: IronicModel, lookup: Lookup, problems: ReferenceProblem[]): MountedReference | undefined => {
  const ref = model.tls.bmcCA;
  const resolved = resolveCA(ref, lookup, problems);
  if (ref === undefined || resolved === undefined) return undefined;
  const broken = bundleProblem(ref, lookup, resolved, resolved.keys);
  if (broken !== undefined) {
    problems.push(broken);
    return undefined;
  }
  return resolved.reference;
};

const resolveTrustedCA = (model: IronicModel, lookup: Lookup, problems: ReferenceProblem[]): TrustedCAReference | undefined => {
  const ref = model.tls.trustedCA;
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
  const broken = bundleProblem(ref, lookup, resolved, [key]);
  if (broken !== undefined) {
    problems.push(broken);
    return undefined;
  }
  return { ...resolved.reference, key };
};

const SWITCH_FIELDS = {
  config: { field: 'switchConfigSecretName', own: 'switchConfig' },
  credentials: { field: 'switchCredentialsSecretName', own: 'switchCredentials' },
} as const;

/**
 * The switch Secrets of the networking service: a named one must exist (related); under the default
 * name it is ours (a placeholder child, hashed as observed so the user's edits roll the pod).
 */
const resolveSwitches = (
  model: IronicModel,
  lookup: Lookup,
  children: ObjectMap | null | undefined,
  names: IronicNames,
  problems: ReferenceProblem[],
): SwitchSecrets | undefined => {
  const service = model.networkingService;
  if (service === undefined) return undefined;
  const one = (which: 'config' | 'credentials'): SwitchSecrets['config'] => {
    const { field, own: ownKey } = SWITCH_FIELDS[which];
    const given = service[field];
    const own = names[ownKey];
    // The default name, even written out, is our placeholder: never delete what the user filled in.
    if (given !== undefined && given !== own) {
      const secret = findReferenced(lookup, 'Secret', given);
      if (secret === undefined) problems.push(missingReference(lookup, 'Secret', given, `spec.networkingService.${field}`));
      return { name: given, generated: false, hash: secret !== undefined ? objectContentHash(secret) : '' };
    }
    const observed = findObject(children, GROUP_KEYS.secret, lookup.namespace, own);
    const placeholder = { apiVersion: 'v1', kind: 'Secret', metadata: { name: own }, data: base64Map(SWITCH_PLACEHOLDERS[which]) };
    // Hashed the same way before and after it is observed, so its creation does not roll the pod twice.
    return { name: own, generated: true, hash: objectContentHash(observed ?? placeholder) };
  };
  return { config: one('config'), credentials: one('credentials') };
};

/** The keys features read from Secrets the spec names, each checked (every problem is reported). */
const resolveSecretReads = (reads: readonly SecretRead[], lookup: Lookup, problems: ReferenceProblem[]): Record<string, SecretValue> => {
  const values: Record<string, SecretValue> = {};
  for (const read of reads) {
    const secret = findReferenced(lookup, 'Secret', read.name);
    if (secret === undefined) {
      problems.push(missingReference(lookup, 'Secret', read.name, read.path, read.fix));
      continue;
    }
    const value = (dataOf(secret)[read.key] ?? '').trim();
    const problem = read.problem?.(value);
    if (problem !== undefined) {
      problems.push({
        kind: 'invalid',
        path: read.path,
        message: `the ${read.key} of Secret ${lookup.namespace}/${read.name} named in ${read.path} ${problem}`,
      });
      continue;
    }
    values[read.path] = { name: read.name, value, uid: secret.metadata.uid ?? '' };
  }
  return values;
};

const base64Map = (data: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)]));

/**
 * Resolves the TLS Secret, BMC CA, trusted CA and switch Secrets. The API credentials and the database are
 * resolved by their own steps (credentials need randomness, the database has its own readiness).
 */
/**
 * spec.tls.certificateName with generated or cert-manager certificates: the Secret the CA is published into.
 * It cannot be one the Ironic renders otherwise, nor the user's API credentials.
 */
const trustSecretClash = (model: IronicModel, names: IronicNames, taken: (secret: string) => boolean, problems: ReferenceProblem[]): void => {
  const name = model.tls.trustSecretName;
  if (name === undefined) return;
  if (taken(name) || name === model.apiCredentialsName)
    problems.push({
      kind: 'invalid',
      path: 'spec.tls.certificateName',
      message: `tls.certificateName ${name} names the Secret the operator publishes the CA into (with generateCertificate or issuerRef), but that name is already used for another Secret of this Ironic: choose another name, such as ${names.caBundle}`,
    });
};

export const resolveIronicReferences = (params: {
  readonly model: IronicModel;
  readonly names: IronicNames;
  readonly lookup: Lookup;
  readonly children: ObjectMap | null | undefined;
  /** The time of the request (RFC 3339): certificates must be valid then. */
  readonly now: string;
  /** The Secret keys the features read. */
  readonly reads: readonly SecretRead[];
  /** Whether a Secret name is one of this Ironic's (a feature renders it, or has it filled). */
  readonly taken: (secret: string) => boolean;
}): ReferenceResult => {
  const { model, lookup } = params;
  const problems: ReferenceProblem[] = [];
  const tls = resolveTLS(model, params.names, lookup, params.now, problems);
  const bmcCA = resolveBmcCA(model, lookup, problems);
  const trustedCA = resolveTrustedCA(model, lookup, problems);
  const switches = resolveSwitches(model, lookup, params.children, params.names, problems);
  const secretValues = resolveSecretReads(params.reads, lookup, problems);
  trustSecretClash(model, params.names, params.taken, problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    references: {
      ...(tls && { tls }),
      ...(bmcCA && { bmcCA }),
      ...(trustedCA && { trustedCA }),
      ...(switches && { switches }),
      ...(params.reads.length > 0 && { secretValues }),
    },
  };
};
