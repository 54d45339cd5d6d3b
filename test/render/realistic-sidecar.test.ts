/**
 * A realistic sidecar, added as a contributor would: its own image, a spec field, a Secret it reads, its
 * resources and a child. In a copy of the repository the test writes the feature file
 * (test/fixtures/realistic-sidecar/audit-forwarder.ts.txt), the field and the resources row in the Ironic
 * schema; no other file of src changes (the hook server finds the feature by its file, and places it by its
 * order). The copy then type-checks, and the sidecar is found in the CRD its generator writes, in what
 * customize asks for, in the pod and the children sync returns (with the image of the spec, of the hook
 * server's setting or its default), in the Ready condition when its Secret is missing, and in the README's
 * configuration table check.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import type { SyncResponse } from '../../src/api/shared/hook.js';
import { validateK8s } from '../helpers/k8s.js';
import { childOf, containerOf, podOf, podTemplateOf } from '../helpers/render.js';
import type { Obj } from '../helpers/hooks.js';
import { filesUnder } from '../support/files.js';

const ROOT = resolve('.');
const FIXTURES = join(ROOT, 'test/fixtures/realistic-sidecar');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** Inserts text before (or after) the one occurrence of an anchor; fails when the anchor is not there once. */
const insertAt = (text: string, anchor: string, insert: string, where: 'before' | 'after'): string => {
  const at = text.indexOf(anchor);
  if (at < 0 || text.includes(anchor, at + 1)) throw new Error(`the anchor must occur once: ${anchor.trim()}`);
  const cut = where === 'before' ? at : at + anchor.length;
  return `${text.slice(0, cut)}${insert}${text.slice(cut)}`;
};

/** The edits a contributor makes, by file of src: the feature file and the schema (the hook server finds the feature by its file). */
const EDITS: Readonly<Record<string, (text: string) => string>> = {
  'src/render/ironic/features/audit-forwarder.ts': () => fixture('audit-forwarder.ts.txt'),
  'src/api/ironic/schema.ts': (text) =>
    [
      (s: string) => insertAt(s, '    images: Type.Optional(Images),\n', fixture('schema-field.txt'), 'before'),
      (s: string) =>
        insertAt(
          s,
          "    keepalived: Type.Optional(Type.String({ description: 'Keepalived image.' })),\n",
          "    auditForwarder: Type.Optional(Type.String({ description: 'Image of the audit-forwarder sidecar.' })),\n",
          'after',
        ),
      (s: string) => insertAt(s, "  'ironic-networking': { cpu: '50m', memory: '128Mi' },\n", "  'audit-forwarder': { cpu: '5m', memory: '32Mi' },\n", 'after'),
    ].reduce((s, edit) => edit(s), text),
};

/** Every file under a directory, relative to it. */
const filesIn = (dir: string): string[] => filesUnder(dir).map((file) => relative(dir, file));

/** A copy of the repository's tracked files, sharing node_modules. */
const copyRepository = (): string => {
  const copy = mkdtempSync(join(tmpdir(), 'sidecar-'));
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked.filter((f) => existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(copy, file));
  }
  // Files of this working tree not committed yet (a change under way) are copied too.
  for (const file of filesIn(join(ROOT, 'src'))) copyFileSync(join(ROOT, 'src', file), join(copy, 'src', file));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  return copy;
};

/** Runs a TypeScript file of the copy with the tests' loader, and returns what it prints. */
const runTs = (copy: string, file: string, ...args: string[]): string =>
  execFileSync(process.execPath, ['--import=./scripts/ts-loader.mjs', file, ...args], { cwd: copy, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

type ProbeOutput = {
  readonly customize: readonly { readonly resource: string; readonly names?: readonly string[] }[];
  readonly synced: SyncResponse;
  readonly setting: SyncResponse;
  readonly overridden: SyncResponse;
  readonly missing: SyncResponse;
  readonly readme: readonly string[];
};

const probe = (copy: string): ProbeOutput => {
  writeFileSync(join(copy, 'probe.ts'), fixture('probe.ts.txt'));
  return JSON.parse(runTs(copy, 'probe.ts')) as ProbeOutput;
};

const readyOf = (response: SyncResponse): Obj | undefined => (response.status['conditions'] as readonly Obj[] | undefined)?.find((c) => c['type'] === 'Ready');

const imageOf = (response: SyncResponse): string | undefined => containerOf(podOf(response.children), 'audit-forwarder')?.image;

t.test('a sidecar with its own image, a spec field, a Secret it reads and resources is its feature file and its schema field', async (t) => {
  const copy = copyRepository();
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  for (const [file, edit] of Object.entries(EDITS)) {
    const path = join(copy, file);
    let before = '';
    try {
      before = readFileSync(path, 'utf8');
    } catch {
      // A new file.
    }
    writeFileSync(path, edit(before));
  }

  const changed = filesIn(join(copy, 'src')).filter((file) => {
    try {
      return readFileSync(join(copy, 'src', file), 'utf8') !== readFileSync(join(ROOT, 'src', file), 'utf8');
    } catch {
      return true;
    }
  });
  t.same(changed.map((f) => join('src', f)).sort(), Object.keys(EDITS).sort(), 'no other file of src changes');

  // Strict TypeScript, as the build: the feature needs nothing the two files do not give it.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit', '--incremental', 'false'], {
    cwd: copy,
    encoding: 'utf8',
  });
  t.pass('the copy type-checks');

  runTs(copy, 'src/cli/gen-crds.ts', join(copy, 'generated'));
  const crd = parse(readFileSync(join(copy, 'generated/crds/ironic.metal3.io_ironics.yaml'), 'utf8')) as Obj;
  const spec = (((((crd['spec'] as Obj)['versions'] as Obj[])[0]?.['schema'] as Obj)['openAPIV3Schema'] as Obj)['properties'] as Obj)['spec'] as Obj;
  const properties = spec['properties'] as Record<string, Obj>;
  t.match(
    properties['auditForwarder'],
    { type: 'object', properties: { enabled: { type: 'boolean' }, tokenRef: { type: 'object' } } },
    'the CRD has the field',
  );
  t.match(properties['images'], { properties: { auditForwarder: { type: 'string' } } }, 'and its image in spec.images');
  t.match(String(properties['resources']?.['description']), /audit-forwarder \(5m, 32Mi\)/, 'and its default requests in spec.resources');

  const out = probe(copy);
  const secrets = out.customize.find((r) => r.resource === 'secrets')?.names ?? [];
  const configMaps = out.customize.find((r) => r.resource === 'configmaps')?.names ?? [];
  t.ok(secrets.includes('audit-token'), `customize asks for the Secret it reads: ${secrets.join(', ')}`);
  t.ok(configMaps.includes('ironic-audit-forwarder'), `and for the name of its child, to see whether another object has it: ${configMaps.join(', ')}`);

  t.match(readyOf(out.synced), { status: 'False', reason: 'DeploymentInProgress' }, 'the sync renders');
  for (const child of out.synced.children) validateK8s(child as Obj);
  const container = containerOf(podOf(out.synced.children), 'audit-forwarder');
  t.match(container, {
    image: 'quay.io/example/audit-forwarder:1.0',
    env: [{ name: 'AUDIT_TOKEN', valueFrom: { secretKeyRef: { name: 'audit-token', key: 'token' } } }],
    resources: { requests: { cpu: '5m', memory: '32Mi' } },
  });
  t.same(
    podOf(out.synced.children).containers.map((c) => c.name),
    ['ironic', 'httpd', 'ramdisk-logs', 'audit-forwarder'],
    'in the place its order gives it',
  );
  t.same(
    podOf(out.synced.children).volumes.find((v) => v.name === 'audit-forwarder-config'),
    { name: 'audit-forwarder-config', configMap: { name: 'ironic-audit-forwarder' } },
    'its volume',
  );
  const template = podTemplateOf(childOf(out.synced.children, 'Deployment'));
  t.match(template?.metadata?.annotations?.['ironic.metal3.io/audit-token'], /^[0-9a-f]{16,}$/, 'a new token rolls the pods');
  t.notMatch(JSON.stringify(out.synced), /s3cret|czNjcmV0/, 'the token itself is in no child');
  const config = childOf(out.synced.children, 'ConfigMap', 'ironic-audit-forwarder');
  t.same(config?.data, { 'forwarder.conf': 'destination = syslog.example:514\n' }, 'its child');

  t.equal(imageOf(out.setting), 'registry.example/audit-forwarder:2.0', "the hook server's AUDIT_FORWARDER_IMAGE");
  t.equal(imageOf(out.overridden), 'registry.example/audit-forwarder@sha256:0123', 'spec.images.auditForwarder wins');

  t.match(readyOf(out.missing), {
    status: 'False',
    message: /Secret metal3\/audit-token named in spec\.auditForwarder\.tokenRef\.name was not found: create it with the token under the key token/,
  });
  t.same(out.missing.children, [], 'nothing is rendered without the Secret it reads');

  t.same(out.readme, ['no row of its own for AUDIT_FORWARDER_IMAGE'], "the README's configuration table is checked for its image");
  const readme = join(copy, 'README.md');
  writeFileSync(
    readme,
    insertAt(
      readFileSync(readme, 'utf8'),
      '| `MARIADB_IMAGE`',
      '| `AUDIT_FORWARDER_IMAGE` | `quay.io/example/audit-forwarder:1.0` | default image of the `audit-forwarder` container (`spec.images.auditForwarder`) |\n',
      'before',
    ),
  );
  t.same(probe(copy).readme, [], 'and a row of its own satisfies the check');
  t.ok(relative(ROOT, copy).startsWith('..'), 'the repository itself is untouched');
});
