/**
 * The Dockerfile (no Docker engine here, so its text is checked): multi-stage on Node.js 26, no install
 * scripts (the base image's Node.js, not a second one downloaded by the `node` dev dependency), dev
 * dependencies left out, non-root, and the command and port the Deployment in deploy/ expects.
 */
import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IRONIC_FEATURES } from '../../src/hooks/ironic-features.js';
import { filesUnder } from '../support/files.js';
import { readYamlDocuments } from './kustomize.js';
import { Type } from '@sinclair/typebox';
import { ofKind } from '../helpers/children.js';
import { readJson } from '../helpers/json.js';

type Instruction = { readonly keyword: string; readonly args: string };

/** Instructions with line continuations joined and comments dropped. */
const instructions = (text: string): Instruction[] =>
  text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });

const all = instructions(readFileSync('Dockerfile', 'utf8'));
const stages = all.reduce<Instruction[][]>((out, i) => (i.keyword === 'FROM' ? [...out, [i]] : out.map((s, n) => (n === out.length - 1 ? [...s, i] : s))), []);
const final = stages.at(-1) ?? [];
const args = (keyword: string, stage: readonly Instruction[] = all): string[] => stage.filter((i) => i.keyword === keyword).map((i) => i.args);
const deployment = ofKind(readYamlDocuments('deploy/metacontroller/deployment.yaml')[0], 'Deployment');

t.test('multi-stage on Node.js 26', async (t) => {
  const from = args('FROM');
  t.ok(from.length >= 2, `${from.length} stages`);
  for (const image of from) t.match(image, /^(node:26[-.\w]*|gcr\.io\/distroless\/nodejs26[-\w]*)(@sha256:[0-9a-f]+)?( AS \w+)?$/i, image);
  t.equal(args('FROM', final)[0]?.match(/ AS /i), null, 'the last stage is the image');
});

t.test('the base image is pinned by digest, with its tag, the same in every stage', async (t) => {
  const images = args('FROM').map((from) => from.split(/ AS /i)[0] ?? '');
  for (const image of images) t.match(image, /^[^@\s]+:[^@\s]+@sha256:[0-9a-f]{64}$/, `${image}: a tag for the reader, a digest for the build`);
  t.equal(new Set(images).size, 1, 'one base image');
});

t.test('builds with dev dependencies, ships production dependencies only', async (t) => {
  const runs = args('RUN');
  t.ok(
    runs.some((r) => /^npm ci\b/.test(r) && !r.includes('--omit=dev')),
    'a build stage installs everything',
  );
  t.same(
    runs.filter((r) => /\bnpm (ci|install|i)\b/.test(r) && !r.includes('--ignore-scripts')),
    [],
    'no install script runs: the `node` dev dependency would download a second Node.js',
  );
  t.ok(
    runs.some((r) => r.includes('npm run build:runtime')),
    'and compiles the runtime only',
  );
  t.ok(
    runs.some((r) => /npm ci\b.*--omit=dev/.test(r)),
    'npm ci --omit=dev for the runtime dependencies',
  );
  t.same(
    args('RUN', final).filter((r) => /\bnpm (ci|install|i)\b/.test(r)),
    [],
    'nothing is installed in the final stage',
  );
  const copies = args('COPY', final);
  t.ok(
    copies.some((c) => /--from=\w+ \/app\/node_modules/.test(c)),
    'node_modules comes from a --omit=dev stage',
  );
  t.ok(
    copies.some((c) => /--from=\w+ \/app\/dist/.test(c)),
    'dist comes from the build stage',
  );
  t.ok(
    copies.some((c) => c.startsWith('package.json ')),
    'package.json ("type": "module") is in the image',
  );
});

t.test('runs node dist/main.js as a non-root user on port 8080', async (t) => {
  const user = args('USER', final).at(-1) ?? '';
  t.ok(user !== '' && !/^(root|0)(:|$)/.test(user), `USER ${user}`);
  const uid = Number(user.split(':')[0]);
  t.ok(Number.isInteger(uid) && uid > 0, 'numeric, so the kubelet can check runAsNonRoot');
  t.equal(deployment.spec?.template.spec?.securityContext?.runAsUser, uid, 'the Deployment runs as the same uid');
  t.same(JSON.parse(args('CMD', final).at(-1) ?? 'null'), ['node', 'dist/main.js'], 'exec form, no npm');
  t.same(args('ENTRYPOINT', final), [], 'no ENTRYPOINT');
  const env = args('ENV', final).join(' ');
  t.match(env, /\bNODE_ENV=production\b/);
  t.match(env, /\bPORT=8080\b/);
  t.same(args('EXPOSE', final), ['8080']);
  t.equal(deployment.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort, 8080, 'the port the Deployment declares');
});

t.test('the only install script is the `node` dev dependency (so --ignore-scripts skips nothing the image needs)', async (t) => {
  const lock = readJson(
    'package-lock.json',
    Type.Object({ packages: Type.Record(Type.String(), Type.Object({ hasInstallScript: Type.Optional(Type.Boolean()), dev: Type.Optional(Type.Boolean()) })) }),
  );
  const scripted = Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript === true);
  t.same(
    scripted.map(([path, p]) => `${path}${p.dev === true ? ' (dev)' : ''}`),
    ['node_modules/node (dev)'],
    'a new package with an install script needs a look at the Dockerfile',
  );
});

t.test('.dockerignore keeps the build context small and free of local state', async (t) => {
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const entry of ['node_modules', 'dist', '.git', 'test', '.tap', 'coverage']) t.ok(ignored.includes(entry), entry);
  for (const needed of ['src', 'package.json', 'package-lock.json', 'tsconfig.json']) t.notOk(ignored.includes(needed), `${needed} is sent`);
});

/** The entries of .dockerignore that name local state rather than files of the repository. */
const LOCAL_STATE = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage', '*.log']);

t.test('.dockerignore names paths from the root of the context, as Docker matches them', async (t) => {
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const entry of ignored.filter((e) => !LOCAL_STATE.has(e))) t.ok(existsSync(entry), `${entry} is a path of the repository`);
  t.ok(ignored.includes('src/bench'), 'the benchmarks stay out of the image');
});

t.test('the image builds without src/bench: nothing else of src imports it', async (t) => {
  const importers = filesUnder('src')
    .filter((file) => file.endsWith('.ts') && !file.startsWith('src/bench/'))
    .filter((file) => /from '(\.\.?\/)+bench\//.test(readFileSync(file, 'utf8')));
  t.same(importers, []);
});

t.test('the runtime build holds the hook server and the certificate issuer, not the CLI nor its emulated cluster', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'runtime-'));
  try {
    execFileSync(join('node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.runtime.json', '--outDir', out], { stdio: 'pipe' });
    const files = filesUnder(out).map((f) => relative(out, f));
    for (const needed of ['main.js', 'cli/issue-rpc-cert.js', 'server.js']) t.ok(files.includes(needed), `${needed} is built`);
    t.same(
      files.filter((f) => f.startsWith('cli/') && !f.startsWith('cli/issue-rpc-cert.')),
      [],
      'nothing else of src/cli (the render command, the emulated cluster, the stand-ins)',
    );
    t.same(
      files.filter((f) => f.startsWith('bench/')),
      [],
    );
    t.ok(readFileSync('Dockerfile', 'utf8').includes('tsconfig.runtime.json'), 'the Dockerfile copies the runtime project');

    // Nothing imports a feature module: the hook server reads their directory when it starts.
    const features = readdirSync(join('src', 'render', 'ironic', 'features')).map((f) => f.replace(/\.ts$/, '.js'));
    t.same(
      features.filter((f) => !files.includes(`render/ironic/features/${f}`)),
      [],
      'every feature module is built',
    );
    symlinkSync(join(process.cwd(), 'node_modules'), join(out, 'node_modules'));
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(join(out, 'hooks', 'ironic-features.js')).href)}); console.log(m.IRONIC_FEATURES.map((f) => f.name).join(' '));`,
      ],
      { encoding: 'utf8' },
    );
    t.same(
      loaded.trim().split(' '),
      IRONIC_FEATURES.map((f) => f.name),
      'and the built hook server loads them all, in order',
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
