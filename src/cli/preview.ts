/**
 * `ironic-render preview`: what a change of a live object will do, before it is applied, like `kubectl diff` or
 * a Terraform plan. The live objects (`kubectl get -o yaml` of the parents, with their children and the Secrets
 * they name; or the files they were applied from, which are brought to their converged state first) go into the
 * emulated cluster; the changed objects are then checked by the API server's rules against the live ones
 * (transition rules included) and applied, and Metacontroller's loop runs until the cluster is quiet, with
 * workloads becoming ready, Jobs completing and the clock moving. The plan says what was refused, which children
 * changed in place and where, which were replaced or recreated, which workloads rolled and why, which Jobs ran,
 * what was kept for a while, and the Ready condition the parents showed.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../config.js';
import { buildServer, rfc3339Now } from '../server.js';
import { parentKindOf, parentProblems, storedParent } from './admission.js';
import { Cluster } from './cluster.js';
import { CertManagerStandIn } from './cert-manager.js';
import { MariaDBOperatorStandIn } from './mariadb-operator.js';
import { isNamespaceName, readObjects, valuesOf, type Input } from './documents.js';
import { deepEqual, describe, groupKeyOf, isRecord, isResource, objectKeyOf, SERVER_METADATA, type KubeResource } from './objects.js';
import { keyOf, planOf, snapshotOf, type Plan, type Snapshot } from './preview-plan.js';
import {
  EXIT,
  injectTransport,
  isParent,
  NOT_CARRIED_OUT,
  operatorSettings,
  readInputs,
  readyText,
  REFUSED,
  renderClock,
  settle,
  type RenderClock,
  type RenderIO,
  type StandIns,
} from './session.js';
import { commandOptions, UsageError, usageErrorText } from './usage.js';

export const PREVIEW_USAGE = `Usage: ironic-render preview -f LIVE [-f LIVE ...] --change FILE [--change FILE ...] [-n NAMESPACE]

Shows what a change of live objects will do before it is applied, like kubectl diff. LIVE holds the objects as
they are: \`kubectl get ironic,ironicdatabase,ironicimagecache -o yaml\` with their children and the Secrets and
ConfigMaps they name (children are the objects whose ownerReferences name a parent of the input), or the files the
parents were applied from, which are first brought to the state they converge to. FILE holds the changed objects
(parents, Secrets or ConfigMaps), matched to the live ones by kind, namespace and name.

Prints what the API server refuses (the CRD's schema and rules, transition rules against the live object), then,
after Metacontroller's loop ran until nothing changes (workloads become ready, Jobs complete, the clock moves):
the children changed in place and where, replaced or recreated, created and deleted, the workloads that roll and
what in their pod template changed, the Jobs that run, what is kept until the change has rolled out, and the
Ready condition each parent shows on the way and at the end.

Options:
  -f, --filename FILE    the live objects (a YAML file, several documents or a List); - reads standard input
      --change FILE      the changed objects
  -n, --namespace NAME   namespace of objects that have none (default: default)
  -o, --output FORMAT    text (the default) or json: {"verdict", "exit", "changed", "refusals", "plan"}
  -h, --help             print this help

Exit status: 0 the change is carried out; 1 the API server or the hooks refuse it (the live children are kept);
2 bad usage or unreadable input; 3 the hooks do not carry it out from the observed status (a downgrade of the
installed version, an object in the way).
`;

type PreviewOptions = {
  readonly live: readonly string[];
  readonly changes: readonly string[];
  readonly namespace: string;
  readonly json: boolean;
  readonly help: boolean;
};

/** Rounds of the loop at most, and how far the clock moves in each (the HA switch waits a grace period). */
const MAX_ROUNDS = 80;
const ROUND_SECONDS = 15;
/** Rounds without a write that end the loop (the clock moves meanwhile, for waits on time). */
const QUIET_ROUNDS = 10;

export const parsePreviewOptions = (argv: readonly string[]): PreviewOptions => {
  const values = commandOptions(argv, {
    filename: { type: 'string', short: 'f', multiple: true },
    change: { type: 'string', multiple: true },
    namespace: { type: 'string', short: 'n' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.output !== undefined && values.output !== 'json' && values.output !== 'text')
    throw new UsageError(`--output must be text or json, got "${values.output}"`);
  const options = {
    live: values.filename ?? [],
    changes: values.change ?? [],
    namespace: values.namespace ?? 'default',
    json: values.output === 'json',
    help: values.help === true,
  };
  if (options.help) return options;
  if (options.live.length === 0) throw new UsageError('give the live objects with -f (kubectl get ... -o yaml, or the files they were applied from)');
  if (options.changes.length === 0) throw new UsageError('give the changed objects with --change FILE');
  if ([...options.live, ...options.changes].filter((f) => f === '-').length > 1) throw new UsageError('standard input (-) can be read only once');
  if (!isNamespaceName(options.namespace)) throw new UsageError(`--namespace "${options.namespace}" is not a valid namespace name`);
  return options;
};

/** The live objects: what readObjects reads (parents, Secrets, ConfigMaps), and the children of those parents. */
type Live = { readonly objects: readonly KubeResource[]; readonly children: readonly KubeResource[] };

/** The objects of the inputs that have an owner. */
const ownedObjectsIn = (inputs: readonly Input[]): KubeResource[] =>
  inputs.flatMap(({ text, source }) =>
    // Errors were reported when readObjects read the same texts.
    valuesOf(text, source, [])
      .map(({ value }) => value)
      .filter(isResource)
      .filter((o) => (o.metadata.ownerReferences ?? []).length > 0),
  );

/** The owned objects whose ownerReferences name one of the parents (by uid). */
const childrenIn = (owned: readonly KubeResource[], parents: readonly KubeResource[], namespace: string): KubeResource[] => {
  const uids = new Set(parents.map((p) => p.metadata.uid).filter((u) => u !== undefined));
  return owned
    .filter((o) => !isParent(o) && (o.metadata.ownerReferences ?? []).some((r) => uids.has(r.uid)))
    .map((o) => (o.metadata.namespace === undefined ? { ...o, metadata: { ...o.metadata, namespace } } : o));
};

const readLive = async (options: PreviewOptions, io: RenderIO): Promise<Live> => {
  const inputs = await readInputs(options.live, io);
  const read = readObjects(inputs, options.namespace);
  if (read.errors.length > 0 || read.refused.length > 0) throw new Error([...read.errors, ...read.refused].join('\n'));
  const owned = ownedObjectsIn(inputs);
  const children = childrenIn(owned, read.objects.filter(isParent), options.namespace);
  const childKeys = new Set(children.map(keyOf));
  // Objects with an owner (a parent's children, and what their controllers made: ReplicaSets, pods) are not
  // worth a warning: the cluster made them.
  const ownedNames = owned.map((o) => `${o.kind} ${objectKeyOf({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? options.namespace } })}`);
  read.warnings.filter((w) => !ownedNames.some((o) => w.includes(`ignoring ${o} `))).forEach((w) => io.stderr(`warning: ${w}\n`));
  return { objects: read.objects.filter((o) => !childKeys.has(keyOf(o))), children };
};

const readChanges = async (options: PreviewOptions, io: RenderIO): Promise<readonly KubeResource[]> => {
  const read = readObjects(await readInputs(options.changes, io), options.namespace);
  read.warnings.forEach((w) => io.stderr(`warning: ${w}\n`));
  if (read.errors.length > 0 || read.refused.length > 0) throw new Error([...read.errors, ...read.refused].join('\n'));
  if (read.objects.length === 0) throw new UsageError('the --change files hold no Ironic, IronicDatabase, IronicImageCache, Secret or ConfigMap');
  return read.objects;
};

/** An object without the metadata the API server writes (SERVER_METADATA): what is put back into the emulated cluster. */
const asApplied = (object: KubeResource): KubeResource => {
  const metadata = { ...object.metadata };
  for (const key of SERVER_METADATA) Reflect.deleteProperty(metadata, key);
  return { ...object, metadata };
};

/** An object as the API server stores it: a parent defaulted and pruned to its CRD, anything else as given. */
const asStored = (object: KubeResource): KubeResource => {
  const kind = parentKindOf(object);
  return kind === undefined ? object : storedParent(kind, object);
};

/** Puts the live objects into the cluster with their status; children get the new uids of their parents. */
const seed = (cluster: Cluster, live: Live): void => {
  const uids = new Map<string, string>();
  for (const object of live.objects) {
    const created = cluster.put(asStored(asApplied(object)));
    if (object.metadata.uid !== undefined && created.metadata.uid !== undefined) uids.set(object.metadata.uid, created.metadata.uid);
    if (isRecord(object['status'])) cluster.store.updateStatus(created, object['status']);
  }
  for (const child of live.children) {
    const ownerReferences = (child.metadata.ownerReferences ?? []).map((r) => ({ ...r, uid: uids.get(r.uid) ?? r.uid }));
    const applied = asApplied({ ...child, metadata: { ...child.metadata, ownerReferences } });
    const created = cluster.store.create(applied);
    if (isRecord(child['status'])) cluster.store.updateStatus(created, child['status']);
  }
};

/** Rounds of the loop until nothing is written for QUIET_ROUNDS rounds; the snapshots after each round. */
const runUntilQuiet = async (cluster: Cluster, operators: StandIns, clock: RenderClock): Promise<Snapshot[]> => {
  const snapshots: Snapshot[] = [];
  let quiet = 0;
  for (let round = 1; round <= MAX_ROUNDS && quiet < QUIET_ROUNDS; round += 1) {
    if (round > 1) {
      clock.advance(ROUND_SECONDS);
      settle(cluster, operators, clock.now());
    }
    const result = await cluster.round();
    quiet = result.writes.length === 0 && result.cacheCurrent ? quiet + 1 : 0;
    snapshots.push(snapshotOf(cluster.store.list()));
  }
  return snapshots;
};

/** Why the API server refuses a changed object against the live one (the transition rules see the live one). */
const apiRefusals = (cluster: Cluster, changes: readonly KubeResource[]): string[] =>
  changes.flatMap((change) => {
    const live = cluster.store.get(groupKeyOf(change), objectKeyOf(change));
    const problems = parentProblems(change, live);
    return problems.length === 0 ? [] : [`${describe(change)} is invalid: ${problems.join('; ')}`];
  });

const section = (title: string, lines: readonly string[]): string => (lines.length === 0 ? '' : `${title}\n${lines.map((l) => `  ${l}\n`).join('')}`);

/** How many children a plan (or a drift) changes, creates, recreates or deletes; replacements aside. */
const childChanges = (plan: Drift): number => plan.changed.length + plan.recreated.length + plan.created.length + plan.deleted.length;

/** The sections of children changed, replaced (`replaced`, already worded), recreated, created and deleted. */
const childSections = (plan: Drift, replaced: readonly string[], keptFor: (deleted: Plan['deleted'][number]) => string): string =>
  [
    section(
      'Changed in place:',
      plan.changed.map((c) => `${c.object}: ${c.paths.join(', ')}`),
    ),
    section('Replaced:', replaced),
    section('Deleted and created again:', plan.recreated),
    section('Created:', plan.created),
    section(
      'Deleted:',
      plan.deleted.map((d) => `${d.object}${keptFor(d)}`),
    ),
  ].join('');

/** The plan as text. */
export const planText = (plan: Plan, changes: readonly string[]): string => {
  const parents = plan.parents.flatMap((p) => [
    ...(deepEqual(p.first, p.last)
      ? [`${p.parent}: ${readyText(p.last)}`]
      : [`${p.parent}: during the change: ${readyText(p.first)}`, `${p.parent}: at the end: ${readyText(p.last)}`]),
  ]);
  const rolls = plan.rolls.map((r) => `${r.workload} rolls ${r.times === 1 ? 'once' : `${r.times} times`}: ${r.why.join(', ')}`);
  const kept = plan.replaced.map(
    (r) => `${r.old} → ${r.by}${r.goneInRound > 1 ? ' (the old one is kept until the workload has rolled out with the new one)' : ''}`,
  );
  return [
    `Preview of the change of ${changes.join(', ')}: the API server accepts it\n`,
    section('Parents:', parents),
    section('Workloads that roll:', rolls),
    section('Jobs that run:', plan.jobs),
    childSections(plan, kept, (d) => (d.round > 1 ? ` (kept about ${(d.round - 1) * ROUND_SECONDS} s, while the change rolled out)` : '')),
    childChanges(plan) + plan.replaced.length === 0 ? 'No child changes.\n' : '',
  ].join('');
};

/** The verdict of a plan by exit status: its word (JSON) and the last line of the text. */
const VERDICTS: Readonly<Record<number, { readonly word: string; readonly line: string }>> = {
  [EXIT.rendered]: { word: 'carried out', line: 'Verdict: carried out.\n' },
  [EXIT.refused]: {
    word: 'refused',
    line: 'Verdict: refused by the hooks (Ready=False above says what to fix); the live children are kept as they are.\n',
  },
  [EXIT.notCarriedOut]: {
    word: 'not carried out',
    line: 'Verdict: not carried out from the observed status (Ready=False above says why); the live children are kept as they are.\n',
  },
};

/** The exit status of a change the API server accepted, from the parents' Ready at the end. */
const exitOf = (plan: Plan): number => {
  const reasons = plan.parents.map((p) => p.last?.reason ?? '');
  if (reasons.some((r) => REFUSED.has(r))) return EXIT.refused;
  return reasons.some((r) => NOT_CARRIED_OUT.has(r)) ? EXIT.notCarriedOut : EXIT.rendered;
};

/** What a preview found: the exit status, the objects the change wrote, the API server's refusals, the plan. */
export type PreviewResult = {
  readonly exit: number;
  readonly changed: readonly string[];
  readonly refusals: readonly string[];
  readonly plan?: Plan;
  /** What the hooks change in the live objects before the edit: they were not as the hooks want them. */
  readonly drift?: Drift;
};

/** The drift of live objects given with their children: what the hooks change before any edit (undefined: none). */
type Drift = Pick<Plan, 'changed' | 'recreated' | 'created' | 'deleted'>;

const driftOf = (live: Live, seeded: Snapshot, rounds: readonly Snapshot[]): Drift | undefined => {
  if (live.children.length === 0) return undefined;
  const { changed, recreated, created, deleted } = planOf(seeded, rounds, []);
  const drift = { changed, recreated, created, deleted };
  return childChanges(drift) === 0 ? undefined : drift;
};

/**
 * The emulated cluster of a preview, with the live objects in it, brought to where they converge; with the live
 * children given, what that convergence changed (the live objects already differ from what the hooks want).
 */
const liveCluster = async (
  live: Live,
  app: FastifyInstance,
  clock: RenderClock,
  certManager: boolean,
): Promise<{ cluster: Cluster; operators: StandIns; drift?: Drift }> => {
  const cluster = new Cluster({ transport: injectTransport(app), clock: clock.now });
  const operators: StandIns = {
    mariadbOperator: new MariaDBOperatorStandIn(),
    certManager: certManager ? await CertManagerStandIn.start(clock.now()) : undefined,
  };
  seed(cluster, live);
  const seeded = snapshotOf(cluster.store.list());
  const drift = driftOf(live, seeded, await runUntilQuiet(cluster, operators, clock));
  return { cluster, operators, ...(drift !== undefined && { drift }) };
};

/** Checks the change against the live objects, applies it, runs the loop until quiet and reads the plan. */
const previewChange = async (
  live: Live,
  changes: readonly KubeResource[],
  app: FastifyInstance,
  clock: RenderClock,
  certManager: boolean,
): Promise<PreviewResult> => {
  const { cluster, operators, drift } = await liveCluster(live, app, clock, certManager);
  const found = drift !== undefined ? { drift } : {};
  const refusals = apiRefusals(cluster, changes);
  if (refusals.length > 0) return { exit: EXIT.refused, changed: [], refusals, ...found };
  const before = snapshotOf(cluster.store.list());
  const changed = changes.filter((change) => {
    const stored = cluster.store.get(groupKeyOf(change), objectKeyOf(change));
    return cluster.put(asStored(change)).metadata.resourceVersion !== stored?.metadata.resourceVersion;
  });
  if (changed.length === 0) return { exit: EXIT.rendered, changed: [], refusals: [], ...found };
  const rounds = await runUntilQuiet(cluster, operators, clock);
  const after = rounds[rounds.length - 1];
  const parents = [...new Set([...changes.filter(isParent), ...live.objects.filter(isParent)].map(keyOf))].flatMap((k) => before.get(k) ?? after?.get(k) ?? []);
  const plan = planOf(before, rounds, parents, new Set(changed.map(keyOf)));
  return { exit: exitOf(plan), changed: changed.map(describe), refusals: [], plan, ...found };
};

/** The result as text: the refusals, or the plan and its verdict. */
const resultText = (result: PreviewResult, changes: readonly KubeResource[]): string => `${driftText(result.drift)}${changeText(result, changes)}`;

/** The drift, before the plan: children the hooks make, change or delete whatever the edit. */
const driftText = (drift: Drift | undefined): string =>
  drift === undefined
    ? ''
    : [
        'Before the change: the live objects are not what the hooks want, and Metacontroller changes them anyway:\n',
        childSections(drift, [], () => ''),
        '\n',
      ].join('');

const changeText = (result: PreviewResult, changes: readonly KubeResource[]): string => {
  if (result.refusals.length > 0) return `Preview: the API server refuses the change; nothing is applied:\n${result.refusals.map((r) => `  ${r}\n`).join('')}`;
  if (result.plan === undefined) return `Preview: ${changes.map(describe).join(', ')} ${changes.length === 1 ? 'is' : 'are'} as live: no change.\n`;
  return `${planText(result.plan, result.changed)}${VERDICTS[result.exit]?.line ?? ''}`;
};

/** The command: returns the exit status. */
export const runPreview = async (argv: readonly string[], io: RenderIO): Promise<number> => {
  const clock = renderClock(io.deps?.now ?? rfc3339Now);
  let app: FastifyInstance;
  let live: Live;
  let changes: readonly KubeResource[];
  let certManager: boolean;
  let json = false;
  try {
    const options = parsePreviewOptions(argv);
    json = options.json;
    if (options.help) {
      io.stdout(PREVIEW_USAGE);
      return EXIT.rendered;
    }
    live = await readLive(options, io);
    changes = await readChanges(options, io);
    const env = io.env ?? {};
    const {
      tls: _tls,
      auth: _auth,
      ...config
    } = loadConfig({
      ...env,
      ...operatorSettings([...new Map([...live.objects, ...changes].map((o) => [keyOf(o), o])).values()], env, io),
      LOG_LEVEL: 'silent',
    });
    certManager = config.render.certManager === true;
    app = buildServer(config, { ...io.deps, now: clock.now, logger: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(error instanceof UsageError ? usageErrorText({ subcommand: 'preview', message, env: io.env ?? {} }) : `ironic-render preview: ${message}\n`);
    return EXIT.usage;
  }
  try {
    if (live.children.length === 0) io.stderr(`note: no children of the parents in the live input: the preview starts from the state they converge to\n`);
    const result = await previewChange(live, changes, app, clock, certManager);
    io.stdout(json ? `${JSON.stringify({ verdict: VERDICTS[result.exit]?.word ?? 'refused', ...result }, undefined, 2)}\n` : resultText(result, changes));
    return result.exit;
  } finally {
    await app.close();
  }
};
