/**
 * The only impure step of a sync: API credentials and their bcrypt htpasswd. Everything here follows
 * reuse-if-valid: an observed child that still matches is returned as it is, so a steady-state sync
 * generates nothing and hashes nothing.
 */
import { createHash, hash as digestOf, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { KubeObject, ObjectMap } from '../api/shared/hook.js';
import { GROUP_KEYS } from '../api/shared/hook.js';
import { dataOf, objectsOf } from '../render/observed.js';
import { CONTENT_COMPONENTS, LABELS, type IronicNames } from '../render/names.js';
import type { ApiCredentials, GeneratedTLS, RpcCAReference } from '../render/ironic/input.js';
import type { CredentialsPlan } from '../render/ironic/plan.js';
import { resolveCredentialsSecret, type Lookup, type ReferenceProblem } from '../render/references.js';
import { caRenewalStart, generateRpcCA, type KeyPairPem } from '../crypto/rpc-ca.js';
import { requiredCertificateFacts } from '../crypto/certificates.js';
import { publishedLongEnough, renewalPeriod, signableAt } from '../crypto/renewal.js';
import { nextCASet, normalizeBundle, type CASet } from '../crypto/rotation.js';
import { API_CREDENTIALS_RULES } from '../render/ironic/references.js';

/** Random passwords and bcrypt, injectable so tests can make golden files without randomness. */
export type Secrets = {
  /** A new random password. */
  readonly password: () => string;
  /** A new bcrypt hash (async: it must not block the event loop). */
  readonly hash: (password: string) => Promise<string>;
  /** Whether a password matches a bcrypt hash. */
  readonly verify: (password: string, hash: string) => Promise<boolean>;
  /** A new JSON-RPC CA (async key generation: once per Ironic, never on the request path otherwise). */
  readonly rpcCA: (commonName: string, now: Date) => Promise<KeyPairPem>;
};

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * 32 characters of [A-Za-z0-9-_] (as upstream: safe in URLs, SQL and ini files). 64 symbols divide 256,
 * so masking a random byte is unbiased.
 */
export const randomPassword = (length = 32): string => [...randomBytes(length)].map((b) => ALPHABET[b & 63] ?? 'x').join('');

const BCRYPT_COST = 10;

/** The prefix of a bcrypt hash at the cost this server writes (`$2y$10$`; `$2a$` and `$2b$` are the same algorithm). */
const SERVER_COST = new RegExp(`^\\$2[aby]\\$${String(BCRYPT_COST).padStart(2, '0')}\\$`);

/**
 * Whether a hash is a bcrypt hash at the cost this server writes. Any other cost is stale and never checked:
 * bcrypt's time doubles with each step of cost (cost 16 takes seconds, 17 and more pass Metacontroller's
 * 10 s hook timeout), so a line edited into an htpasswd Secret must not cost that on every sync; it is
 * replaced by one hashed here. (A malformed hash of our cost is cheap: bcryptjs refuses it at once.)
 */
export const isServerCostHash = (hash: string): boolean => SERVER_COST.test(hash);

/** The two calls of bcryptjs used here (injectable, so tests can count them). */
export type Bcrypt = {
  readonly hash: (password: string, rounds: number) => Promise<string>;
  readonly compare: (password: string, hash: string) => Promise<boolean>;
};

/**
 * bcrypt with the `$2y$` prefix that Apache httpd reads (bcryptjs writes `$2b$`, the same algorithm).
 * Verified matches are remembered (keyed by a digest, never the password), so a replica pays for bcrypt
 * once per credential and not on every sync. A hash made here is remembered as it is made: the sync fed
 * back its own htpasswd never runs bcrypt again.
 */
export const bcryptSecrets = (cacheSize = 4096, hasher: Bcrypt = bcrypt): Secrets => {
  const verified = new Set<string>();
  const keyOf = (password: string, hash: string): string => digestOf('sha256', `${hash}\0${password}`, 'hex');
  const remember = (key: string): void => {
    if (verified.size >= cacheSize) verified.delete(verified.values().next().value ?? '');
    verified.add(key);
  };
  return {
    rpcCA: generateRpcCA,
    password: () => randomPassword(),
    hash: async (password) => {
      const hash = (await hasher.hash(password, BCRYPT_COST)).replace(/^\$2[ab]\$/, '$2y$');
      remember(keyOf(password, hash));
      return hash;
    },
    // A hash that cannot be checked (bad cost, bad salt: bcryptjs throws) does not match: it is hashed anew.
    // Nor does one at another cost than ours, unchecked (see isServerCostHash).
    verify: async (password, hash) => {
      if (!isServerCostHash(hash)) return false;
      const key = keyOf(password, hash);
      if (verified.has(key)) return true;
      const ok = await hasher.compare(password, hash.replace(/^\$2y\$/, '$2b$')).catch(() => false);
      if (ok) remember(key);
      return ok;
    },
  };
};

export type CredentialsResult = { readonly ok: true; readonly credentials: ApiCredentials } | { readonly ok: false; readonly problem: ReferenceProblem };

type Plain = { readonly secretName: string; readonly username: string; readonly password: string; readonly generated: boolean };

/** The generated credentials: those of the observed child when it is complete, else new ones. */
const generatedCredentials = (name: string, secretName: string, observed: KubeObject | undefined, secrets: Secrets): Plain => {
  const data = dataOf(observed);
  const username = data['username'] ?? '';
  const password = data['password'] ?? '';
  if (username !== '' && password !== '') return { secretName, username, password, generated: true };
  return { secretName, username: name.replace(/[^A-Za-z0-9_-]/g, '-'), password: secrets.password(), generated: true };
};

/** Observed Secrets of one of our content-named kinds: by their component label and name prefix. */
const contentNamedSecrets = (children: ObjectMap | null | undefined, component: string, prefix: string): KubeObject[] =>
  objectsOf(children, GROUP_KEYS.secret).filter((o) => o.metadata.labels?.[LABELS.component] === component && o.metadata.name.startsWith(prefix));

/**
 * The htpasswd line of an observed child when it still matches the credentials, else a new one. A line
 * whose hash is not at the cost this server writes is stale and replaced without running bcrypt on it.
 */
const htpasswdFor = async (plain: Plain, observed: readonly KubeObject[], secrets: Secrets): Promise<string> => {
  for (const secret of observed) {
    const line = (dataOf(secret)['htpasswd'] ?? '').trim();
    const separator = line.indexOf(':');
    const hash = line.slice(separator + 1);
    if (separator > 0 && line.slice(0, separator) === plain.username && isServerCostHash(hash) && (await secrets.verify(plain.password, hash))) {
      return line;
    }
  }
  return `${plain.username}:${await secrets.hash(plain.password)}`;
};

/** The observed htpasswd Secrets, the one the workload mounts first (so a match there never rolls the pods). */
const inUseFirst = (secrets: readonly KubeObject[], inUse: string | undefined): KubeObject[] =>
  [...secrets].sort((a, b) => Number(b.metadata.name === inUse) - Number(a.metadata.name === inUse));

/**
 * Resolves the API credentials of an Ironic: the user's Secret (spec.apiCredentialsName) or the generated
 * child, and the htpasswd derived from them: an observed htpasswd Secret that still matches is reused, the
 * one the workload mounts (`inUse`) before any other.
 */
export const materializeCredentials = async (params: {
  readonly name: string;
  readonly names: IronicNames;
  readonly lookup: Lookup;
  readonly plan: CredentialsPlan;
  readonly children: ObjectMap | null | undefined;
  readonly inUse?: string | undefined;
  readonly secrets: Secrets;
}): Promise<CredentialsResult> => {
  const { names, lookup, children, plan } = params;
  let plain: Plain;
  if (plan.kind === 'user') {
    const user = resolveCredentialsSecret(lookup, plan.secretName, 'spec.apiCredentialsName', API_CREDENTIALS_RULES);
    if (!user.ok) return { ok: false, problem: user.problem };
    plain = { secretName: plan.secretName, ...user.value, generated: false };
  } else {
    plain = generatedCredentials(params.name, plan.secretName, plan.observed, params.secrets);
  }
  const htpasswd = await htpasswdFor(
    plain,
    inUseFirst(contentNamedSecrets(children, CONTENT_COMPONENTS.htpasswd, names.htpasswdPrefix), params.inUse),
    params.secrets,
  );
  const hash = digestOf('sha256', htpasswd, 'hex');
  return { ok: true, credentials: { ...plain, htpasswd, hash, htpasswdSecretName: names.htpasswd(hash) } };
};

/** The CA set held by an observed CA Secret. */
const caSetOf = (data: Record<string, string>): CASet | undefined => {
  const signing = { certPem: data['tls.crt'] ?? '', keyPem: data['tls.key'] ?? '' };
  if (signing.certPem === '' || signing.keyPem === '') return undefined;
  const bundle = normalizeBundle((data['ca.crt'] ?? signing.certPem).split(/(?<=-----END CERTIFICATE-----)\s*/).filter((p) => p.includes('BEGIN CERTIFICATE')));
  const next = data['next.crt'] !== undefined && data['next.key'] !== undefined ? { certPem: data['next.crt'], keyPem: data['next.key'] } : undefined;
  return { signing, bundle, ...(next && { next }) };
};

type ObservedCA = { readonly secretName: string; readonly set: CASet };

/**
 * Orders CA Secrets from the newest step of a rotation to the oldest: a newer signing CA first, then one
 * with a staged next CA, then the smaller bundle (pruned after promotion), then the name.
 */
const newestFirst = (a: ObservedCA, b: ObservedCA): number => {
  const from = (s: ObservedCA): number => requiredCertificateFacts(s.set.signing.certPem).validFrom;
  return (
    from(b) - from(a) ||
    Number(b.set.next !== undefined) - Number(a.set.next !== undefined) ||
    a.set.bundle.length - b.set.bundle.length ||
    a.secretName.localeCompare(b.secretName)
  );
};

/** Where the CA Secrets of one kind live: their component label, name prefix and content-named name. */
export type CAKind = { readonly component: string; readonly prefix: string; readonly secretName: (hash: string) => string; readonly commonName: string };

/** The observed CA Secrets of one kind (terminating ones left out), newest first. */
const observedCAs = (children: ObjectMap | null | undefined, kind: CAKind): ObservedCA[] =>
  contentNamedSecrets(children, kind.component, kind.prefix)
    .filter((o) => o.metadata.deletionTimestamp === undefined)
    .map((o) => ({ secretName: o.metadata.name, set: caSetOf(dataOf(o)) }))
    .filter((o): o is ObservedCA => o.set !== undefined)
    .sort(newestFirst);

/**
 * A CA the operator keeps: the observed one while it is valid, rotated in two rolling restarts ahead of
 * expiry (see crypto/rotation.ts), or a new one. Every change is a new, content-named Secret. `mayPromote`
 * adds a condition to promoting a staged CA, besides the workload having rolled out with it.
 */
export const materializeCA = async (params: {
  readonly kind: CAKind;
  readonly children: ObjectMap | null | undefined;
  readonly now: Date;
  readonly secrets: Secrets;
  readonly rollout?: { readonly secretName: string; readonly ready: boolean } | undefined;
  readonly mayPromote?: (set: CASet) => boolean;
}): Promise<RpcCAReference> => {
  const current = observedCAs(params.children, params.kind)[0];
  const rolledOut = current !== undefined && params.rollout?.ready === true && params.rollout.secretName === current.secretName;
  const settled = rolledOut && (params.mayPromote?.(current.set) ?? true);
  const set = await nextCASet({ observed: current?.set, now: params.now, settled, generate: () => params.secrets.rpcCA(params.kind.commonName, params.now) });
  const bundlePem = set.bundle.join('');
  const hash = createHash('sha256')
    .update(set.signing.certPem)
    .update(bundlePem)
    .update(set.next?.certPem ?? '')
    .digest('hex');
  return {
    certPem: set.signing.certPem,
    keyPem: set.signing.keyPem,
    bundlePem,
    ...(set.next && { next: set.next }),
    hash,
    secretName: params.kind.secretName(hash),
  };
};

/** What an Ironic's CA is materialized from: the Ironic, its observed children and the time. */
type IronicCAParams = {
  readonly name: string;
  readonly names: IronicNames;
  readonly namespace: string;
  readonly children: ObjectMap | null | undefined;
  readonly now: Date;
  readonly secrets: Secrets;
  /** The CA Secret the running pods were started with (the workload's annotation), and whether all are ready. */
  readonly rollout?: { readonly secretName: string; readonly ready: boolean } | undefined;
};

/**
 * The JSON-RPC CA of an HA Ironic: the observed one while it is valid, rotated in two rolling restarts
 * ahead of expiry (see crypto/rotation.ts), or a new one. Every change is a new, content-named Secret.
 */
export const materializeRpcCA = async (params: IronicCAParams): Promise<RpcCAReference> =>
  materializeCA({
    kind: {
      component: CONTENT_COMPONENTS.rpcCA,
      prefix: params.names.rpcCAPrefix,
      secretName: params.names.rpcCA,
      commonName: `${params.namespace}/${params.name} JSON-RPC CA`,
    },
    children: params.children,
    now: params.now,
    secrets: params.secrets,
    rollout: params.rollout,
  });

const SECOND_MS = 1000;

/** Generated API certificates, and how soon the next step of their renewal is due. */
export type GeneratedTLSResult = { readonly tls: GeneratedTLS; readonly resyncAfterSeconds: number };

/**
 * The CA of generated API certificates and the renewal period the pods run in. A staged next CA signs only
 * once the workload rolled out with it and it has been published for CA_PUBLISHED_BEFORE_SIGNING_DAYS, so
 * every client of the `<name>-ca` ConfigMap trusts it before any certificate it signed is served.
 */
export const materializeGeneratedTLS = async (params: IronicCAParams): Promise<GeneratedTLSResult> => {
  const { now } = params;
  const ca = await materializeCA({
    kind: {
      component: CONTENT_COMPONENTS.tlsCA,
      prefix: params.names.tlsCAPrefix,
      secretName: params.names.tlsCA,
      commonName: `${params.namespace}/${params.name} CA`,
    },
    children: params.children,
    now,
    secrets: params.secrets,
    rollout: params.rollout,
    mayPromote: (set) => set.next !== undefined && publishedLongEnough(set.next.certPem, now),
  });
  const period = renewalPeriod(ca.certPem, now);
  // The next renewal period, the start of the CA's renewal window, and when a staged CA may sign.
  const due = [period.next, caRenewalStart(ca.certPem), ...(ca.next ? [signableAt(ca.next.certPem)] : [])].map((d) => d.getTime());
  const soonest = Math.min(...due.filter((t) => t > now.getTime()));
  return { tls: { ca, period: period.start.toISOString() }, resyncAfterSeconds: Math.max(1, Math.ceil((soonest - now.getTime()) / SECOND_MS)) };
};
