/** Walking a directory of the repository in the tests. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file under a directory, subdirectories too, as the directory's path joined to the file's
 * (`examples/lab/ironic.yaml` for `examples`), sorted.
 */
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
