/**
 * Small helpers shared by renderers: labels, content hashes, base64, and dropping undefined values.
 */
import { createHmac, hash } from 'node:crypto';
import { sortedMap } from '../api/shared/fields.js';
import { frozenJsonCopy } from '../api/shared/frozen-json.js';
import { boundedMemo, exactJson, keptIn, type Memo } from '../api/shared/memo.js';
import { LABELS, MANAGED_BY, labelValue } from './names.js';

/**
 * JSON with object keys sorted at every level, so equal content always hashes the same. Written as one
 * string built in a loop (a pod template is hashed on every sync): the text is that of mapping and joining.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) {
    let text = '[';
    // A hole reads as undefined and is written null, as JSON.stringify writes it.
    for (let i = 0; i < value.length; i += 1) text += `${i > 0 ? ',' : ''}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    let text = '';
    for (const key of Object.keys(record).sort()) {
      const field = record[key];
      if (field !== undefined) text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(field)}`;
    }
    return `{${text}}`;
  }
  // JSON.stringify answers undefined for these, whatever its declared type says.
  return leafJson(value);
};

/** The canonical JSON of a value that is neither an array nor an object. */
const leafJson = (value: unknown): string => (value === undefined || typeof value === 'function' || typeof value === 'symbol' ? 'null' : JSON.stringify(value));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether `key` is one of Object.keys(record). */
const ownKey = (record: Record<string, unknown>, key: string): boolean => Object.prototype.propertyIsEnumerable.call(record, key);

/** How many own keys of a record hold a defined value (an undefined field is left out of canonical JSON). */
const definedCount = (record: Record<string, unknown>): number => {
  let count = 0;
  for (const key of Object.keys(record)) if (record[key] !== undefined) count += 1;
  return count;
};

const sameArrays = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!sameCanonicalJson(a[i], b[i])) return false;
  return true;
};

/** Every defined field of `a` is the same in `b`, and `b` has no other defined field: no key list or set is built. */
const sameRecords = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  let count = 0;
  for (const key of Object.keys(a)) {
    const field = a[key];
    if (field === undefined) continue;
    const other = b[key];
    if (other === undefined || !ownKey(b, key) || !sameCanonicalJson(field, other)) return false;
    count += 1;
  }
  return count === definedCount(b);
};

/**
 * Whether two values have the same canonical JSON, compared field by field without building either text
 * (a sync compares each rendered workload with the one applied last).
 */
export const sameCanonicalJson = (a: unknown, b: unknown): boolean => {
  // One value (the same object, or equal strings, numbers, booleans) has one canonical JSON.
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && sameArrays(a, b);
  if (isObject(a) || isObject(b)) return isObject(a) && isObject(b) && sameRecords(a, b);
  return typeof a === 'string' && typeof b === 'string' ? a === b : leafJson(a) === leafJson(b);
};

/** sha256 (hex) of the canonical JSON of a value: used for restart annotations. */
export const contentHash = (value: unknown): string => hash('sha256', canonicalJson(value), 'hex');

/**
 * Keyed hashes already made (a steady-state sync names the same Secrets again), by a digest of their key and
 * text: the text holds a secret, which a memo keeps no copy of. One sha256 costs less than making an HMAC.
 */
const keyedHashes: Memo<string> = boundedMemo(1024);

/**
 * HMAC-SHA256 (hex) of a text keyed with `key`: a name for content that holds a secret, which no one can
 * check guesses of the secret against without the key.
 */
export const keyedContentHash = (key: string, value: string): string =>
  keyedHashes.get(hash('sha256', JSON.stringify([key, value]), 'base64'), () => createHmac('sha256', key).update(value).digest('hex'));

/** How many renders are kept per model: the model is one spec's, so these differ only in what the spec refers to. */
const RENDERS_PER_MODEL = 4;

/** The input of a renderer: a model, and the names of the parent's children when it has them. */
type RenderInput = { readonly model: object; readonly names?: object };

/** What stands for the names of an input without them. */
const NO_NAMES = Object.freeze({});

/**
 * A renderer whose answers are kept. A steady-state sync renders the same children again from an equal input.
 * Parse hands out one frozen model per spec text and names hands out one frozen set of names per parent name
 * (they hold functions, which JSON does not write), so an answer is kept by those two objects and then by the
 * JSON text of the rest of the input (what the spec refers to, the credentials, the configuration). An input
 * whose model or names are not frozen, or whose rest is not exact JSON (a class instance, a function, an
 * undefined field), is rendered every time, as neither its objects nor its text would tell it apart. An answer
 * is kept as the JSON it is sent as (read back from its text, which leaves out undefined fields and makes every
 * string a plain one) and deep-frozen, with its text recorded (frozenJsonCopy) for the response to reuse: every
 * later call with an equal input gets that same object, which Metacontroller only reads.
 */
export const keptRenders = <I extends RenderInput, V>(render: (input: I) => V): ((input: I) => V) => {
  const byModel = new WeakMap<object, WeakMap<object, Memo<V>>>();
  return (input) => {
    const { model, names = NO_NAMES, ...rest } = input;
    // Only frozen objects are kept by identity: one that may change could not answer for a later call.
    const key = Object.isFrozen(model) && Object.isFrozen(names) ? exactJson(rest) : undefined;
    if (key === undefined) return render(input);
    const byNames = keptIn(byModel, model, () => new WeakMap<object, Memo<V>>());
    const kept = keptIn(byNames, names, () => boundedMemo<V>(RENDERS_PER_MODEL));
    return kept.get(key, () => frozenJsonCopy(render(input)));
  };
};

/** Base64 of a UTF-8 string, for Secret `data`. */
export const base64 = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

/** Labels put on every child of an Ironic. */
export const ironicLabels = (name: string, version: string): Record<string, string> => ({
  [LABELS.ironic]: labelValue(name),
  [LABELS.version]: labelValue(version),
  [LABELS.managedBy]: MANAGED_BY,
});

/**
 * Labels of the Ironic's Secrets: no version label, because Secrets are never updated in place (a
 * version label would go stale after an upgrade).
 */
export const ironicSecretLabels = (name: string): Record<string, string> => ({
  [LABELS.ironic]: labelValue(name),
  [LABELS.managedBy]: MANAGED_BY,
});

/** Labels put on every child of an IronicDatabase. */
export const databaseLabels = (name: string): Record<string, string> => ({
  [LABELS.database]: labelValue(name),
  [LABELS.managedBy]: MANAGED_BY,
});

/** Labels put on every child of an IronicImageCache. */
export const imageCacheLabels = (name: string): Record<string, string> => ({
  [LABELS.imageCache]: labelValue(name),
  [LABELS.managedBy]: MANAGED_BY,
});

/**
 * Recursively drops undefined values and empty objects/arrays created by optional parts, so a rendered
 * object never carries `null` or `undefined` (Metacontroller would see them as changes).
 */
export const compact = <T>(value: T): T => {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined && v !== null).map(compact) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || v === null) continue;
      out[k] = compact(v);
    }
    return out as T;
  }
  return value;
};

/** `nodeSelector` for a pod spec, sorted, or nothing when empty. */
export const nodeSelection = (nodeSelector: Readonly<Record<string, string>> | undefined): { nodeSelector?: Record<string, string> } =>
  nodeSelector !== undefined && Object.keys(nodeSelector).length > 0 ? { nodeSelector: sortedMap(nodeSelector) } : {};
