/**
 * The closest known name to a misspelt one (a kind, a field), by edit distance, for "the closest is ..."
 * in messages.
 */

/**
 * The edit distance of two words, ignoring case: insertions, deletions, substitutions and swaps of two
 * neighbouring letters (`sepc` is one edit from `spec`).
 */
export const editDistance = (a: string, b: string): number => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let before: number[] = [];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= y.length; j += 1) {
      const edits = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1));
      const swapped = i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1];
      row.push(swapped ? Math.min(edits, (before[j - 2] ?? 0) + 1) : edits);
    }
    [before, previous] = [previous, row];
  }
  return previous[y.length] ?? 0;
};

/**
 * The known name closest to `word` (the first of equals, in the order given), or undefined when none is
 * within `maxEdits`.
 */
export const closestName = (word: string, known: readonly string[], maxEdits = Number.POSITIVE_INFINITY): string | undefined => {
  let best: { name: string; edits: number } | undefined;
  for (const name of known) {
    const edits = editDistance(word, name);
    if (edits <= maxEdits && (best === undefined || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
};

/** How many edits a misspelt field may be from a known one to be suggested: a third of its length, at least one. */
export const typoEdits = (word: string): number => Math.max(1, Math.floor(word.length / 3));
