/**
 * The import graph of src: no cycle anywhere, and the render tiers point one way (the model never imports
 * a renderer, renderers never import hooks or the server). Imports are read with TypeScript's own
 * pre-processor, so type-only imports count too.
 */
import t from 'tap';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SRC = resolve('src');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });

/** Local imports of a file, as absolute .ts paths. */
const importsOf = (file: string): string[] =>
  ts
    .preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));

export type Graph = ReadonlyMap<string, readonly string[]>;

const graphOf = (files: readonly string[]): Graph => new Map(files.map((f) => [f, importsOf(f)]));

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export const cyclesOf = (graph: Graph): string[][] => {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0));
      }
    }
    if (low.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return cycles;
};

const graph = graphOf(sourceFiles(SRC));
const name = (file: string): string => relative(SRC, file);

t.test('the cycle finder finds cycles (so its silence means something)', async (t) => {
  t.same(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  );
  t.same(cyclesOf(new Map([['a', ['a']]])), [['a']], 'a file importing itself');
  t.same(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});

t.test('every relative import of src resolves to a file of src', async (t) => {
  const unresolved = [...graph].flatMap(([file, imports]) => imports.filter((i) => !graph.has(i)).map((i) => `${name(file)} -> ${relative(SRC, i)}`));
  t.same(unresolved, []);
});

t.test('src has no import cycle', async (t) => {
  t.same(
    cyclesOf(graph).map((c) => c.map(name)),
    [],
  );
});

/** Which folders a folder of src may import from: the tiers point down. */
const FORBIDDEN: readonly { readonly from: string; readonly to: readonly string[] }[] = [
  { from: 'api/', to: ['render/', 'hooks/', 'server/', 'server.ts', 'cli/', 'kinds/', 'crd/', 'crypto/', 'config.ts', 'bench/', 'main.ts'] },
  // The parts every kind's API shares import no kind's folder, and no kind's API imports another's.
  { from: 'api/shared/', to: ['api/ironic/', 'api/ironic-database/', 'api/ironic-image-cache/'] },
  { from: 'api/ironic/', to: ['api/ironic-database/', 'api/ironic-image-cache/'] },
  { from: 'api/ironic-database/', to: ['api/ironic/', 'api/ironic-image-cache/'] },
  { from: 'api/ironic-image-cache/', to: ['api/ironic/', 'api/ironic-database/'] },
  // The kind descriptors: the API, the CRD helpers and the hooks they name; never the server, the CLI or the benchmarks.
  { from: 'kinds/', to: ['server/', 'server.ts', 'cli/', 'bench/', 'main.ts'] },
  // The server reaches the renderers through the hooks only; it never loads the CLI or the benchmarks.
  { from: 'server/', to: ['render/', 'cli/', 'bench/', 'main.ts', 'crd/', 'crypto/'] },
  { from: 'server.ts', to: ['render/', 'cli/', 'bench/', 'main.ts', 'crd/', 'crypto/'] },
  // The program: its settings and the server.
  { from: 'main.ts', to: ['api/', 'render/', 'hooks/', 'cli/', 'kinds/', 'crd/', 'crypto/', 'bench/', 'server/'] },
  // The CLI and the benchmarks stand beside each other: neither loads the other.
  { from: 'cli/', to: ['bench/', 'main.ts'] },
  { from: 'bench/', to: ['cli/', 'main.ts'] },
  { from: 'render/', to: ['hooks/', 'server/', 'server.ts', 'cli/', 'kinds/', 'crd/', 'bench/', 'main.ts'] },
  { from: 'hooks/', to: ['server/', 'server.ts', 'cli/', 'kinds/', 'bench/', 'main.ts'] },
  // The CRD helpers are below the kind descriptors (which use them); the generated set of CRDs lives with the kinds.
  { from: 'crd/', to: ['render/', 'hooks/', 'server/', 'cli/', 'kinds/'] },
  { from: 'crypto/', to: ['render/', 'hooks/', 'server/', 'cli/', 'kinds/', 'crd/'] },
  // The hook server's settings, read once at start: the model and the render settings only.
  { from: 'config.ts', to: ['hooks/', 'server/', 'cli/', 'kinds/', 'crd/'] },
  { from: 'render/shared/', to: ['render/ironic/', 'render/database/', 'render/image-cache/'] },
  // One folder per kind: a kind's renderers never import another kind's (what they share is in render/ or render/shared/).
  { from: 'render/ironic/', to: ['render/database/', 'render/image-cache/'] },
  { from: 'render/database/', to: ['render/ironic/', 'render/image-cache/'] },
  { from: 'render/image-cache/', to: ['render/ironic/', 'render/database/'] },
];

t.test('the modules directly in render/ are the floor of every kind: they import no folder of a kind', async (t) => {
  const floor = (file: string): boolean => /^render\/[^/]+\.ts$/.test(name(file));
  const violations = [...graph].flatMap(([file, imports]) =>
    floor(file) ? imports.filter((i) => /^render\/[^/]+\//.test(name(i))).map((i) => `${name(file)} -> ${name(i)}`) : [],
  );
  t.same(violations, []);
});

t.test('the tiers point one way: model, renderers and plans, hooks, then server and CLI', async (t) => {
  const violations = [...graph].flatMap(([file, imports]) => {
    const forbidden = FORBIDDEN.filter((r) => name(file).startsWith(r.from)).flatMap((r) => r.to);
    return imports.filter((i) => forbidden.some((to) => name(i).startsWith(to))).map((i) => `${name(file)} -> ${name(i)}`);
  });
  t.same(violations, []);
});

/** The render modules that may read the API modules: plans parse the spec; the status and hand-off modules, and the feature record (what a feature adds to the status), write parts of the status type. */
const READS_API = /^render\/.*\/(plan|status|client-handoff|feature)\.ts$/;

t.test('renderers read the parsed model, never the raw spec types or the validators', async (t) => {
  const raw = [
    'api/ironic/schema.ts',
    'api/ironic-database/schema.ts',
    'api/ironic-image-cache/schema.ts',
    'api/ironic/validate.ts',
    'api/ironic-database/validate.ts',
    'api/ironic-image-cache/validate.ts',
    'api/ironic/validate-overrides.ts',
  ];
  const violations = [...graph].flatMap(([file, imports]) =>
    name(file).startsWith('render/') && !READS_API.test(name(file))
      ? imports.filter((i) => raw.includes(name(i))).map((i) => `${name(file)} -> ${name(i)}`)
      : [],
  );
  t.same(violations, []);
});

/**
 * Inside an Ironic: the parts every feature may use (the floor), the features (one file each, never importing
 * another feature), and the assemblers that fold over the list.
 */
const IRONIC = 'render/ironic/';
const FEATURES = `${IRONIC}features/`;
const ASSEMBLERS = ['feature-list.ts', 'pod.ts', 'workload.ts', 'children.ts', 'upgrade.ts', 'status.ts', 'retire.ts'].map((f) => `${IRONIC}${f}`);
/** Above the assemblers: the plan folds over the features' members it is given, and imports no feature (nor the list of them) itself. */
const ORCHESTRATORS = ['plan.ts'].map((f) => `${IRONIC}${f}`);

/** Imports that break the tiers inside render/ironic, as `from -> to`. */
export const ironicTierViolations = (edges: Graph, nameOf: (file: string) => string): string[] =>
  [...edges].flatMap(([file, imports]) => {
    const from = nameOf(file);
    if (!from.startsWith(IRONIC)) return [];
    const isFeature = from.startsWith(FEATURES);
    const isOrchestrator = ORCHESTRATORS.includes(from);
    const isFloor = !isFeature && !isOrchestrator && !ASSEMBLERS.includes(from);
    const above = (to: string): boolean => ASSEMBLERS.includes(to) || ORCHESTRATORS.includes(to);
    return imports
      .map(nameOf)
      .filter(
        (to) =>
          ((isFeature || isFloor) && (above(to) || (to.startsWith(FEATURES) && to !== from))) ||
          (isOrchestrator && (to.startsWith(FEATURES) || to === `${IRONIC}feature-list.ts`)) ||
          (ASSEMBLERS.includes(from) && ORCHESTRATORS.includes(to)),
      )
      .map((to) => `${from} -> ${to}`);
  });

t.test(
  'the tier rule catches a feature importing another feature or an assembler, and the plan importing a feature (so its silence means something)',
  async (t) => {
    const id = (f: string): string => f;
    const edges: Graph = new Map([
      [`${FEATURES}a.ts`, [`${FEATURES}b.ts`, `${IRONIC}facts.ts`]],
      [`${FEATURES}b.ts`, [`${IRONIC}pod.ts`]],
      [`${IRONIC}facts.ts`, [`${FEATURES}a.ts`]],
      [`${IRONIC}pod.ts`, [`${FEATURES}a.ts`, `${IRONIC}facts.ts`, `${IRONIC}plan.ts`]],
      [`${IRONIC}plan.ts`, [`${IRONIC}pod.ts`, `${FEATURES}a.ts`, `${IRONIC}feature-list.ts`]],
    ]);
    t.same(ironicTierViolations(edges, id), [
      `${FEATURES}a.ts -> ${FEATURES}b.ts`,
      `${FEATURES}b.ts -> ${IRONIC}pod.ts`,
      `${IRONIC}facts.ts -> ${FEATURES}a.ts`,
      `${IRONIC}pod.ts -> ${IRONIC}plan.ts`,
      `${IRONIC}plan.ts -> ${FEATURES}a.ts`,
      `${IRONIC}plan.ts -> ${IRONIC}feature-list.ts`,
    ]);
  },
);

t.test('features import neither another feature nor an assembler; the floor below them imports neither', async (t) => {
  t.same(ironicTierViolations(graph, name), []);
});
