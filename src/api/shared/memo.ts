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
