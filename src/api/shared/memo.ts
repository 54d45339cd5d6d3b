/**
 * Bounded memos of pure answers keyed by a string that determines them (the text itself, or a digest of
 * everything the answer depends on). The answer is always the computation's own, whatever was asked before
 * (a memo only saves the work); at most `limit` answers are kept, the oldest forgotten first.
 */

export type Memo<V> = {
  /** The answer for `key`: the one kept, else `compute()`'s, then kept. */
  readonly get: (key: string, compute: () => V) => V;
  /** How many answers are kept: never more than the limit. */
  readonly size: () => number;
};

export const boundedMemo = <V>(limit: number): Memo<V> => {
  const answers = new Map<string, V>();
  return {
    get: (key, compute) => {
      if (answers.has(key)) return answers.get(key) as V;
      const answer = compute();
      const oldest = answers.size >= limit ? answers.keys().next() : undefined;
      if (oldest?.done === false) answers.delete(oldest.value);
      if (limit > 0) answers.set(key, answer);
      return answer;
    },
    size: () => answers.size,
  };
};

/**
 * The value kept in `map` for the object `key`: the one made the first time, by `make`. A weak map keeps it only
 * while the key lives, so it suits answers about objects that are never changed (frozen, or only ever read).
 */
export const keptIn = <K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V => {
  const known = map.get(key);
  if (known !== undefined) return known;
  const made = make();
  map.set(key, made);
  return made;
};

/**
 * The value with every plain object and array in it frozen (in place), for an answer a memo hands to many
 * callers. Sets and maps are left as they are: their types are read-only.
 */
export const deepFrozen = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || value instanceof Set || value instanceof Map) return value;
  Object.freeze(value);
  for (const field of Object.values(value)) deepFrozen(field);
  return value;
};

/**
 * The JSON text of a value that JSON.parse could have made and that JSON.stringify writes back exactly:
 * plain objects and dense arrays of strings, finite numbers (not -0), booleans and null. Undefined for
 * anything else (an undefined field, a function, a class instance), which a memo must not key by its JSON.
 */
export const exactJson = (value: unknown): string | undefined => (isExactJson(value, 0) ? JSON.stringify(value) : undefined);

/** Deeper than any Kubernetes object: the server refuses bodies nested deeper than this (src/server/depth.ts). */
const MAX_EXACT_DEPTH = 128;

/** An object made by a literal, JSON.parse or Object.create(null): not a class instance, a date or a boxed primitive. */
export const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const isExactJson = (value: unknown, depth: number): boolean => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || depth > MAX_EXACT_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!(i in value) || !isExactMember(value[i], depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  // `for in` reads the keys without a list of the values; a plain object inherits no enumerable key.
  for (const key in value) if (!isExactMember((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
};

/** isExactJson of a member, a string (most of them) answered without a call. */
const isExactMember = (value: unknown, depth: number): boolean => typeof value === 'string' || isExactJson(value, depth);

/** A pure function of a JSON value, answered once per exact JSON text while the answer is kept. */
export type JsonMemo<V> = {
  /** The answer for `value`: the kept one when `value` is exact JSON no longer than the limit, else worked out now. */
  readonly get: (value: unknown) => V;
  /** How many answers are kept: never more than the limit. */
  readonly size: () => number;
};

/**
 * A memo of `compute` keyed by the exact JSON of its argument (exactJson). On a miss, `compute` gets the
 * key's own parsed copy and its answer is deep-frozen, so no caller's object is frozen and no caller can
 * change what the next one gets. Values that are no exact JSON, or longer than `maxLength`, are computed
 * every time.
 */
export const jsonMemo = <V>(limit: number, maxLength: number, compute: (value: unknown) => V): JsonMemo<V> => {
  const answers = boundedMemo<V>(limit);
  return {
    get: (value) => {
      const key = exactJson(value);
      if (key === undefined || key.length > maxLength) return compute(value);
      return answers.get(key, () => deepFrozen(compute(JSON.parse(key))));
    },
    size: answers.size,
  };
};
