/**
 * `tsc -b` writes and never removes, and the hook server loads every module of dist/render/ironic/features: the
 * build first removes what dist/ holds for a source that is gone, so a feature deleted from src/ stops running.
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pruneDist } from '../../scripts/prune-dist.mjs';
import { filesUnder } from '../support/files.js';

const write = (root: string, file: string): void => {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), '');
};

t.test('outputs of a deleted source are removed, and nothing else', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'prune-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const [src, dist] = [join(root, 'src'), join(root, 'dist')];
  for (const file of ['main.ts', 'render/ironic/features/httpd.ts']) write(src, file);
  for (const file of [
    'main.js',
    'main.js.map',
    'tsconfig.tsbuildinfo',
    'render/ironic/features/httpd.js',
    'render/ironic/features/httpd.js.map',
    'render/ironic/features/gone.js',
    'render/ironic/features/gone.js.map',
    'render/old.d.ts',
  ])
    write(dist, file);
  t.same(pruneDist(dist, src), ['render/ironic/features/gone.js', 'render/ironic/features/gone.js.map', 'render/old.d.ts']);
  t.same(
    filesUnder(dist)
      .map((f) => relative(dist, f))
      .sort(),
    ['main.js', 'main.js.map', 'render/ironic/features/httpd.js', 'render/ironic/features/httpd.js.map', 'tsconfig.tsbuildinfo'],
  );
  t.same(pruneDist(join(root, 'none'), src), [], 'no dist yet: nothing to do');
});

t.test('every script of package.json that builds prunes first', async (t) => {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const building = Object.entries(scripts).filter(([, command]) => command.includes('tsc -b tsconfig.json'));
  t.ok(building.length >= 2, 'the build and start scripts are found');
  t.same(
    building.filter(([, command]) => !command.startsWith('node scripts/prune-dist.mjs && ')).map(([name]) => name),
    [],
  );
});
