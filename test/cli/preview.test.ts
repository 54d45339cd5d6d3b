/**
 * `ironic-render preview` (src/cli/preview.ts) on the rows of the README's "Changing a live object": what the API
 * server refuses, which workloads roll and why, which Jobs run, which children are created, replaced or deleted,
 * and the exit status. Each accepted row is then done for real in the emulator (test/support/emulator.ts: the
 * live objects converged, the change applied, the loop run until quiet) and the preview must have said what it did:
 * the same children at the end and the same workloads rolled.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { runRender, type RenderIO } from '../../src/cli/render.js';
import type { KubeResource } from '../../src/cli/objects.js';
import { LAST_APPLIED_ANNOTATION, SPEC_HASH_ANNOTATION } from '../../src/render/child.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../support/emulator.js';
import { isObj, valueAt, type Obj } from '../support/paths.js';
import { renewedCertificate } from '../fixtures/tls.js';

type Run = { readonly code: number; readonly stdout: string; readonly stderr: string };

const run = async (argv: readonly string[], files: Record<string, string>): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  const io: RenderIO = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdin: async () => '',
    readFile: async (path) => {
      const text = files[path] ?? (path.startsWith('examples/') ? readFileSync(path, 'utf8') : undefined);
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
    env: {},
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  };
  const code = await runRender(argv, io);
  return { code, stdout, stderr };
};

const example = (name: string): string => readFileSync(`examples/${name}`, 'utf8');

/** An example with text replaced (the replacement must apply). */
const edited = (name: string, from: string, to: string): string => {
  const text = example(name);
  if (!text.includes(from)) throw new Error(`${from} is not in ${name}`);
  return text.replace(from, to);
};

const MANAGED_37 = edited('managed-database.yaml', 'version: "38.0"', 'version: "37.0"');
const MANAGED_HA = edited('managed-database.yaml', '    ipAddress: 192.0.2.2', '').replace(
  '  databaseName: ironic-db',
  '  databaseName: ironic-db\n  highAvailability: true',
);
const GALERA_DATABASE = [
  'apiVersion: ironic.metal3.io/v1alpha1',
  'kind: IronicDatabase',
  'metadata: { name: ironic-galera, namespace: baremetal-operator-system }',
  'spec: { engine: MariaDBOperator }',
].join('\n');
const renewed = renewedCertificate();
const RENEWED = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'ironic-tls', namespace: 'baremetal-operator-system' },
  type: 'kubernetes.io/tls',
  stringData: { 'tls.crt': renewed.crt, 'tls.key': renewed.key },
});
const GALERA_WITH_USER = [
  'apiVersion: v1',
  'kind: Secret',
  'metadata: { name: db-user, namespace: baremetal-operator-system }',
  'stringData: { username: ironic, password: a-long-password-for-ironic-1234 }',
  '---',
  'apiVersion: ironic.metal3.io/v1alpha1',
  'kind: IronicDatabase',
  'metadata: { name: ironic-db, namespace: baremetal-operator-system }',
  'spec: { engine: MariaDBOperator, credentialsName: db-user }',
  '---',
  'apiVersion: ironic.metal3.io/v1alpha1',
  'kind: Ironic',
  'metadata: { name: ironic, namespace: baremetal-operator-system }',
  'spec: { databaseName: ironic-db, networking: { interface: eth1, ipAddress: 192.0.2.2 } }',
].join('\n');
const ANOTHER_USER = [
  'apiVersion: v1',
  'kind: Secret',
  'metadata: { name: db-user-2, namespace: baremetal-operator-system }',
  'stringData: { username: ironic2, password: a-long-password-for-ironic-5678 }',
  '---',
  'apiVersion: ironic.metal3.io/v1alpha1',
  'kind: IronicDatabase',
  'metadata: { name: ironic-db, namespace: baremetal-operator-system }',
  'spec: { engine: MariaDBOperator, credentialsName: db-user-2 }',
].join('\n');
const ROTATED = edited('tls-credentials.yaml', 'password: replace-me-with-a-long-random-password', 'password: a-new-and-even-longer-random-password');

type Row = {
  readonly name: string;
  readonly live: string;
  readonly change: string;
  readonly exit: number;
  /** Facts of the JSON result. */
  readonly check: (t: Test, result: Obj) => void;
  /** How the emulator is installed for the comparison (an overlay with mariadb-operator). */
  readonly emulator?: EmulatorOptions;
};

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map((v) => (isObj(v) ? JSON.stringify(v) : String(v))) : []);
const planOf = (result: Obj): Obj => (isObj(result['plan']) ? result['plan'] : {});
const rolled = (result: Obj): string[] =>
  Array.isArray(planOf(result)['rolls']) ? (planOf(result)['rolls'] as unknown[]).map((r) => String(valueAt(r, 'workload'))) : [];

const ROWS: readonly Row[] = [
  {
    name: 'a field of the pod (networking.ipAddress): the Deployment rolls once, for the address in its environment',
    live: example('minimal.yaml'),
    change: edited('minimal.yaml', 'ipAddress: 192.0.2.2', 'ipAddress: 192.0.2.3'),
    exit: 0,
    check: (t, result) => {
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
      t.match(strings(valueAt(planOf(result), 'rolls', 0, 'why')), [/env\[PROVISIONING_IP\]/]);
      t.same(strings(planOf(result)['created']), [], 'nothing new');
    },
  },
  {
    name: 'a new password in the credentials Secret: a new htpasswd Secret, the old one kept until the pods run the new one, one roll',
    live: example('tls-credentials.yaml'),
    change: ROTATED,
    exit: 0,
    check: (t, result) => {
      t.same(result['changed'], ['Secret baremetal-operator-system/ironic-credentials'], 'the change is the Secret');
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
      const replaced = valueAt(planOf(result), 'replaced', 0);
      t.match(replaced, { old: /^Secret baremetal-operator-system\/ironic-htpasswd-/, by: /^Secret baremetal-operator-system\/ironic-htpasswd-/ });
      t.ok(Number(valueAt(replaced, 'goneInRound')) > 1, 'the old htpasswd is kept for a while');
    },
  },
  {
    name: 'a renewed certificate in the tls.certificateName Secret: one roll, the clients hand-off replaced with what they now trust',
    live: example('tls-credentials.yaml'),
    change: RENEWED,
    exit: 0,
    check: (t, result) => {
      t.same(result['changed'], ['Secret baremetal-operator-system/ironic-tls'], 'the change is the Secret');
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
      t.same(strings(planOf(result)['recreated']), ['Secret baremetal-operator-system/ironic-clouds']);
    },
  },
  {
    name: 'version up with a database: the upgrade Jobs run, then the Deployment rolls once',
    live: MANAGED_37,
    change: example('managed-database.yaml'),
    exit: 0,
    check: (t, result) => {
      t.same(strings(planOf(result)['jobs']), [
        'Job baremetal-operator-system/ironic-pre-37.0-to-38.0',
        'Job baremetal-operator-system/ironic-post-37.0-to-38.0',
      ]);
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
    },
  },
  {
    name: 'version down with a database: not carried out (exit 3), every child kept',
    live: example('managed-database.yaml'),
    change: MANAGED_37,
    exit: 3,
    check: (t, result) => {
      const plan = planOf(result);
      for (const key of ['changed', 'replaced', 'recreated', 'created', 'deleted', 'rolls', 'jobs']) t.same(plan[key], [], `nothing ${key}`);
      t.match(valueAt(plan, 'parents', 1, 'last'), { status: 'False', reason: 'DeploymentFailed', message: /cannot be downgraded/ });
    },
  },
  {
    name: 'high availability on: the DaemonSet replaces the Deployment, which goes first',
    live: example('managed-database.yaml'),
    change: MANAGED_HA,
    exit: 0,
    check: (t, result) => {
      t.match(
        strings(planOf(result)['created']),
        [
          'Secret baremetal-operator-system/ironic-rpc-ca-',
          'PodDisruptionBudget baremetal-operator-system/ironic-service',
          'DaemonSet baremetal-operator-system/ironic-service',
        ].map((p) => new RegExp(`^${p}`)),
      );
      t.same(strings(planOf(result)['deleted']), [
        JSON.stringify({ object: 'Deployment baremetal-operator-system/ironic-service', round: Number(valueAt(planOf(result), 'deleted', 0, 'round')) }),
      ]);
      t.match(valueAt(planOf(result), 'parents', 1, 'first'), { status: 'False', message: /switching to high availability/ });
    },
  },
  {
    name: 'high availability off: the Deployment replaces the DaemonSet',
    live: MANAGED_HA,
    change: example('managed-database.yaml'),
    exit: 0,
    check: (t, result) => {
      t.same(strings(planOf(result)['created']), ['Deployment baremetal-operator-system/ironic-service']);
      t.ok(
        strings(planOf(result)['deleted']).some((d) => d.includes('DaemonSet baremetal-operator-system/ironic-service')),
        'the DaemonSet goes',
      );
    },
  },
  {
    name: 'databaseName to another IronicDatabase: refused by the CRD against the live object (exit 1), nothing applied',
    live: example('managed-database.yaml'),
    change: edited('managed-database.yaml', 'databaseName: ironic-db', 'databaseName: other-db'),
    exit: 1,
    check: (t, result) => {
      t.match(result['refusals'], [/databaseName cannot be changed to a different IronicDatabase once set/]);
      t.equal(result['plan'], undefined);
    },
  },
  {
    name: 'IronicDatabase engine: refused by the CRD against the live object (exit 1), nothing applied',
    live: example('managed-database.yaml'),
    change: edited('managed-database.yaml', '  storage:\n    size: 20Gi', '  engine: MariaDBOperator\n  storage:\n    size: 20Gi'),
    exit: 1,
    check: (t, result) => {
      t.match(result['refusals'], [/engine cannot be changed once the database exists/]);
    },
  },
  {
    name: 'TLS on (generated certificates): certificate Secrets created, the Deployment rolls once',
    live: example('minimal.yaml'),
    change: example('generated-tls.yaml'),
    exit: 0,
    check: (t, result) => {
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
      t.ok(
        strings(planOf(result)['created']).some((c) => c.startsWith('Secret baremetal-operator-system/ironic-')),
        'a generated certificate Secret',
      );
    },
  },
  {
    name: 'a backup added to the IronicDatabase: its claim and CronJob, no roll',
    live: example('managed-database.yaml'),
    change: edited(
      'managed-database.yaml',
      '    whenDeleted: Retain',
      '    whenDeleted: Retain\n  backup:\n    schedule: "30 2 * * *"\n    persistentVolumeClaim:\n      size: 5Gi',
    ),
    exit: 0,
    check: (t, result) => {
      t.same(strings(planOf(result)['created']), [
        'PersistentVolumeClaim baremetal-operator-system/ironic-db-database-backups',
        'CronJob baremetal-operator-system/ironic-db-database-backup',
      ]);
      t.same(rolled(result), []);
    },
  },
  {
    name: "IronicImageCache agentBranch: the cache's StatefulSet rolls and downloads again; the Ironic keeps its pods (the URLs stay)",
    live: example('image-cache.yaml'),
    change: edited('image-cache.yaml', 'agentBranch: stable/2025.1', 'agentBranch: stable/2025.2'),
    exit: 0,
    check: (t, result) => {
      t.same(rolled(result), ['StatefulSet baremetal-operator-system/ipa-ipa-cache']);
      t.match(strings(valueAt(planOf(result), 'rolls', 0, 'why')), [/env\[IPA_BRANCH\]/]);
    },
  },
  {
    name: 'IronicImageCache storage.size: refused by the CRD (the claim template is immutable), nothing applied',
    live: example('image-cache.yaml'),
    change: edited('image-cache.yaml', 'size: 5Gi', 'size: 10Gi'),
    exit: 1,
    check: (t, result) => {
      t.match(result['refusals'], [/storage\.size cannot be changed once the cache exists/]);
    },
  },
  {
    name: 'another database user (a credentialsName with another username): a User and Grant of its own, the old ones go once the Ironic rolled to it',
    live: GALERA_WITH_USER,
    change: ANOTHER_USER,
    exit: 0,
    emulator: { overlay: 'mariadb-operator' },
    check: (t, result) => {
      t.same(rolled(result), ['Deployment baremetal-operator-system/ironic-service']);
      t.match(strings(planOf(result)['created']), [
        /^Secret .*-password-/,
        /^Grant baremetal-operator-system\/ironic-db-database-/,
        /^User baremetal-operator-system\/ironic-db-database-/,
      ]);
      t.ok(
        strings(planOf(result)['deleted']).some((d) => d.includes('User baremetal-operator-system/ironic-db-database"')),
        'the old User goes',
      );
      t.match(valueAt(planOf(result), 'parents', 0, 'first'), { status: 'False', message: /switching the database user from ironic to ironic2/ });
    },
  },
  {
    name: 'moving to Galera, the Ironic is created again on the Galera IronicDatabase (README: its databaseName cannot change)',
    live: GALERA_DATABASE,
    change: edited('managed-database.yaml', 'databaseName: ironic-db', 'databaseName: ironic-galera').slice(
      example('managed-database.yaml').indexOf('apiVersion: ironic.metal3.io/v1alpha1\nkind: Ironic\n'),
    ),
    exit: 0,
    emulator: { overlay: 'mariadb-operator' },
    check: (t, result) => {
      t.same(strings(planOf(result)['jobs']), [
        'Job baremetal-operator-system/ironic-pre-none-to-38.0',
        'Job baremetal-operator-system/ironic-post-none-to-38.0',
      ]);
      t.ok(strings(planOf(result)['created']).includes('Deployment baremetal-operator-system/ironic-service'));
      t.match(valueAt(planOf(result), 'parents', 0, 'last'), { status: 'True' });
    },
  },
];

/** The children of every parent in the emulator: `Kind ns/name`, and each workload's pod template. */
const childrenOf = (emulator: Emulator): { names: Set<string>; templates: Map<string, unknown> } => {
  const children = emulator.cluster.store
    .list()
    .filter((o: KubeResource) => (o.metadata.ownerReferences ?? []).some((r) => r.apiVersion.startsWith('ironic.metal3.io/')));
  return {
    names: new Set(children.map((c) => `${c.kind} ${c.metadata.namespace ?? ''}/${c.metadata.name}`)),
    templates: new Map(children.map((c) => [`${c.kind} ${c.metadata.namespace ?? ''}/${c.metadata.name}`, valueAt(c, 'spec', 'template')])),
  };
};

/** Rounds until quiet, with workloads ready and the clock moving (the HA switch waits the old pods' grace period). */
const converge = async (emulator: Emulator): Promise<void> => {
  for (let i = 0; i < 12; i += 1) {
    const result = await emulator.runUntilStable({ autoReady: true, maxRounds: 40 });
    if (result.rounds === 1) return;
  }
};

/** What the emulator does with the change: the children before and after, and the workloads whose template changed. */
const emulated = async (
  live: string,
  change: string,
  options: EmulatorOptions = {},
): Promise<{ before: Set<string>; after: Set<string>; rolled: string[] }> => {
  const emulator = await startEmulator({ tickSeconds: 15, namespace: 'baremetal-operator-system', ...options });
  try {
    emulator.apply(live);
    await converge(emulator);
    const before = childrenOf(emulator);
    emulator.apply(change);
    await converge(emulator);
    const after = childrenOf(emulator);
    const rolledNow = [...after.templates].filter(
      ([name, template]) => before.templates.has(name) && JSON.stringify(before.templates.get(name)) !== JSON.stringify(template),
    );
    return { before: before.names, after: after.names, rolled: rolledNow.map(([name]) => name).sort() };
  } finally {
    await emulator.close();
  }
};

/** The children the plan says there are at the end, from those before it. */
const plannedAfter = (before: Set<string>, plan: Obj): Set<string> => {
  const after = new Set(before);
  strings(plan['created']).forEach((c) => after.add(c));
  (Array.isArray(plan['replaced']) ? plan['replaced'] : []).forEach((r) => {
    after.delete(String(valueAt(r, 'old')));
    after.add(String(valueAt(r, 'by')));
  });
  (Array.isArray(plan['deleted']) ? plan['deleted'] : []).forEach((d) => after.delete(String(valueAt(d, 'object'))));
  return after;
};

for (const row of ROWS) {
  void t.test(row.name, async (t) => {
    const result = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml', '-o', 'json'], { 'live.yaml': row.live, 'change.yaml': row.change });
    t.equal(result.code, row.exit, 'exit status', { stderr: result.stderr });
    const parsed: unknown = JSON.parse(result.stdout);
    if (!isObj(parsed)) throw new Error('no JSON result');
    t.equal(parsed['exit'], row.exit);
    row.check(t, parsed);
    if (row.exit !== 0) return;
    const done = await emulated(row.live, row.change, row.emulator);
    t.same([...plannedAfter(done.before, planOf(parsed))].sort(), [...done.after].sort(), 'the emulator ends with the children the preview said');
    t.same(rolled(parsed).sort(), done.rolled, 'and rolls the workloads the preview said');
  });
}

void t.test('the text plan: sections a reader scans, and the verdict', async (t) => {
  const result = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml'], {
    'live.yaml': MANAGED_37,
    'change.yaml': example('managed-database.yaml'),
  });
  t.equal(result.code, 0);
  t.match(result.stdout, /^Preview of the change of Ironic baremetal-operator-system\/ironic: the API server accepts it\n/);
  t.match(result.stdout, /\nWorkloads that roll:\n {2}Deployment baremetal-operator-system\/ironic-service rolls once: .*containers\[ironic\]\.image/);
  t.match(result.stdout, /\nJobs that run:\n {2}Job baremetal-operator-system\/ironic-pre-37\.0-to-38\.0\n/);
  t.match(result.stdout, /\nVerdict: carried out\.\n$/);
  t.match(result.stderr, /the preview starts from the state they converge to/);
  const ha = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml'], { 'live.yaml': example('managed-database.yaml'), 'change.yaml': MANAGED_HA });
  t.match(
    ha.stdout,
    /\nDeleted:\n {2}Deployment baremetal-operator-system\/ironic-service \(kept about \d+ s, while the change rolled out\)\n/,
    "how long the old workload is kept (its pods' grace period, 95 s)",
  );
  const kept = Number(/kept about (\d+) s/.exec(ha.stdout)?.[1]);
  t.ok(kept >= 95 && kept <= 150, `kept ${kept} s: at least the grace period`);
  const same = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml'], { 'live.yaml': MANAGED_37, 'change.yaml': MANAGED_37 });
  t.equal(same.code, 0);
  t.match(same.stdout, /as live: no change/);
});

void t.test('usage: both inputs are needed, one line says what is missing', async (t) => {
  for (const [argv, message] of [
    [['preview', '--change', 'x.yaml'], /give the live objects with -f/],
    [['preview', '-f', 'x.yaml'], /give the changed objects with --change FILE/],
    [['preview', '-f', 'x.yaml', '--change', 'y.yaml', '-o', 'yaml'], /--output must be text or json/],
  ] as const) {
    const result = await run(argv, {});
    t.equal(result.code, 2);
    t.match(result.stderr, message);
    t.match(result.stderr, /ironic-render preview --help/);
  }
  const help = await run(['preview', '--help'], {});
  t.equal(help.code, 0);
  t.match(help.stdout, /^Usage: ironic-render preview -f LIVE/);
});

void t.test("the README's example run is what the command prints", async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  const command = '$ npm run --silent render -- preview -f live.yaml --change examples/managed-database.yaml\n';
  const start = readme.indexOf(command);
  t.ok(start > 0, 'the README shows the run');
  const shown = readme.slice(start + command.length, readme.indexOf('```', start));
  const result = await run(['preview', '-f', 'live.yaml', '--change', 'examples/managed-database.yaml'], { 'live.yaml': MANAGED_37 });
  t.equal(result.code, 0);
  t.equal(shown, result.stdout);
});

void t.test(
  'live objects as kubectl get prints them (parents with status, children with ownerReferences) give the same plan as the files they came from',
  async (t) => {
    const emulator = await startEmulator({ tickSeconds: 15, namespace: 'baremetal-operator-system' });
    let live: string;
    try {
      emulator.apply(example('tls-credentials.yaml'));
      await converge(emulator);
      const objects = emulator.cluster.store.list().filter((o) => o.kind !== 'Pod');
      t.ok(
        objects.some((o) => (o.metadata.ownerReferences ?? []).length > 0),
        'children with their owners',
      );
      live = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
    } finally {
      await emulator.close();
    }
    const fromCluster = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml', '-o', 'json'], { 'live.yaml': live, 'change.yaml': ROTATED });
    const fromFiles = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml', '-o', 'json'], {
      'live.yaml': example('tls-credentials.yaml'),
      'change.yaml': ROTATED,
    });
    t.equal(fromCluster.code, 0, fromCluster.stderr);
    t.notMatch(fromCluster.stderr, /starts from the state they converge to/, 'no convergence needed');
    t.notMatch(fromCluster.stderr, /ignoring/, 'children are not ignored');
    t.equal((JSON.parse(fromCluster.stdout) as Obj)['drift'], undefined, 'the live objects are as the hooks want them: no drift');
    t.same(
      (JSON.parse(fromCluster.stdout) as Obj)['changed'],
      ['Secret baremetal-operator-system/ironic-credentials'],
      'the Ironic as applied is the live one, defaults and all',
    );
    // A Service whose selector was edited by hand: the hooks put it back whatever the edit, and the preview says so first.
    const edited = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: (JSON.parse(live) as { items: Obj[] }).items.map((o) =>
        o['kind'] === 'Service' ? { ...o, spec: { ...(o['spec'] as Obj), selector: { app: 'edited-by-hand' } } } : o,
      ),
    });
    const drifted = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml'], { 'live.yaml': edited, 'change.yaml': ROTATED });
    t.equal(drifted.code, 0);
    t.match(
      drifted.stdout,
      /^Before the change: the live objects are not what the hooks want, and Metacontroller changes them anyway:\nChanged in place:\n {2}Service baremetal-operator-system\/ironic: spec\.selector\..*\n\nPreview of the change/,
    );
    const shape = (text: string): unknown => {
      const plan = planOf(JSON.parse(text) as Obj);
      const hashless = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/-[0-9a-f]{10}\b/g, '-<hash>'));
      return hashless({
        rolls: plan['rolls'],
        created: plan['created'],
        deleted: plan['deleted'],
        replaced: strings(plan['replaced']).length,
        recreated: plan['recreated'],
      });
    };
    // Workloads a version of the hooks before the spec stamp made: the stamp is added in place, which changes no pod
    // and is no drift to show.
    const withoutStamp = (o: Obj): Obj => {
      const metadata = o['metadata'] as { annotations?: Record<string, string> };
      const annotations = Object.fromEntries(
        Object.entries(metadata.annotations ?? {})
          .filter(([key]) => key !== SPEC_HASH_ANNOTATION)
          .map(([key, value]): [string, string] => {
            if (key !== LAST_APPLIED_ANNOTATION) return [key, value];
            const record = JSON.parse(value) as { metadata: { annotations?: Record<string, string> } };
            delete record.metadata.annotations?.[SPEC_HASH_ANNOTATION];
            return [key, JSON.stringify(record)];
          }),
      );
      return { ...o, metadata: { ...metadata, annotations } };
    };
    const items = (JSON.parse(live) as { items: Obj[] }).items;
    t.ok(
      items.some((o) => JSON.stringify(o).includes(SPEC_HASH_ANNOTATION)),
      'the live workloads carry the stamp',
    );
    const older = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.map(withoutStamp) });
    const fromOlder = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml', '-o', 'json'], { 'live.yaml': older, 'change.yaml': ROTATED });
    t.equal(fromOlder.code, 0, fromOlder.stderr);
    t.equal((JSON.parse(fromOlder.stdout) as Obj)['drift'], undefined, 'workloads without the stamp are no drift');
    t.same(shape(fromOlder.stdout), shape(fromFiles.stdout), 'and the plan is the same');
    t.same(shape(fromCluster.stdout), shape(fromFiles.stdout));
  },
);

void t.test('input the preview cannot use: unreadable files, YAML errors, objects the API server does not serve, a change file without objects', async (t) => {
  const cases: readonly { readonly files: Record<string, string>; readonly message: RegExp }[] = [
    { files: { 'change.yaml': ROTATED }, message: /cannot read live\.yaml/ },
    { files: { 'live.yaml': 'a: [', 'change.yaml': ROTATED }, message: /live\.yaml, document 1/ },
    {
      files: { 'live.yaml': 'apiVersion: ironic.metal3.io/v1alpha1\nkind: Ironc\nmetadata: { name: x }\n', 'change.yaml': ROTATED },
      message: /no kind "Ironc"/,
    },
    { files: { 'live.yaml': example('minimal.yaml'), 'change.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\n' }, message: /hold no Ironic/ },
    { files: { 'live.yaml': example('minimal.yaml'), 'change.yaml': 'a: [' }, message: /change\.yaml, document 1/ },
  ];
  for (const c of cases) {
    const result = await run(['preview', '-f', 'live.yaml', '--change', 'change.yaml'], c.files);
    t.equal(result.code, 2, String(c.message));
    t.match(result.stderr, c.message);
  }
});
