/**
 * `ironic-render`, run in process with injected streams and files.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { EXIT, runRender, USAGE, type RenderIO } from '../../src/cli/render.js';
import { PARENT_KINDS, wordList } from '../../src/kinds/index.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';

/** Every parent kind, as the CLI's messages name them. */
const PARENT_NAMES = PARENT_KINDS.map((k) => k.kind);

type Run = { code: number; stdout: string; stderr: string };
type Obj = Record<string, unknown>;

const run = async (argv: string[], files: Record<string, string> = {}, stdin = '', env: Record<string, string> = {}): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  const io: RenderIO = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdin: async () => stdin,
    readFile: async (path) => {
      const text = files[path] ?? (path.startsWith('examples/') ? readFileSync(path, 'utf8') : undefined);
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
    env,
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  };
  const code = await runRender(argv, io);
  return { code, stdout, stderr };
};

const documents = (text: string): Obj[] =>
  parseAllDocuments(text, { version: '1.1' })
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);

const names = (docs: Obj[]): string[] => docs.map((d) => `${String(d['kind'])} ${String((d['metadata'] as Obj)['name'])}`);

const ironic = (spec: Obj, metadata: Obj = { name: 'ironic', namespace: 'metal3' }): string =>
  JSON.stringify({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata, spec });

const NETWORKING = { interface: 'eth1', ipAddress: '192.0.2.2' };

t.test('renders the minimal example as YAML kubectl can apply, the status as comments', async (t) => {
  const r = await run(['-f', 'examples/minimal.yaml']);
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  const docs = documents(r.stdout);
  t.same(
    names(docs).map((n) => n.replace(/-[0-9a-f]{10}$/, '-<hash>')),
    ['Secret ironic-api-credentials', 'Secret ironic-htpasswd-<hash>', 'Secret ironic-clouds', 'Service ironic', 'Deployment ironic-service'],
  );
  for (const doc of docs) {
    const metadata = doc['metadata'] as { namespace?: string; labels?: Record<string, string>; ownerReferences?: unknown };
    t.equal(metadata.namespace, 'baremetal-operator-system', 'namespace set');
    t.notOk(metadata.labels?.['controller-uid'], 'no Metacontroller label');
    t.notOk(metadata.ownerReferences, 'no owner');
    t.doesNotThrow(() => validateK8s(doc), `${String(doc['kind'])} is valid`);
  }
  t.match(
    r.stdout,
    /^# Ironic baremetal-operator-system\/ironic: Ready=False DeploymentInProgress: the Ironic deployment is being created\n# status:\n# {3}conditions:/,
  );
  t.match(r.stdout, /# {3}requestedVersion: "38\.0"/);
});

t.test('the output is deterministic with deterministic secrets and clock', async (t) => {
  const a = await run(['-f', 'examples/tls-credentials.yaml']);
  const b = await run(['-f', 'examples/tls-credentials.yaml']);
  t.equal(a.code, 0);
  t.equal(a.stdout, b.stdout);
  t.match(a.stdout, /ironic\.metal3\.io\/tls-secret-version/, 'the TLS Secret (given as stringData) is used');
});

t.test('reads standard input, defaults the namespace, ignores other kinds with a warning', async (t) => {
  const input = `${ironic({ networking: NETWORKING }, { name: 'x' })}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n---\n`;
  const r = await run(['-f', '-'], {}, input);
  t.equal(r.code, 0);
  t.ok(
    r.stderr.includes(
      `warning: standard input, document 2: ignoring Pod default/p (v1): only ${PARENT_NAMES.join(', ')}, Secret and ConfigMap objects are read`,
    ),
    r.stderr,
  );
  t.ok(documents(r.stdout).every((d) => (d['metadata'] as Obj)['namespace'] === 'default'));
  const other = await run(['-f', '-', '--namespace', 'metal3'], {}, input);
  t.ok(documents(other.stdout).every((d) => (d['metadata'] as Obj)['namespace'] === 'metal3'));
});

t.test('several files, a List, and a later duplicate', async (t) => {
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(ironic({ networking: NETWORKING }, { name: 'a', namespace: 'm' }))] });
  const r = await run(['-f', 'one.yaml', '--filename=two.yaml'], {
    'one.yaml': list,
    'two.yaml': `${ironic({ networking: NETWORKING }, { name: 'a', namespace: 'm' })}\n---\n${ironic({ networking: NETWORKING }, { name: 'b', namespace: 'm' })}`,
  });
  t.equal(r.code, 0);
  t.match(r.stderr, /Ironic m\/a appears again; the later one is used/);
  t.match(r.stdout, /# Ironic m\/a: /);
  t.match(r.stdout, /# Ironic m\/b: /);
});

const refusals = [
  {
    scenario: 'an invalid spec',
    spec: { networking: { ...NETWORKING, ipAddress: '192.0.2.300' } },
    reason: /InvalidSpec: the spec is invalid: spec\.networking\.ipAddress/,
  },
  {
    scenario: 'a missing Secret',
    spec: { networking: NETWORKING, tls: { certificateName: 'tls' } },
    reason: /MissingReference: Secret metal3\/tls named in spec\.tls\.certificateName was not found/,
  },
  {
    scenario: 'an unusable Secret',
    spec: { networking: NETWORKING, tls: { certificateName: 'tls' } },
    extra: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: 'metal3' }, stringData: { 'tls.crt': 'x' } }),
    reason: /InvalidReference: Secret metal3\/tls has no tls\.key/,
  },
] as const;

for (const c of refusals) {
  t.test(`${c.scenario}: the problem on stderr, nothing on stdout, exit 1`, async (t) => {
    const text = 'extra' in c ? `${ironic(c.spec)}\n---\n${c.extra}` : ironic(c.spec);
    const r = await run(['-f', 'in.yaml'], { 'in.yaml': text });
    t.equal(r.code, 1);
    t.equal(r.stdout, '');
    t.match(r.stderr, new RegExp(`^ironic-render: Ironic metal3/ironic: ${c.reason.source}`));
  });
}

const DATABASE = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };
/** An Ironic with a database, as `kubectl get -o yaml` prints it once 38.0 is installed. */
const installed = (version: string, name = 'ironic'): string =>
  JSON.stringify({
    ...(JSON.parse(ironic({ networking: NETWORKING, database: DATABASE, version }, { name, namespace: 'metal3' })) as Obj),
    status: { requestedVersion: '38.0', installedVersion: '38.0' },
  });

const notCarriedOut = [
  {
    scenario: 'a downgrade of the installed version',
    text: installed('37.0'),
    reason: /^ironic-render: Ironic metal3\/ironic: DeploymentFailed: Ironic 38\.0 is installed and cannot be downgraded to 37\.0 with a database/,
  },
  {
    scenario: 'a Secret of the input in the way of a child',
    text: `${ironic({ networking: NETWORKING })}\n---\n${JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ironic-clouds', namespace: 'metal3' } })}`,
    reason: /^ironic-render: Ironic metal3\/ironic: ResourceConflict: Secret metal3\/ironic-clouds already exists and does not belong to this Ironic/,
  },
] as const;

for (const c of notCarriedOut) {
  t.test(`${c.scenario}: a valid object the hooks do not carry out, exit 3 (EXIT.notCarriedOut), nothing on stdout`, async (t) => {
    const r = await run(['-f', 'in.yaml'], { 'in.yaml': c.text });
    t.equal(r.code, EXIT.notCarriedOut);
    t.equal(r.code, 3, 'a status of its own: neither 1 (refused as it is) nor 2 (usage)');
    t.equal(r.stdout, '');
    t.match(r.stderr, c.reason);
  });
}

t.test('an object refused as it is beside one not carried out: exit 1, both reported', async (t) => {
  const invalid = ironic({ networking: { ...NETWORKING, ipAddress: '192.0.2.300' } }, { name: 'other', namespace: 'metal3' });
  const r = await run(['-f', 'in.yaml'], { 'in.yaml': `${installed('37.0')}\n---\n${invalid}` });
  t.equal(r.code, EXIT.refused);
  t.match(r.stderr, /Ironic metal3\/ironic: DeploymentFailed: /);
  t.match(r.stderr, /Ironic metal3\/other: InvalidSpec: /);
});

t.test('the exit statuses are documented in --help', async (t) => {
  const documented = USAGE.slice(USAGE.indexOf('Exit status: '));
  for (const code of Object.values(EXIT)) t.match(documented, new RegExp(`(: |; |\\n)${code} [a-z]`), `exit ${code}`);
});

t.test('--rounds replays the loop until the managed database and Ironic are ready', async (t) => {
  const r = await run(['-f', 'examples/managed-database.yaml', '--rounds', '8']);
  t.equal(r.code, 0);
  t.match(
    r.stdout,
    /^# round 1: IronicDatabase baremetal-operator-system\/ironic-db: 4 created, 0 updated, 0 deleted, status written; Ready=False DatabaseInProgress/,
  );
  t.match(
    r.stdout,
    /# round 2: Ironic baremetal-operator-system\/ironic: 5 created, 0 updated, 0 deleted, status written; Ready=False DeploymentInProgress: the pre-upgrade job/,
  );
  t.match(r.stdout, /# round 6: Ironic baremetal-operator-system\/ironic: 0 created, 0 updated, 2 deleted; Ready=True/);
  t.match(r.stdout, /# round 8: Ironic baremetal-operator-system\/ironic: no writes; Ready=True DeploymentAvailable/);
  t.match(r.stdout, /# Ironic baremetal-operator-system\/ironic: Ready=True DeploymentAvailable/);
  t.match(r.stdout, /# {3}installedVersion: "38\.0"/);
  const docs = documents(r.stdout);
  t.notOk(
    docs.some((d) => d['kind'] === 'Job'),
    'the upgrade Jobs are gone at the end',
  );
  t.ok(docs.some((d) => d['kind'] === 'StatefulSet') && docs.some((d) => d['kind'] === 'Deployment'));
});

t.test('--rounds with MARIADB_OPERATOR: the HA example converges on a Galera cluster (mariadb-operator played by the render)', async (t) => {
  const r = await run(['-f', 'examples/ha.yaml', '--rounds', '8'], {}, '', { MARIADB_OPERATOR: 'true' });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /# IronicDatabase baremetal-operator-system\/ironic-db: Ready=True DatabaseAvailable/);
  t.match(r.stdout, /# Ironic baremetal-operator-system\/ironic: Ready=True DeploymentAvailable/);
  const kinds = documents(r.stdout).map((d) => d['kind']);
  t.ok(kinds.includes('MariaDB') && !kinds.includes('StatefulSet'), 'a MariaDB, no StatefulSet');
});

t.test('without --rounds, a parent that has nothing yet gets a hint', async (t) => {
  const r = await run(['-f', 'examples/managed-database.yaml']);
  t.equal(r.code, 0);
  t.match(
    r.stderr,
    /note: Ironic baremetal-operator-system\/ironic has no children yet \(waiting for IronicDatabase baremetal-operator-system\/ironic-db to become ready/,
  );
});

const usage = [
  { argv: [], message: /give at least one file with -f/ },
  { argv: ['-f', 'a', 'b'], message: /Unexpected argument 'b'/ },
  { argv: ['--bogus'], message: /Unknown option '--bogus'/ },
  { argv: ['-f', 'a', '--rounds', '0'], message: /--rounds must be a whole number from 1 to 100, got "0"/ },
  { argv: ['-f', 'a', '--rounds', '2.5'], message: /--rounds must be a whole number/ },
  { argv: ['-f', '-', '-f', '-'], message: /standard input \(-f -\) can be read only once/ },
  { argv: ['-f', 'a', '-n', 'Not_A_Namespace'], message: /not a valid namespace name/ },
] as const;

for (const c of usage) {
  t.test(`usage: ${c.argv.join(' ') || '(nothing)'}: one line, and where the options are`, async (t) => {
    const r = await run([...c.argv]);
    t.equal(r.code, 2);
    t.equal(r.stdout, '');
    const [problem, pointer, ...rest] = r.stderr.split('\n');
    t.match(problem, /^ironic-render: /);
    t.match(problem, c.message);
    t.equal(pointer, 'Run ironic-render --help for the options.');
    t.same(rest, [''], 'nothing else: not the whole help');
  });
}

const npmRuns = [
  {
    scenario: 'npm run render -f FILE',
    argv: ['examples/minimal.yaml'],
    env: { npm_config_force: 'true' },
    problem:
      "npm kept -f (npm reads it as its own --force) for itself and passed on only the values (the options before -- are npm's): write them after --, as in npm run render -- -f FILE",
  },
  {
    scenario: 'npm run render --filename FILE --namespace NS --rounds 3 --advance 1h',
    argv: ['a.yaml', 'ns', '3', '1h'],
    env: { npm_config_filename: 'true', npm_config_namespace: 'true', npm_config_rounds: 'true', npm_config_advance: 'true' },
    problem: /^npm kept --filename, --namespace, --rounds, --advance for itself/,
  },
  { scenario: 'npm run render (nothing)', argv: [], env: {}, problem: /^give at least one file with -f/ },
] as const;

for (const c of npmRuns) {
  t.test(`${c.scenario}: says what npm kept, and the npm command of the help`, async (t) => {
    const r = await run([...c.argv], {}, '', { npm_lifecycle_event: 'render', npm_config_cache: '/root/.npm', ...c.env });
    t.equal(r.code, 2);
    const [problem = '', pointer, ...rest] = r.stderr.split('\n');
    t.match(problem.replace(/^ironic-render: /, ''), c.problem);
    t.equal(pointer, 'Run npm run render -- --help for the options.');
    t.same(rest, ['']);
  });
}

t.test('--help prints the usage on stdout', async (t) => {
  const r = await run(['--help']);
  t.equal(r.code, 0);
  t.equal(r.stdout, USAGE);
});

t.test('unreadable input exits 2', async (t) => {
  const missing = await run(['-f', 'nope.yaml']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read nope.yaml: ENOENT/);
  const broken = await run(['-f', 'bad.yaml'], { 'bad.yaml': 'kind: [unclosed' });
  t.equal(broken.code, 2);
  t.match(broken.stderr, /bad\.yaml, document 1: /);
  const shapeless = await run(['-f', 'x.yaml'], { 'x.yaml': 'just a string' });
  t.equal(shapeless.code, 2);
  t.match(shapeless.stderr, /x\.yaml, document 1 is not a Kubernetes object/);
  const none = await run(['-f', 's.yaml'], { 's.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n' });
  t.equal(none.code, 2);
  t.ok(none.stderr.includes(`no ${wordList(PARENT_NAMES, 'or')} object in the input`), none.stderr);
});

t.test('a YAML error is given whole: the problem, where, and the lines there with a caret', async (t) => {
  const text = 'apiVersion: ironic.metal3.io/v1alpha1\nkind: Ironic\nmetadata:\n  name: x\nspec:\n\tnetworking:\n    interface: eth1\n';
  const r = await run(['-f', 'tabs.yaml'], { 'tabs.yaml': text });
  t.equal(r.code, 2);
  t.equal(r.stderr, 'ironic-render: tabs.yaml, document 1: Tabs are not allowed as indentation at line 6, column 1:\n    spec:\n    \tnetworking:\n    ^\n');
});

t.test('a document that is not a whole object says which fields it lacks', async (t) => {
  const cases = [
    { text: 'apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: metal3\n', lacks: 'metadata.name' },
    { text: 'apiVersion: v1\nmetadata:\n  name: 3\n', lacks: 'kind and metadata.name' },
    { text: 'kind: Ironic\n', lacks: 'apiVersion and metadata.name' },
  ];
  for (const c of cases) {
    const r = await run(['-f', 'in.yaml'], { 'in.yaml': c.text });
    t.equal(r.code, 2);
    t.equal(r.stderr, `ironic-render: in.yaml, document 1 has no ${c.lacks} (every object needs apiVersion, kind and metadata.name, as text)\n`);
  }
});

t.test('an object of a kind without a namespace is named without one', async (t) => {
  const r = await run(['-f', 'examples/namespace/baremetal-operator-system.yaml', '-f', 'examples/minimal.yaml']);
  t.equal(r.code, 0);
  t.ok(r.stderr.includes('ignoring Namespace baremetal-operator-system (v1): only '), r.stderr);
  const role = JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } });
  const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
  const other = await run(['-f', 'in.yaml', '-n', 'metal3'], { 'in.yaml': `${ironic({ networking: NETWORKING })}\n---\n${role}\n---\n${pod}` });
  t.match(other.stderr, /ignoring ClusterRole reader \(rbac\.authorization\.k8s\.io\/v1\)/);
  t.match(other.stderr, /ignoring Pod metal3\/p \(v1\)/, 'a namespaced kind gets the namespace');
});

t.test('an invalid environment is reported', async (t) => {
  let stderr = '';
  const code = await runRender(['-f', 'examples/minimal.yaml'], {
    stdout: () => undefined,
    stderr: (text) => (stderr += text),
    stdin: async () => '',
    readFile: async (path) => readFileSync(path, 'utf8'),
    env: { CLUSTER_DOMAIN: 'x', BODY_LIMIT_BYTES: 'lots' },
  });
  t.equal(code, 2);
  t.match(stderr, /invalid configuration: BODY_LIMIT_BYTES must be an integer/);
});

t.test('a status in the input is what the hooks observe', async (t) => {
  const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };
  const spec = { networking: NETWORKING, database, version: '38.0' };
  const render = async (status?: Obj): Promise<string[]> => {
    const object = { ...(JSON.parse(ironic(spec)) as Obj), ...(status !== undefined && { status }) };
    const r = await run(['-f', 'in.yaml'], { 'in.yaml': JSON.stringify(object) });
    t.equal(r.code, 0);
    return names(documents(r.stdout)).filter((n) => n.startsWith('Deployment') || n.startsWith('Job'));
  };
  t.same(await render(), ['Job ironic-pre-none-to-38.0'], 'a first install migrates the schema first');
  t.same(
    await render({ requestedVersion: '37.0', installedVersion: '37.0' }),
    ['Job ironic-pre-37.0-to-38.0'],
    'an upgrade from the installed version, the workload after the Job',
  );
  t.same(await render({ requestedVersion: '38.0', installedVersion: '38.0' }), ['Deployment ironic-service'], 'installed: no Job');
});

t.test("the listener's TLS and authentication settings do not apply to the render", async (t) => {
  let stdout = '';
  const code = await runRender(['-f', 'examples/minimal.yaml'], {
    stdout: (text) => (stdout += text),
    stderr: () => undefined,
    stdin: async () => '',
    readFile: async (path) => readFileSync(path, 'utf8'),
    env: { AUTH_BEARER_TOKEN_FILE: '/nonexistent/token', TLS_CERT_FILE: '/nonexistent/tls.crt', TLS_KEY_FILE: '/nonexistent/tls.key' },
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  });
  t.equal(code, 0);
  t.match(stdout, /kind: Deployment/);
});

t.test('an object of ironic-standalone-operator (metal3.io/v1alpha1): exit 2 with the migrate command to run', async (t) => {
  const upstream = JSON.stringify({ apiVersion: 'metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'ironic', namespace: 'metal3' }, spec: {} });
  const r = await run(['-f', 'old.yaml'], { 'old.yaml': upstream });
  t.equal(r.code, 2);
  t.equal(r.stdout, '');
  t.ok(
    r.stderr.includes(
      `ironic-render: no ${wordList(PARENT_NAMES, 'or')} object in the input: Ironic metal3/ironic is of ironic-standalone-operator (metal3.io/v1alpha1); ` +
        'convert, then render the result:\n  npm run --silent render -- migrate -f old.yaml > new.yaml\n  npm run render -- -f new.yaml\n',
    ),
    r.stderr,
  );
  const piped = await run(['-f', '-'], {}, upstream);
  t.match(piped.stderr, /npm run --silent render -- migrate -f - > new\.yaml/);
  const beside = await run(['-f', 'old.yaml', '-f', 'new.yaml'], { 'old.yaml': upstream, 'new.yaml': ironic({ networking: NETWORKING }) });
  t.equal(beside.code, 0, 'an Ironic of this API is still rendered');
  t.match(
    beside.stderr,
    /ignoring Ironic metal3\/ironic \(metal3\.io\/v1alpha1\): it is of ironic-standalone-operator; convert it with npm run --silent render -- migrate -f old\.yaml > new\.yaml/,
  );
});

const misspelled = [
  {
    given: { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabse' },
    message: 'no kind "IronicDatabse" in version "ironic.metal3.io/v1alpha1": the kinds of ironic.metal3.io/v1alpha1 are ',
    closest: 'the closest is IronicDatabase',
  },
  {
    given: { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'ironicimagecache' },
    message: 'no kind "ironicimagecache" in version "ironic.metal3.io/v1alpha1"',
    closest: 'the closest is IronicImageCache',
  },
  {
    given: { apiVersion: 'ironic.metal3.io/v1beta1', kind: 'IronicDatabase' },
    message: 'no kind "IronicDatabase" in version "ironic.metal3.io/v1beta1"',
    closest: 'write apiVersion: ironic.metal3.io/v1alpha1',
  },
] as const;

for (const c of misspelled) {
  t.test(`${c.given.kind} (${c.given.apiVersion}) next to a valid Ironic: refused as the API server would, exit 1`, async (t) => {
    const r = await run(['-f', 'in.yaml'], {
      'in.yaml': `${ironic({ networking: NETWORKING })}\n---\n${JSON.stringify({ ...c.given, metadata: { name: 'db' } })}`,
    });
    t.equal(r.code, 1);
    t.equal(r.stdout, '');
    t.ok(r.stderr.startsWith(`ironic-render: in.yaml, document 2: ${c.given.kind} default/db: ${c.message}`), r.stderr);
    if (c.given.apiVersion.endsWith('v1alpha1')) t.ok(r.stderr.includes(wordList(PARENT_NAMES)), 'the known kinds');
    t.ok(r.stderr.includes(c.closest), r.stderr);
  });
}

t.test('an input that needs cert-manager or mariadb-operator gets a stand-in of it, with a note, unless the environment says otherwise', async (t) => {
  const certManager = await run(['-f', 'examples/cert-manager/ironic.yaml', '--rounds', '4']);
  t.equal(certManager.code, 0, certManager.stderr);
  t.match(
    certManager.stderr,
    /note: Ironic baremetal-operator-system\/ironic asks for cert-manager \(spec\.tls\.issuerRef\): the render plays it \(CERT_MANAGER=false turns that off\); a cluster needs cert-manager and deploy\/components\/cert-manager\n/,
  );
  t.match(certManager.stdout, /# round 1: Ironic baremetal-operator-system\/ironic: .*waiting for cert-manager/);
  t.match(certManager.stdout, /# round 4: Ironic baremetal-operator-system\/ironic: no writes; Ready=True/);
  const kinds = documents(certManager.stdout).map((d) => `${String(d['kind'])} ${String((d['metadata'] as Obj)['name'])}`);
  t.ok(kinds.includes('Certificate ironic'), 'the Certificate is a child');

  const mariadb = await run(['-f', 'examples/ha.yaml', '--rounds', '8']);
  t.equal(mariadb.code, 0, mariadb.stderr);
  t.match(
    mariadb.stderr,
    /note: IronicDatabase baremetal-operator-system\/ironic-db asks for mariadb-operator \(spec\.engine: MariaDBOperator\): the render plays it/,
  );
  t.match(mariadb.stdout, /# IronicDatabase baremetal-operator-system\/ironic-db: Ready=True DatabaseAvailable/);

  const off = await run(['-f', 'examples/cert-manager/ironic.yaml'], {}, '', { CERT_MANAGER: 'false' });
  t.equal(off.code, 1, 'CERT_MANAGER=false renders as a hook server without cert-manager');
  t.match(off.stderr, /InvalidSpec: spec\.tls\.issuerRef: this hook server does not render cert-manager Certificates/);
  t.notMatch(off.stderr, /note: .*asks for cert-manager/);
  const plain = await run(['-f', 'examples/minimal.yaml']);
  t.notMatch(plain.stderr, /note:/, 'no note for an input that needs neither');
});

t.test('ironic-render shows the backup CronJob and volume, and its rounds hold the database until the restore Job completed', async (t) => {
  const database = (spec: Obj): string =>
    JSON.stringify({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name: 'ironic-db', namespace: 'metal3' }, spec });
  const backup = await run(['-f', 'db.yaml'], { 'db.yaml': database({ backup: { schedule: '@daily' } }) });
  t.equal(backup.code, 0, backup.stderr);
  t.match(names(documents(backup.stdout)), [
    'Secret ironic-db-database-credentials',
    'ConfigMap ironic-db-database-config',
    'StatefulSet ironic-db-database',
    'Service ironic-db-database',
    'PersistentVolumeClaim ironic-db-database-backups',
    'CronJob ironic-db-database-backup',
  ]);
  const restore = await run(['-f', 'db.yaml', '--rounds', '4'], { 'db.yaml': database({ restoreFrom: { backup: 'latest' } }) });
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.stdout, /# round 1: .*Ready=False .*then backup latest of claim ironic-db-database-backups is restored before the database is Ready/);
  t.match(restore.stdout, /# round 2: .*1 created.*Ready=False .*restoring backup latest/);
  t.match(restore.stdout, /# round 3: .*Ready=True/);
  t.ok(names(documents(restore.stdout)).includes('Job ironic-db-database-restore'));
});

t.test('--advance moves the clock between rounds: the backup CronJob starts its Jobs on schedule, and the status shows them', async (t) => {
  const database = JSON.stringify({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'IronicDatabase',
    metadata: { name: 'ironic-db', namespace: 'metal3' },
    spec: { backup: { schedule: '@hourly' } },
  });
  // FIXED_NOW is 00:00; rounds 2 to 6 run at 00:30, 01:00, 01:30, 02:00 and 02:30.
  const r = await run(['-f', 'db.yaml', '--rounds', '6', '--advance', '30m'], { 'db.yaml': database });
  t.equal(r.code, 0, r.stderr);
  const jobName = (time: string): string => `ironic-db-database-backup-${Date.parse(time) / 60_000}`;
  const status = r.stdout.split('\n').filter((line) => line.startsWith('#   '));
  t.ok(status.includes('#   backup:'), 'the status has the backups');
  t.ok(status.includes(`#     lastSuccessfulJob: ${jobName('2026-01-01T02:00:00Z')}`), 'the last run is the one of 02:00');
  t.ok(status.includes('#     lastScheduleTime: 2026-01-01T02:00:00Z'));
  t.ok(status.includes('#     nextScheduleTime: 2026-01-01T03:00:00Z'), 'the next run, from the schedule');
  t.ok(status.includes('#     consecutiveFailures: 0'));
  t.match(r.stdout, /# round 3: IronicDatabase metal3\/ironic-db: .*status written/, 'the first run of 01:00 reaches the status');
  t.match(r.stdout, `# round 3: 2026-01-01T01:00:00Z: the CronJob started Job metal3/${jobName('2026-01-01T01:00:00Z')}, which ran\n`);
  t.notMatch(r.stdout, /# round [1-2]: [^\n]*the CronJob started/, 'nothing before the first scheduled time');

  const still = await run(['-f', 'db.yaml', '--rounds', '6'], { 'db.yaml': database });
  t.notMatch(still.stdout, /lastSuccessfulJob/, 'without --advance the clock stands still and no backup runs');
  t.ok(still.stdout.includes('#     nextScheduleTime: 2026-01-01T01:00:00Z'));
});

t.test('--advance needs --rounds and a duration', async (t) => {
  for (const [argv, message] of [
    [['-f', 'a', '--advance', '1h'], /--advance needs --rounds/],
    [['-f', 'a', '--rounds', '2', '--advance', '1w'], /--advance must be a duration from 1s to 366d/],
    [['-f', 'a', '--rounds', '2', '--advance', '0m'], /--advance must be a duration/],
    [['-f', 'a', '--rounds', '2', '--advance', '367d'], /--advance must be a duration/],
  ] as const) {
    const r = await run([...argv]);
    t.equal(r.code, 2);
    t.match(r.stderr, message);
  }
});
