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

/** The rows of the README's configuration table, each with the variables of its first cell. */
export const configurationRows = (): { readonly variables: readonly string[]; readonly row: string }[] =>
  readmeSection('Configuration of the hook server')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((row) => ({ variables: [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] ?? ''), row }));

/** An image a feature runs, as the configuration table must document it. */
export type DocumentedImage = { readonly setting: string; readonly default: string; readonly container: string };

/**
 * What the configuration table lacks for these images: each needs a row of its own variable that gives its
 * default and names its container.
 */
export const imageRowProblems = (images: readonly DocumentedImage[]): string[] => {
  const rows = configurationRows();
  return images.flatMap((image) => {
    const row = rows.find((r) => r.variables.length === 1 && r.variables[0] === image.setting)?.row;
    if (row === undefined) return [`no row of its own for ${image.setting}`];
    return [
      ...(row.includes(`\`${image.default}\``) ? [] : [`the row of ${image.setting} does not give its default ${image.default}`]),
      ...(row.includes(`\`${image.container}\``) ? [] : [`the row of ${image.setting} does not name the container ${image.container}`]),
    ];
  });
};
