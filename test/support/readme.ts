/**
 * The README as the tests read it: its text, and one `## ` section of it.
 */
import { readFileSync } from 'node:fs';

export const README = readFileSync('README.md', 'utf8');

/** The text of a `## ` section of the README, up to the next one. */
export const readmeSection = (heading: string): string => {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
};
