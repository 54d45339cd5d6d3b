/**
 * The runs of `ironic-render` that the README's "See it without a cluster" shows are what the command prints
 * today: each `$ command` of a console block (a `sed` before it and a `grep` after it are played), and the
 * sample output of the first `npm run render` (its lines, then a `# ...` line naming the objects that follow).
 * What differs on every run is compared as a placeholder: times, the generated password and its bcrypt hash
 * (and the name of the Secret that holds it), and the names of Jobs made from the clock.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { runRender } from '../../src/cli/render.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { readmeSection } from '../support/readme.js';

const section = readmeSection;

type Block = { readonly language: string; readonly lines: readonly string[] };

/** The fenced blocks of a text, in order. */
const blocks = (text: string): Block[] =>
  [...text.matchAll(/^```(\w*)\n([^]*?)^```$/gm)].map((m) => ({ language: m[1] ?? '', lines: (m[2] ?? '').replace(/\n$/, '').split('\n') }));

/** The files the README's commands read besides examples/: db.yaml as the README describes it. */
const FILES: Readonly<Record<string, string>> = {
  'db.yaml': JSON.stringify({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'IronicDatabase',
    metadata: { name: 'ironic-db', namespace: 'metal3' },
    spec: { backup: { schedule: '@hourly' } },
  }),
};

const readFileOf = (path: string): string => FILES[path] ?? readFileSync(path, 'utf8');

/** The words of a command line: blanks split them, single quotes keep them together. */
const words = (line: string): string[] => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');

/** One stage of a pipeline: `sed 's/A/B/' FILE`, `npm run [--silent] render -- ARGS` or `grep [-E] 'RE'`. */
type Stage = readonly string[];

const stagesOf = (command: string): Stage[] => {
  const stages: string[][] = [[]];
  for (const word of words(command.replace(/\s+#.*$/, ''))) {
    if (word === '|') stages.push([]);
    else stages.at(-1)?.push(word);
  }
  return stages;
};

/** `sed 's/A/B/' FILE`: the file with the first A of each line replaced by B. */
const sed = (stage: Stage): string => {
  const [, script = '', file = ''] = stage;
  const match = /^s\/(.*)\/(.*)\/$/.exec(script);
  if (stage[0] !== 'sed' || match === null) throw new Error(`not a sed the test plays: ${stage.join(' ')}`);
  return readFileOf(file)
    .split('\n')
    .map((line) => line.replace(new RegExp(match[1] ?? ''), match[2] ?? ''))
    .join('\n');
};

/** `grep [-E] RE`: the lines that match. */
const grep = (stage: Stage, text: string): string[] => {
  const pattern = stage.at(-1) ?? '';
  if (stage[0] !== 'grep' || stage.length > 3) throw new Error(`not a grep the test plays: ${stage.join(' ')}`);
  return text.split('\n').filter((line) => line !== '' && new RegExp(pattern).test(line));
};

/** The arguments of `npm run [--silent] render -- ARGS`. */
const renderArgs = (stage: Stage): string[] => {
  const at = stage.indexOf('--');
  if (stage[0] !== 'npm' || stage[1] !== 'run' || !stage.slice(0, at).includes('render') || at < 0) throw new Error(`not a render: ${stage.join(' ')}`);
  return stage.slice(at + 1);
};

type Run = { readonly stdout: string; readonly stderr: string };

const render = async (argv: readonly string[], stdin: string): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  await runRender(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdin: async () => stdin,
    readFile: async (path) => readFileOf(path),
    env: {},
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  });
  return { stdout, stderr };
};

/** What a terminal shows for a pipeline: the render's stderr, then its stdout (through grep when there is one). */
const shown = async (command: string): Promise<{ readonly lines: string[]; readonly run: Run }> => {
  const stages = stagesOf(command);
  const [first] = stages;
  const piped = first?.[0] === 'sed';
  const renderStage = stages[piped ? 1 : 0] ?? [];
  const after = stages[piped ? 2 : 1];
  const run = await render(renderArgs(renderStage), piped ? sed(first) : '');
  const out = after === undefined ? run.stdout.replace(/\n$/, '').split('\n') : grep(after, run.stdout);
  const err = run.stderr === '' ? [] : run.stderr.replace(/\n$/, '').split('\n');
  return { lines: [...err, ...out].filter((line) => line !== ''), run };
};

/** A line with what differs on every run as placeholders. */
const stable = (line: string): string =>
  line
    // Quoted or not: the tests' yaml (shared with tap's) writes times without the quotes the command writes.
    .replace(/"?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"?/g, '<time>')
    .replace(/^(\s*(password|htpasswd): ).*$/, '$1<generated>')
    .replace(/-htpasswd-[0-9a-f]{10}\b/g, '-htpasswd-<hash>')
    .replace(/-backup-\d+\b/g, '-backup-<minutes>');

const section$ = section('See it without a cluster');
const all = blocks(section$);
const consoles = all.filter((b) => b.language === 'console');

t.ok(consoles.length >= 4, `${consoles.length} console blocks`);

for (const block of consoles) {
  const commands = block.lines.flatMap((line, i) => (line.startsWith('$ ') ? [i] : []));
  for (const [n, at] of commands.entries()) {
    const command = block.lines[at]?.slice(2) ?? '';
    t.test(`$ ${command}`, async (t) => {
      const expected = block.lines.slice(at + 1, commands[n + 1]).map(stable);
      const { lines } = await shown(command);
      t.same(lines.map(stable), expected, 'what the README shows is what the command prints');
    });
  }
}

t.test('the sample output of the first render: its lines, then the objects that follow by name', async (t) => {
  const at = all.findIndex((b) => b.language === 'yaml');
  const command = all[at - 1]?.lines[0] ?? '';
  const sample = all[at]?.lines ?? [];
  t.match(command, /^npm run render -- -f examples\/minimal\.yaml\b/, 'a sh block with the command comes first');
  const { run } = await shown(command);
  const follow = sample.at(-1) ?? '';
  t.match(follow, /^# \.\.\. .* follows?$/, 'the sample ends with a line that names what follows');
  const shownLines = sample.slice(0, -1);
  const output = run.stdout.split('\n');
  t.same(output.slice(0, shownLines.length).map(stable), shownLines.map(stable), 'the sample is the start of the output');
  const rest = parseAllDocuments(output.slice(shownLines.length).join('\n'))
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .flatMap((o) => (o?.kind !== undefined && o.metadata?.name !== undefined ? [`${o.kind} ${o.metadata.name}`] : []));
  t.ok(rest.length > 0, 'more follows');
  for (const object of rest.map(stable)) t.ok(stable(follow).includes(`the ${object}`), `the line names the ${object} that follows`);
});
