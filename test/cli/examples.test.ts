/**
 * Every file under examples/ (subfolders too), run through `ironic-render` with the command the README
 * documents for them, as a new user would: no environment, no cluster. Each Ironic, IronicDatabase and
 * IronicImageCache ends Ready=True and its last round writes nothing. A file without a parent object
 * holds only Namespaces (for `kubectl apply`), and says so.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { runRender } from '../../src/cli/render.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { filesUnder } from '../support/files.js';

const EXAMPLES = filesUnder('examples');

/** The README's command for an example: `npm run --silent render -- -f examples/FILE ...`, as argv with FILE in place. */
const documentedArgv = (file: string): string[] => {
  const match = /`npm run --silent render -- (-f examples\/FILE [^`]*)`/.exec(readFileSync('README.md', 'utf8'));
  if (match?.[1] === undefined) throw new Error('README.md documents no `npm run --silent render -- -f examples/FILE ...` command');
  return match[1].split(' ').map((word) => word.replace('examples/FILE', file));
};

const kindsOf = (file: string): { kind: string; name: string; namespace: string }[] =>
  parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' })
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } } | null)
    .flatMap((o) => (o?.kind === undefined ? [] : [{ kind: o.kind, name: o.metadata?.name ?? '', namespace: o.metadata?.namespace ?? 'default' }]));

const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  let stdout = '';
  let stderr = '';
  const code = await runRender(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdin: async () => '',
    readFile: async (path) => readFileSync(path, 'utf8'),
    env: {},
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  });
  return { code, stdout, stderr };
};

t.ok(EXAMPLES.length >= 11, `examples found: ${EXAMPLES.join(', ')}`);

for (const file of EXAMPLES) {
  t.test(`${file}: the README's render command converges`, async (t) => {
    const objects = kindsOf(file);
    const parents = objects.filter((o) => PARENT_KINDS.some((k) => k.kind === o.kind));
    if (parents.length === 0) {
      t.same(
        objects.map((o) => o.kind),
        objects.map(() => 'Namespace'),
        'a file without a parent holds only Namespaces',
      );
      return;
    }
    const argv = documentedArgv(file);
    const r = await run(argv);
    t.equal(r.code, 0, `ironic-render ${argv.join(' ')}: ${r.stderr}`);
    const rounds = r.stdout.split('\n').filter((line) => line.startsWith('# round '));
    for (const parent of parents) {
      const what = `${parent.kind} ${parent.namespace}/${parent.name}`;
      t.ok(r.stdout.includes(`\n# ${what}: Ready=True `) || r.stdout.startsWith(`# ${what}: Ready=True `), `${what} is Ready`);
      const last = rounds.filter((line) => line.includes(`: ${what}: `)).at(-1) ?? '';
      t.match(last, /: no writes; Ready=True /, `${what}: the last round writes nothing`);
    }
  });
}
