/**
 * `ironic-render migrate`: upstream objects in, this API's objects out; and the migrated objects, with the
 * Secrets they name, render to Ready through the emulated Metacontroller loop.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { runRender } from '../../src/cli/render.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { jsOf } from '../helpers/json.js';
import { objAt } from '../support/paths.js';
import { TEST_LEAF } from '../fixtures/tls.js';

type Run = { code: number; stdout: string; stderr: string };

const run = async (argv: string[], files: Record<string, string> = {}, stdin = ''): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  const code = await runRender(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdin: async () => stdin,
    readFile: async (path) => files[path] ?? readFileSync(path, 'utf8'),
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  });
  return { code, stdout, stderr };
};

const docs = (text: string): Record<string, unknown>[] => parseAllDocuments(text).map((d) => objAt(jsOf(d)));

t.test("migrates the design proposal's objects and prints notes on stderr", async (t) => {
  const r = await run(['migrate', '-f', 'test/fixtures/migrate/design-proposal.yaml']);
  t.equal(r.code, 0, r.stderr);
  t.same(
    docs(r.stdout).map((d) => `${String(d['apiVersion'])} ${String(d['kind'])}`),
    ['ironic.metal3.io/v1alpha1 IronicDatabase', 'ironic.metal3.io/v1alpha1 Ironic'],
  );
  t.match(r.stderr, /note: IronicDatabase test\/ironic: the data is not copied/);
});

t.test('reads a kubectl List from standard input', async (t) => {
  const r = await run(['migrate', '-f', '-'], {}, readFileSync('test/fixtures/migrate/kubectl-get.yaml', 'utf8'));
  t.equal(r.code, 0, r.stderr);
  t.notMatch(r.stdout, /managedFields|resourceVersion|uid:|status:|finalizers/, 'no server fields');
});

t.test('refuses a field without an equivalent, prints nothing, exits 1', async (t) => {
  const input = stringify({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'Ironic',
    metadata: { name: 'x' },
    spec: { networking: { ipAdress: '192.0.2.2' } },
  });
  const r = await run(['migrate', '-f', 'in.yaml'], { 'in.yaml': input });
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.match(r.stderr, /spec\.networking\.ipAdress has no equivalent/);
});

t.test('bad usage exits 2 with one line and where the options are; bad YAML exits 2 with what is wrong', async (t) => {
  const none = await run(['migrate']);
  t.equal(none.code, 2);
  t.equal(none.stderr, 'ironic-render migrate: give at least one -f FILE (or -f - for standard input)\nRun ironic-render migrate --help for the options.\n');
  const bogus = await run(['migrate', '--bogus']);
  t.equal(bogus.code, 2);
  t.equal(bogus.stderr, "ironic-render migrate: Unknown option '--bogus'\nRun ironic-render migrate --help for the options.\n");
  const yaml = await run(['migrate', '-f', 'bad.yaml'], { 'bad.yaml': 'a: [' });
  t.equal(yaml.code, 2);
  t.match(yaml.stderr, /^ironic-render migrate: bad\.yaml: not valid YAML: /);
  t.notMatch(yaml.stderr, /Usage:|--help/, 'not a usage error');
  const help = await run(['migrate', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: ironic-render migrate/);
});

t.test('npm run render migrate -f FILE (without --): says that npm kept -f', async (t) => {
  let stderr = '';
  const code = await runRender(['migrate', 'old.yaml'], {
    stdout: () => undefined,
    stderr: (text) => (stderr += text),
    stdin: async () => '',
    readFile: async () => '',
    env: { npm_lifecycle_event: 'render', npm_config_force: 'true' },
  });
  t.equal(code, 2);
  t.equal(
    stderr,
    "ironic-render migrate: npm kept -f (npm reads it as its own --force) for itself and passed on only the values (the options before -- are npm's): " +
      'write them after --, as in npm run render -- migrate -f FILE\nRun npm run render -- migrate --help for the options.\n',
  );
});

t.test('the migrated design proposal objects render to Ready', async (t) => {
  const migrated = await run(['migrate', '-f', 'test/fixtures/migrate/design-proposal.yaml']);
  t.equal(migrated.code, 0, migrated.stderr);
  const secrets = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ironic-tls', namespace: 'test' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ironic-service-x7k2p', namespace: 'test' }, stringData: { username: 'ironic', password: 'secret' } },
  ]
    .map((s) => stringify(s))
    .join('---\n');
  const r = await run(['-f', 'new.yaml', '-f', 'secrets.yaml', '--rounds', '10'], { 'new.yaml': migrated.stdout, 'secrets.yaml': secrets });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /# Ironic test\/ironic: Ready=True DeploymentAvailable/);
  t.match(r.stdout, /# IronicDatabase test\/ironic: Ready=True/);
});

t.test("upstream's own samples and a kubectl get of a recent release migrate and render to Ready", async (t) => {
  const samples = await run(['migrate', '-f', 'test/fixtures/migrate/upstream-samples.yaml']);
  t.equal(samples.code, 0, samples.stderr);
  const r = await run(['-f', 'new.yaml', '--rounds', '10'], { 'new.yaml': samples.stdout });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /# Ironic baremetal-operator-system\/ironic-sample: Ready=True DeploymentAvailable/);
  t.match(r.stdout, /# Ironic baremetal-operator-system\/ironic-with-networking: Ready=True DeploymentAvailable/);

  const listed = await run(['migrate', '-f', 'test/fixtures/migrate/kubectl-get.yaml']);
  t.equal(listed.code, 0, listed.stderr);
  const secrets = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ironic-tls', namespace: 'baremetal-operator-system' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ironic-service-abcde', namespace: 'baremetal-operator-system' },
      stringData: { username: 'ironic', password: 'secret' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ironic-db-user', namespace: 'baremetal-operator-system' },
      stringData: { username: 'ironic', password: 'secret' },
    },
  ]
    .map((s) => stringify(s))
    .join('---\n');
  const rendered = await run(['-f', 'new.yaml', '-f', 'secrets.yaml', '--rounds', '10'], { 'new.yaml': listed.stdout, 'secrets.yaml': secrets });
  t.equal(rendered.code, 0, rendered.stderr);
  t.match(rendered.stdout, /# Ironic baremetal-operator-system\/ironic: Ready=True DeploymentAvailable/);
});

t.test('a List that also holds Secrets and other kinds: the Ironic migrated, the others passed through', async (t) => {
  const owner = { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', name: 'ironic', uid: 'u-1', controller: true };
  const other = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-2' };
  const server = { uid: 'u-3', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z', managedFields: [{ manager: 'kubectl' }] };
  const list = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'ironic', namespace: 'm', ...server }, spec: {} },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'ironic-tls', namespace: 'm', labels: { a: 'b' }, ownerReferences: [owner, other], ...server },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': 'Q0VSVA==', 'tls.key': 'S0VZ' },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'm' }, data: { k: 'v' } },
      { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'host-0', namespace: 'm' }, spec: { online: true } },
    ],
  };
  const r = await run(['migrate', '-f', 'old.yaml'], { 'old.yaml': stringify(list) });
  t.equal(r.code, 0, r.stderr);
  const out = docs(r.stdout);
  t.same(
    out.map((d) => `${String(d['apiVersion'])} ${String(d['kind'])}`),
    ['ironic.metal3.io/v1alpha1 Ironic', 'v1 Secret', 'v1 ConfigMap', 'metal3.io/v1alpha1 BareMetalHost'],
    'every object, in the order given',
  );
  t.same(
    out[1],
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ironic-tls', namespace: 'm', labels: { a: 'b' }, ownerReferences: [other] },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'Q0VSVA==', 'tls.key': 'S0VZ' },
    },
    'the Secret as it was, without server fields and the owner reference to the old Ironic',
  );
  t.same(out.slice(2), list.items.slice(2), 'the others unchanged');
  t.match(r.stderr, /note: Secret m\/ironic-tls: passed through without its owner reference to Ironic ironic/);
  t.notMatch(r.stderr, /Secret m\/ironic-tls: .*data|Q0VSVA/, 'no Secret content on stderr');

  const secretsOnly = await run(['migrate', '-f', 'old.yaml'], { 'old.yaml': stringify({ ...list, items: list.items.slice(1) }) });
  t.equal(secretsOnly.code, 1, 'still nothing to migrate without an Ironic or IronicDatabase');
  const typo = await run(['migrate', '-f', 'old.yaml'], {
    'old.yaml': stringify({ ...list, items: [...list.items, { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironik', metadata: { name: 'x' } }] }),
  });
  t.equal(typo.code, 1, 'an unknown kind of ironic.metal3.io is refused, not passed through');
  t.match(typo.stderr, /Ironik x \(ironic\.metal3\.io\/v1alpha1\): only Ironic and IronicDatabase objects/);
  t.equal(typo.stdout, '');
});
