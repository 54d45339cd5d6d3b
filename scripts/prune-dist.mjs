// @ts-check
/**
 * Removes what an earlier build left in dist/ for a source that is gone (a file deleted or renamed under
 * src/): `tsc -b` only writes, and the hook server loads every module of dist/render/ironic/features, so a
 * feature deleted from src/ would otherwise still run. Runs before every build of package.json's scripts.
 * Usage: node scripts/prune-dist.mjs [DIST [SRC]]
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The source an output of tsc came from, for the outputs it writes (.js, its map, declarations). */
const OUTPUT = /\.(?:js|js\.map|d\.ts|d\.ts\.map)$/;

/**
 * Every output under dist whose source under src does not exist, removed; returns their paths.
 * @param {string} dist
 * @param {string} src
 * @returns {string[]}
 */
export const pruneDist = (dist, src) => {
  if (!existsSync(dist)) return [];
  /** @type {string[]} */
  const removed = [];
  /** @param {string} dir */
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (OUTPUT.test(entry.name) && !existsSync(join(src, relative(dist, path).replace(OUTPUT, '.ts')))) {
        rmSync(path);
        removed.push(relative(dist, path));
      }
    }
  };
  visit(dist);
  return removed.sort();
};

if (import.meta.filename === process.argv[1]) pruneDist(process.argv[2] ?? 'dist', process.argv[3] ?? 'src');
