/**
 * Resolving the Secrets and ConfigMaps a spec names, for every parent kind: finding them among the
 * `related` objects the customize hook asked for, hashing their content (restart annotations), and
 * reading TLS Secrets and credentials. Pure: problems say what to fix, nothing throws.
 */
import { hash } from 'node:crypto';
import type { KubeObject, ObjectMap } from '../api/shared/hook.js';
import { GROUP_KEYS } from '../api/shared/hook.js';
import { dataOf, findObject, isRecord as isMap } from './observed.js';
import { boundedMemo, deepFrozen, type Memo } from '../api/shared/memo.js';
import { tlsContentFacts, tlsProblemsAt, type TlsContentFacts } from '../crypto/certificates.js';

/** Why a reference cannot be used: `missing` objects may appear later; `invalid` ones need a change. */
export type ReferenceProblem = { readonly kind: 'missing' | 'invalid'; readonly path: string; readonly message: string };

/** Where referenced objects are looked up: the related objects of one namespace. */
export type Lookup = { readonly related: ObjectMap | null | undefined; readonly namespace: string };

/** A resolved reference, or the problem that keeps it from being used. */
export type Resolved<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: ReferenceProblem };

/** The keys of the `data` (and ConfigMap `binaryData`) of an object, sorted. */
export const dataKeys = (object: KubeObject): string[] => {
  const keys = new Set<string>();
  for (const field of ['data', 'binaryData']) {
    const data = object[field];
    if (isMap(data)) Object.keys(data).forEach((k) => keys.add(k));
  }
  return [...keys].sort();
};

/** ConfigMap content hashes already taken, by the content's text: a ConfigMap holds nothing secret, and a trust bundle of many roots is hashed once. */
export const configMapHashes: Memo<string> = boundedMemo(64);

/** Larger ConfigMaps are hashed every time. */
const MAX_KEPT_CONFIG_MAP = 1024 * 1024;

/** A hash of the content of a Secret or ConfigMap (its data maps), stable across key order. */
export const objectContentHash = (object: KubeObject): string => {
  if (object.kind !== 'ConfigMap') return contentHashOf(object);
  const text = JSON.stringify([object['data'] ?? null, object['binaryData'] ?? null]);
  return text.length > MAX_KEPT_CONFIG_MAP ? contentHashOf(object) : configMapHashes.get(text, () => contentHashOf(object));
};

const contentHashOf = (object: KubeObject): string => {
  // One text hashed at once: the same digest as feeding its parts one by one, without a Hash object per call.
  let text = '';
  for (const field of ['data', 'binaryData']) {
    const data = object[field];
    if (!isMap(data)) continue;
    for (const key of Object.keys(data).sort()) text += `${field}\0${key}\0${String(data[key])}\0`;
  }
  return hash('sha256', text, 'hex');
};

/** A Secret or ConfigMap of the lookup's namespace, by name. */
export const findReferenced = (lookup: Lookup, kind: 'Secret' | 'ConfigMap', name: string): KubeObject | undefined =>
  findObject(lookup.related, kind === 'Secret' ? GROUP_KEYS.secret : GROUP_KEYS.configMap, lookup.namespace, name);

/** The problem of a named object that does not exist (yet). */
export const missingReference = (lookup: Lookup, kind: string, name: string, path: string, hint = 'create it, or fix the name'): ReferenceProblem => ({
  kind: 'missing',
  path,
  message: `${kind} ${lookup.namespace}/${name} named in ${path} was not found: ${hint}`,
});

const invalid = (path: string, message: string): Resolved<never> => ({ ok: false, problem: { kind: 'invalid', path, message } });

/** A TLS Secret: its name, content hash, keys, and the (base64) CA clients trust: ca.crt, else the certificate. */
export type TLSSecret = {
  readonly name: string;
  readonly hash: string;
  readonly keys: readonly string[];
  readonly caData: string;
  /** The DNS names the certificate is for (its subjectAltName). */
  readonly dnsNames: readonly string[];
};

/** The raw (base64) value of a key of a Secret's data. */
const rawData = (secret: KubeObject, key: string): string | undefined => {
  const data = secret['data'];
  const value = isMap(data) ? data[key] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/**
 * A kubernetes.io/tls Secret named in `path`: it must exist and hold tls.crt and tls.key, a certificate
 * valid at `now` (the time of the request, RFC 3339) with its own private key, signed by ca.crt when that
 * is given (see tlsContentProblems). Messages name the Secret and the key, never the content.
 */
export const resolveTLSSecret = (lookup: Lookup, name: string, path: string, now: string): Resolved<TLSSecret> => {
  const secret = findReferenced(lookup, 'Secret', name);
  if (secret === undefined) return { ok: false, problem: missingReference(lookup, 'Secret', name, path) };
  const keys = dataKeys(secret);
  const absent = ['tls.crt', 'tls.key'].filter((k) => !keys.includes(k));
  if (absent.length > 0) {
    return invalid(path, `Secret ${lookup.namespace}/${name} has no ${absent.join(' and ')}: use a kubernetes.io/tls Secret with tls.crt and tls.key`);
  }
  const digest = objectContentHash(secret);
  const facts = tlsFactsOf(secret, digest);
  const content = tlsProblemsAt(facts, Date.parse(now));
  if (content.length > 0) return invalid(path, `Secret ${lookup.namespace}/${name} named in ${path}: ${content.join('; ')}`);
  return { ok: true, value: { name, hash: digest, keys, caData: rawData(secret, 'ca.crt') ?? rawData(secret, 'tls.crt') ?? '', dnsNames: facts.dnsNames } };
};

/** A few TLS Secrets per parent, each read again on every sync until its content changes. */
export const readTlsSecrets: Memo<TlsContentFacts> = boundedMemo(256);

/**
 * What a TLS Secret's content says whatever the time (see tlsContentFacts), read once per content: kept by the
 * content's hash, never the content (tls.key is in it).
 */
const tlsFactsOf = (secret: KubeObject, digest: string): TlsContentFacts =>
  readTlsSecrets.get(digest, () => {
    const data = dataOf(secret);
    return deepFrozen(tlsContentFacts({ certPem: data['tls.crt'] ?? '', keyPem: data['tls.key'] ?? '', caPem: data['ca.crt'] }));
  });

/** Plain credentials read from a Secret. */
export type Credentials = { readonly username: string; readonly password: string };

/** What a credentials Secret must satisfy: which characters each value may use, said in words. */
export type CredentialsRules = { readonly username: RegExp; readonly password?: RegExp; readonly allowed: string };

/**
 * The `username` and `password` of a user's Secret named in `path` (trimmed): both non-empty, and made only
 * of the characters the consumer can take.
 */
export const resolveCredentialsSecret = (lookup: Lookup, name: string, path: string, rules: CredentialsRules): Resolved<Credentials> => {
  const secret = findReferenced(lookup, 'Secret', name);
  if (secret === undefined) {
    return {
      ok: false,
      problem: missingReference(lookup, 'Secret', name, path, `create it with username and password, or clear ${path} to have one generated`),
    };
  }
  const data = dataOf(secret);
  const username = (data['username'] ?? '').trim();
  const password = (data['password'] ?? '').trim();
  if (username === '' || password === '') return invalid(path, `Secret ${lookup.namespace}/${name} needs non-empty username and password keys`);
  const bad = [
    ...(!rules.username.test(username) ? ['username'] : []),
    ...(rules.password !== undefined && !rules.password.test(password) ? ['password'] : []),
  ];
  if (bad.length > 0) return invalid(path, `the ${bad.join(' and ')} in Secret ${lookup.namespace}/${name} may only contain ${rules.allowed}`);
  return { ok: true, value: { username, password } };
};

/** A Secret named in `path` that must exist and hold every one of `keys`, not empty. */
export const resolveKeysSecret = (lookup: Lookup, name: string, path: string, keys: readonly string[]): Resolved<{ readonly hash: string }> => {
  const secret = findReferenced(lookup, 'Secret', name);
  if (secret === undefined)
    return { ok: false, problem: missingReference(lookup, 'Secret', name, path, `create it with ${keys.join(' and ')}, or fix the name`) };
  const data = dataOf(secret);
  const absent = keys.filter((k) => (data[k] ?? '').trim() === '');
  if (absent.length > 0) return invalid(path, `Secret ${lookup.namespace}/${name} named in ${path} has no ${absent.join(' and ')} (or an empty one)`);
  return { ok: true, value: { hash: objectContentHash(secret) } };
};
