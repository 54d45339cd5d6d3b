/**
 * Every parent kind is everywhere, and nothing is there without a parent kind. For each descriptor of
 * src/kinds: its three hook routes answer, its metric label is recorded, its CRD file is in deploy/ and
 * is what the generator writes, a CompositeController of deploy/ declares it with exactly its child types
 * and strategies (overlay-only types as an overlay patch adds them), the render CLI reads and renders
 * it, and the emulator syncs it; a kind that Ironics use (`usedBy`) has its in-use admission policy, and
 * an example object of it is listed as used, kept while used and deleted after its Ironics. The other way
 * round: no hook route, CRD, CompositeController or in-use policy of deploy/ without a
 * descriptor. deploy/ is read recursively, wherever its files live.
 */
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseAllDocuments, stringify } from 'yaml';
import { API_GROUP, GROUP_VERSION } from '../../src/api/shared/common.js';
import { CONTROLLERS, controllerOf } from '../../src/cli/controllers.js';
import { readObjects } from '../../src/cli/documents.js';
import { runRender } from '../../src/cli/render.js';
import { crdFileName } from '../../src/crd/crd.js';
import { allCrds, crdOf } from '../../src/kinds/crds.js';
import { inUsePolicyFile, inUsePolicyName } from '../../src/kinds/in-use-policies.js';
import { crdFile } from '../../src/crd/yaml.js';
import { inSyncOrder, PARENT_KINDS, wordList, type ParentKind } from '../../src/kinds/index.js';
import { groupKeyOfType, type ResourceType } from '../../src/api/shared/resource-types.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { server } from '../server/support.js';
import { yamlFilesUnder } from '../support/controllers.js';
import { startEmulator } from '../support/emulator.js';
import { jsOf } from '../helpers/json.js';
import { listAt, listAtOrEmpty, objAtOrEmpty } from '../support/paths.js';

type Json = Record<string, unknown>;

const HOOKS = ['customize', 'sync', 'finalize'] as const;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

/** Every YAML document under a directory (mappings and sequences alike), with its file and text. */
const documentsUnder = (dir: string): { readonly file: string; readonly text: string; readonly value: unknown }[] =>
  yamlFilesUnder(dir).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return parseAllDocuments(text, { version: '1.1' }).map((document) => ({ file, text, value: jsOf(document) }));
  });

const DEPLOY = documentsUnder('deploy');

/** The CRDs of our group under deploy/. */
const deployedCrds = DEPLOY.filter(({ value }) => at(value, 'kind') === 'CustomResourceDefinition' && at(value, 'spec', 'group') === API_GROUP);

/** The CompositeControllers under deploy/. */
const deployedControllers = DEPLOY.filter(({ value }) => at(value, 'kind') === 'CompositeController');

/** The ValidatingAdmissionPolicies under deploy/ that refuse a DELETE of a resource of our group, with those resources. */
const deployedDeletePolicies = DEPLOY.filter(({ value }) => at(value, 'kind') === 'ValidatingAdmissionPolicy').map((document) => {
  const rules = (at(document.value, 'spec', 'matchConstraints', 'resourceRules') as unknown[] | undefined) ?? [];
  const matching = rules.filter(
    (rule) =>
      (at(rule, 'apiGroups') as unknown[] | undefined)?.includes(API_GROUP) === true &&
      (at(rule, 'operations') as unknown[] | undefined)?.includes('DELETE') === true,
  );
  return { ...document, resources: matching.flatMap((rule) => (at(rule, 'resources') as string[] | undefined) ?? []) };
});

/** The child types the JSON patches under deploy/ (the overlays) add to a CompositeController. */
const patchedChildResources = DEPLOY.flatMap(({ value }) =>
  (Array.isArray(value) ? listAt(value) : [])
    .filter((op) => typeof at(op, 'path') === 'string' && String(at(op, 'path')).startsWith('/spec/childResources'))
    .map((op) => at(op, 'value')),
);

/** A child type as `apiVersion resource strategy`, from the descriptor or from a manifest. */
const childLine = (type: Pick<ResourceType, 'apiVersion' | 'resource'>, strategy: string): string => `${type.apiVersion} ${type.resource} ${strategy}`;

const manifestChildLine = (rule: unknown): string => {
  const method: unknown = at(rule, 'updateStrategy', 'method') ?? 'OnDelete';
  return childLine({ apiVersion: String(at(rule, 'apiVersion')), resource: String(at(rule, 'resource')) }, String(method));
};

const parentResourceOf = (controller: unknown): string =>
  `${String(at(controller, 'spec', 'parentResource', 'apiVersion'))} ${String(at(controller, 'spec', 'parentResource', 'resource'))}`;

const isParentResource =
  (kind: ParentKind) =>
  (controller: unknown): boolean =>
    parentResourceOf(controller) === `${kind.apiVersion} ${kind.plural}`;

/** The examples, and for each kind the smallest example that has an object of it. */
const EXAMPLES = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => ({
    file: `examples/${file}`,
    objects: parseAllDocuments(readFileSync(`examples/${file}`, 'utf8'), { version: '1.1' })
      .map(jsOf)
      .filter(isRecord),
  }));

const exampleOf = (kind: ParentKind): { readonly file: string; readonly parent: Json } | undefined => {
  const candidates = EXAMPLES.filter((e) => e.objects.some((o) => o['kind'] === kind.kind && o['apiVersion'] === kind.apiVersion)).sort(
    (a, b) => a.objects.length - b.objects.length,
  );
  const example = candidates[0];
  const parent = example?.objects.find((o) => o['kind'] === kind.kind);
  return example === undefined || parent === undefined ? undefined : { file: example.file, parent };
};

/** The value of one sample line of the exposition text (0 when absent). */
const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

/** The POST routes of a server, as `/path`. */
const postRoutes = async (app: FastifyInstance): Promise<string[]> => {
  await app.ready();
  return app
    .printRoutes({ commonPrefix: false })
    .split('\n')
    .map((line) => /(\/\S*) \(([^)]*)\)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && (m[2] ?? '').split(', ').includes('POST'))
    .map((m) => m[1] ?? '');
};

const post = async (app: FastifyInstance, url: string, payload: Json): Promise<{ statusCode: number; body: string }> => {
  const response = await app.inject({ method: 'POST', url, payload });
  return { statusCode: response.statusCode, body: response.body };
};

t.test('the descriptors are consistent and distinct', async (t) => {
  t.not(PARENT_KINDS.length, 0);
  for (const kind of PARENT_KINDS) {
    t.equal(kind.apiVersion, GROUP_VERSION, `${kind.kind}: apiVersion`);
    t.equal(kind.groupKey, groupKeyOfType(kind), `${kind.kind}: group key`);
    t.ok(kind.childTypes.length > 0, `${kind.kind}: has child types`);
  }
  for (const field of ['kind', 'plural', 'hookPath', 'groupKey', 'controllerName', 'metricLabel', 'syncOrder'] as const) {
    const values = PARENT_KINDS.map((k) => k[field]);
    t.equal(new Set(values).size, values.length, `no two kinds share a ${field}`);
  }
  t.same(wordList(['a']), 'a');
  t.same(wordList(['a', 'b', 'c'], 'or'), 'a, b or c');
});

for (const kind of PARENT_KINDS) {
  t.test(`${kind.kind}: its three hook routes answer and its metric label is recorded`, async (t) => {
    const app = server();
    t.teardown(() => app.close());
    // The smallest parent: no spec (the CRD defaults it to {}), so the hooks answer whatever the spec needs.
    const parent = {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: { name: 'smallest', namespace: 'metal3', uid: '00000000-0000-4000-8000-000000000001', generation: 1 },
    };
    const deleting = { ...parent, metadata: { ...parent.metadata, deletionTimestamp: FIXED_NOW } };
    const payloads: Record<(typeof HOOKS)[number], Json> = {
      customize: { parent },
      sync: { parent, children: {}, related: {} },
      finalize: { parent: deleting, children: {}, related: {}, finalizing: true },
    };
    for (const hook of HOOKS) {
      const response = await post(app, `/${kind.hookPath}/${hook}`, payloads[hook]);
      t.equal(response.statusCode, 200, `POST /${kind.hookPath}/${hook} answers`);
      if (response.statusCode !== 200) t.comment(response.body.slice(0, 500));
    }
    const other = await post(app, `/${kind.hookPath}/sync`, { parent: { ...parent, kind: 'NotAParentKind' } });
    t.equal(other.statusCode, 400, 'a parent of another kind is refused');
    t.match(other.body, `this hook serves ${kind.kind}`);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    for (const hook of HOOKS)
      t.equal(
        sample(metrics, `ironic_hook_calls_total{hook="${hook}",kind="${kind.metricLabel}"}`),
        hook === 'sync' ? 2 : 1,
        `${hook} calls counted as ${kind.metricLabel}`,
      );
    t.match(
      (await app.inject({ method: 'GET', url: '/nope' })).json(),
      { message: `POST /${kind.hookPath}/{customize,sync,finalize}` },
      'the 404 lists its routes',
    );
  });

  t.test(`${kind.kind}: its CRD is in deploy/ and is what the generator writes`, async (t) => {
    const found = deployedCrds.filter(({ value }) => at(value, 'spec', 'names', 'kind') === kind.kind);
    t.equal(found.length, 1, `exactly one CRD of ${kind.kind} under deploy/ (${found.map((f) => f.file).join(', ')})`);
    const [crd] = found;
    if (crd === undefined) return;
    t.equal(basename(crd.file), crdFileName(kind.plural), 'in the file the generator writes');
    t.equal(crd.text, crdFile(crdOf(kind)), `${crd.file} is what \`npm run crds\` writes`);
    t.ok(
      allCrds().some((c) => c.file === crdFileName(kind.plural)),
      'the generator writes it',
    );
  });

  t.test(`${kind.kind}: a CompositeController of deploy/ declares it with exactly its child types`, async (t) => {
    const found = deployedControllers.filter(({ value }) => isParentResource(kind)(value));
    t.equal(found.length, 1, `exactly one CompositeController of ${kind.plural} under deploy/ (${found.map((f) => f.file).join(', ')})`);
    const controller = found[0]?.value;
    if (controller === undefined) return;
    t.equal(at(controller, 'metadata', 'name'), kind.controllerName, 'its name');
    // The hooks name the Service (`service` + `path`), so that an overlay's namespace moves them too.
    for (const hook of HOOKS) t.equal(at(controller, 'spec', 'hooks', hook, 'webhook', 'path'), `/${kind.hookPath}/${hook}`, `its ${hook} hook`);
    const overlay = kind.childTypes.filter((c) => c.overlay !== undefined).map((c) => childLine(c.type, c.strategy));
    const base = kind.childTypes.filter((c) => c.overlay === undefined).map((c) => childLine(c.type, c.strategy));
    const declared = listAtOrEmpty(controller, 'spec', 'childResources');
    t.same(
      declared.map(manifestChildLine).filter((line) => !overlay.includes(line)),
      base,
      'exactly the base child types, with their strategies, in order (overlay types allowed)',
    );
    const patched = patchedChildResources.map(manifestChildLine);
    for (const line of overlay) t.ok(patched.includes(line), `an overlay patch under deploy/ adds ${line}`);
  });

  t.test(`${kind.kind}: deploy/ has its in-use admission policy exactly when Ironics use it`, async (t) => {
    const found = deployedDeletePolicies.filter(({ resources }) => resources.includes(kind.plural));
    if (kind.usedBy === undefined) {
      t.same(
        found.map((f) => f.file),
        [],
        'no policy refuses deleting it: no Ironic names it',
      );
      return;
    }
    t.same(
      found.map(({ value }) => at(value, 'metadata', 'name')),
      [inUsePolicyName(kind)],
      `exactly one policy refuses deleting an ${kind.kind} in use`,
    );
    const [policy] = found;
    if (policy !== undefined) t.equal(policy.text, inUsePolicyFile({ ...kind, usedBy: kind.usedBy }), `${policy.file} is what \`npm run crds\` writes`);
  });

  t.test(`${kind.kind}: the CompositeController model has it`, async (t) => {
    t.same(
      CONTROLLERS.filter((c) => c.parentGroup === kind.groupKey),
      [controllerOf(kind)],
      'one controller of this parent',
    );
    t.same(
      controllerOf(kind).childTypes.map((c) => c.group),
      kind.childTypes.map((c) => groupKeyOfType(c.type)),
      'every child type, overlay ones included',
    );
  });
}

/** The checks that run an example of the kind: through the render CLI and the emulator. */
for (const kind of PARENT_KINDS) {
  const example = exampleOf(kind);

  t.test(`${kind.kind}: examples/ has an object of this kind`, async (t) => {
    t.ok(example, `an example under examples/ has an object of kind ${kind.kind}`);
  });
  if (example === undefined) continue;
  const parent = { ...example.parent, metadata: { namespace: 'metal3', ...objAtOrEmpty(example.parent, 'metadata') } };

  t.test(`${kind.kind}: the render CLI reads and renders it`, async (t) => {
    const read = readObjects([{ text: stringify(parent), source: 'parent' }], 'metal3');
    t.same([...read.errors, ...read.warnings], [], 'read without a warning');
    t.equal(read.objects.length, 1, 'kept');
    let stdout = '';
    let stderr = '';
    const code = await runRender(['-f', example.file, '-n', 'metal3'], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      stdin: async () => '',
      readFile: async (path) => readFileSync(path, 'utf8'),
      // As deploy/overlays/mariadb-operator sets it, for an example with a Galera database.
      env: readFileSync(example.file, 'utf8').includes('engine: MariaDBOperator') ? { MARIADB_OPERATOR: 'true' } : {},
      deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
    });
    t.equal(code, 0, `${example.file} renders`);
    if (code !== 0) t.comment(stderr);
    t.match(stdout, new RegExp(`^# ${kind.kind} \\S+/${String(at(parent, 'metadata', 'name'))}: Ready=`, 'm'), 'a section for it');
  });

  t.test(`${kind.kind}: the emulator syncs it`, async (t) => {
    const emulator = await startEmulator();
    t.teardown(() => emulator.close());
    const applied = emulator.apply(readFileSync(example.file, 'utf8')).filter((o) => o.kind === kind.kind);
    t.ok(applied.length > 0, `${example.file} applied`);
    const round = await emulator.round();
    for (const object of applied) {
      const outcome = round.syncs.find((s) => s.parent === `${kind.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`);
      t.match(outcome, { hook: 'sync' }, `${kind.kind} ${object.metadata.name} synced`);
      t.equal(outcome?.error, undefined, 'without error');
      t.ok(emulator.ready(kind.kind, object.metadata.name), 'and has a Ready condition');
    }
  });
}

/** For each kind that Ironics use: an example with an object of it and the Ironics that name it. */
for (const kind of PARENT_KINDS) {
  const { usedBy } = kind;
  if (usedBy === undefined) continue;
  const namesOf = (objects: readonly Json[], wanted: string, where: (o: Json) => boolean = () => true): string[] =>
    objects.filter((o) => o['kind'] === wanted && where(o)).map((o) => String(at(o, 'metadata', 'name')));
  const example = EXAMPLES.map((e) => {
    const [used] = namesOf(e.objects, kind.kind);
    return { file: e.file, used, users: used === undefined ? [] : namesOf(e.objects, 'Ironic', (o) => at(o, 'spec', usedBy.ironicField) === used).sort() };
  }).find((e) => e.users.length > 0);

  t.test(`${kind.kind}: an object Ironics use lists them, is kept while they use it, and goes once they are gone`, async (t) => {
    t.ok(example, `an example under examples/ has an ${kind.kind} and an Ironic whose spec.${usedBy.ironicField} names it`);
    if (example?.used === undefined) return;
    const emulator = await startEmulator();
    t.teardown(() => emulator.close());
    emulator.apply(readFileSync(example.file, 'utf8'));
    t.ok((await emulator.runUntilStable({ autoReady: true })).stable, `${example.file} settles`);
    t.same(emulator.status(kind.kind, example.used)['usedBy'], example.users, 'status.usedBy names its users');
    const children = emulator.children(kind.kind, example.used).map((c) => `${c.kind} ${c.metadata.name}`);
    emulator.delete(kind.kind, example.used);
    await emulator.round();
    await emulator.round();
    const conditions = at(emulator.status(kind.kind, example.used), 'conditions');
    const blocked = (Array.isArray(conditions) ? (conditions as unknown[]) : []).find((c) => at(c, 'type') === 'DeletionBlocked');
    t.match(blocked, { status: 'True', reason: 'InUse', message: `still used by: ${example.users.join(', ')}` }, 'DeletionBlocked says who blocks');
    t.same(
      emulator.children(kind.kind, example.used).map((c) => `${c.kind} ${c.metadata.name}`),
      children,
      'its children are kept',
    );
    for (const user of example.users) emulator.delete('Ironic', user);
    t.ok((await emulator.runUntilStable({ autoReady: true, maxRounds: 8 })).stable, 'settles once its users are deleted');
    t.equal(emulator.get(kind.kind, example.used), undefined, 'then it is deleted');
  });
}

t.test('the kinds sync in their order in a round', async (t) => {
  const order = inSyncOrder(PARENT_KINDS).map((k) => k.kind);
  const emulator = await startEmulator();
  t.teardown(() => emulator.close());
  for (const kind of [...PARENT_KINDS].reverse()) {
    const example = exampleOf(kind);
    if (example !== undefined)
      emulator.apply(
        stringify({ ...example.parent, metadata: { ...objAtOrEmpty(example.parent, 'metadata'), name: `order-${kind.hookPath}`, namespace: 'order' } }),
      );
  }
  const synced = (await emulator.round()).syncs.map((s) => s.parent.split(' ')[0] ?? '');
  t.same(synced, order, `synced in the order ${order.join(', ')}`);
});

t.test('no hook route without a descriptor', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const expected = PARENT_KINDS.flatMap((k) => HOOKS.map((hook) => `/${k.hookPath}/${hook}`));
  t.same((await postRoutes(app)).sort(), expected.sort(), "the POST routes are the descriptors' hooks");
});

t.test('no CRD of the group under deploy/ without a descriptor', async (t) => {
  const kinds = deployedCrds.map(
    ({ value, file }) => `${String(at(value, 'spec', 'names', 'kind'))} ${String(at(value, 'spec', 'names', 'plural'))} (${file})`,
  );
  t.ok(kinds.length > 0, 'deploy/ has CRDs');
  for (const line of kinds)
    t.ok(
      PARENT_KINDS.some((k) => line.startsWith(`${k.kind} ${k.plural} `)),
      `a descriptor for ${line}`,
    );
  t.same(
    allCrds().map((c) => c.file),
    PARENT_KINDS.map((k) => crdFileName(k.plural)),
    'the generator writes one CRD per descriptor',
  );
});

t.test('no CompositeController under deploy/ without a descriptor', async (t) => {
  t.ok(deployedControllers.length > 0, 'deploy/ has CompositeControllers');
  for (const { value, file } of deployedControllers) {
    const kind = PARENT_KINDS.find((k) => isParentResource(k)(value));
    t.ok(kind, `a descriptor for the parent ${parentResourceOf(value)} of ${file}`);
    t.equal(at(value, 'metadata', 'name'), kind?.controllerName, `${file}: named after it`);
  }
  t.equal(CONTROLLERS.length, PARENT_KINDS.length, 'one built-in controller per descriptor');
});

t.test('no in-use policy under deploy/ without a descriptor whose kind Ironics use', async (t) => {
  for (const { file, resources } of deployedDeletePolicies) {
    for (const resource of resources)
      t.ok(
        PARENT_KINDS.some((k) => k.plural === resource && k.usedBy !== undefined),
        `${file}: ${resource} is a kind that Ironics use`,
      );
  }
});

t.test('no child type added by an overlay patch without a descriptor declaring it', async (t) => {
  const declared = PARENT_KINDS.flatMap((k) => k.childTypes.filter((c) => c.overlay !== undefined).map((c) => childLine(c.type, c.strategy)));
  for (const line of patchedChildResources.map(manifestChildLine)) t.ok(declared.includes(line), `an overlay child type of a descriptor: ${line}`);
});
