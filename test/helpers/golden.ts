/**
 * Golden files: a text compared with its committed expectation. A missing golden file fails the test
 * (a run must never invent its own expectation); only UPDATE_GOLDEN=1 writes golden files, and then
 * the diff is for a person to review.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** True when the run was asked to (re)write golden files: `UPDATE_GOLDEN=1`. */
export const updateGoldenRequested = (env: NodeJS.ProcessEnv = process.env): boolean => env['UPDATE_GOLDEN'] === '1';

/** What a golden file says about a text: its expectation, or that there is none. */
export type GoldenCheck = { kind: 'expected'; expected: string } | { kind: 'missing'; message: string };

/**
 * The expectation for `actual` in `file`. With `update`, `file` is (re)written with `actual` first;
 * without, a missing file is reported as such and nothing is written.
 */
export const checkGolden = (file: string, actual: string, update: boolean): GoldenCheck => {
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  if (!existsSync(file)) {
    return { kind: 'missing', message: `golden file ${file} is missing: run the test with UPDATE_GOLDEN=1 to write it, then review and commit it` };
  }
  return { kind: 'expected', expected: readFileSync(file, 'utf8') };
};

/** The two assertions a golden comparison makes (tap's `t` has both). */
export type GoldenAssert = {
  fail: (message: string) => unknown;
  equal: (found: string, wanted: string, message: string) => unknown;
};

/** One assertion: `actual` equals the golden file, or a failure when the golden file is missing. */
export const assertGolden = (t: GoldenAssert, file: string, actual: string, update: boolean = updateGoldenRequested()): void => {
  const check = checkGolden(file, actual, update);
  if (check.kind === 'missing') t.fail(check.message);
  else t.equal(actual, check.expected, `matches ${file}`);
};
