#!/usr/bin/env node
/**
 * `ironic-render`: what the hooks make of parent objects (every kind of src/kinds), without a cluster. Reads
 * YAML files, runs customize → sync through the hook server in process (app.inject, no network) the
 * way Metacontroller would, and prints the children as YAML for `kubectl apply -f -`, each parent's
 * status as comments. `--rounds N` replays Metacontroller's loop with every workload becoming ready; with
 * `--advance DURATION` the clock moves between rounds, and CronJobs (scheduled backups) start their Jobs.
 *
 * Exit codes (EXIT): 0 rendered; 1 the API server (unknown kind of our group, unknown field, the CRD's schema or CEL rules) or the hooks
 * refused an object (invalid spec, missing or invalid reference, failed hook); 2 bad usage or unreadable input; 3 the hooks
 * refused a change from the observed status (a downgrade of the installed version), an object in the way or a failure.
 */
import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../config.js';
import { buildServer, rfc3339Now } from '../server.js';
import { admissionRefusals } from './admission.js';
import { Cluster, type SyncOutcome, type Write } from './cluster.js';
import { PARENT_KINDS, wordList } from '../kinds/index.js';
import { isNamespaceName, migrateCommand, readObjects, type ReadResult } from './documents.js';
import { CertManagerStandIn } from './cert-manager.js';
import { MariaDBOperatorStandIn } from './mariadb-operator.js';
import { describe, groupKeyOf, isRecord, objectKeyOf, type KubeResource } from './objects.js';
import { runMigrate } from './migrate.js';
import { runPreview } from './preview.js';
import {
  EXIT,
  injectTransport,
  isParent,
  NOT_CARRIED_OUT,
  operatorSettings,
  readInputs,
  readyOf,
  readyText,
  REFUSED,
  renderClock,
  settle,
  type RenderClock,
  type RenderIO,
  type StandIns,
} from './session.js';

export { EXIT, type RenderIO } from './session.js';
import { commandOptions, usageErrorText, UsageError } from './usage.js';

/** The parent kinds, e.g. `Ironic and IronicDatabase`. */
const PARENT_NAMES = PARENT_KINDS.map((k) => k.kind);

export const USAGE = `Usage: ironic-render -f FILE [-f FILE ...] [-n NAMESPACE] [--rounds N [--advance DURATION]]
       ironic-render migrate -f FILE    (objects of ironic-standalone-operator; see migrate --help)
       ironic-render preview -f LIVE --change FILE    (what a change of live objects will do; see preview --help)

Runs the ${wordList(PARENT_NAMES)} objects of the files through the hooks, as Metacontroller would,
without a cluster, and prints the children they get as YAML for \`kubectl apply -f -\`, each parent's
status as comments. Secrets and ConfigMaps in the files are what the objects refer to; other kinds are
ignored. A status in the files (from \`kubectl get -o yaml\`) is what the hooks observe, e.g. the
installed version. An object that needs cert-manager (an Ironic's spec.tls.issuerRef) or mariadb-operator
(an IronicDatabase's engine MariaDBOperator) turns on CERT_MANAGER or MARIADB_OPERATOR and a stand-in
of that operator, with a note, unless the environment sets the variable.

Options:
  -f, --filename FILE    a YAML file (several documents allowed); - reads standard input
  -n, --namespace NAME   namespace of objects that have none (default: default)
      --rounds N         replay Metacontroller's loop N times (1-100): children are applied, workloads
                         become ready and Jobs complete, and the status is fed back; prints what each
                         round created, updated and deleted, then the final children
      --advance DURATION with --rounds: the clock moves forward by DURATION (like 30m, 6h or 1d)
                         before each round after the first, and CronJobs start the Jobs their
                         schedule has by then (the IronicDatabase's scheduled backups)
  -h, --help             print this help

Exit status: 0 rendered; 1 an object is refused by the API server (a kind of ironic.metal3.io it does not
serve, an unknown field, the CRD's schema or rules) or by the hooks (invalid spec, missing or invalid reference); 2 bad usage or unreadable input;
3 the hooks refuse to carry out a valid object from the status they observe (Ready=False with DeploymentFailed,
DatabaseFailed, CacheFailed or ResourceConflict: a downgrade of the installed version, an object in the way).
`;

const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' } as const;
const MAX_ROUNDS = 100;

type Options = {
  readonly files: readonly string[];
  readonly namespace: string;
  readonly rounds: number | undefined;
  /** Seconds the clock moves before each round after the first. */
  readonly advance: number;
  readonly help: boolean;
};

const parseRounds = (raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  const rounds = Number(raw);
  if (!/^\d+$/.test(raw) || rounds < 1 || rounds > MAX_ROUNDS) throw new UsageError(`--rounds must be a whole number from 1 to ${MAX_ROUNDS}, got "${raw}"`);
  return rounds;
};

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };
/** The longest --advance: a year. */
const MAX_ADVANCE_SECONDS = 366 * 86400;

const parseAdvance = (raw: string | undefined, rounds: number | undefined): number => {
  if (raw === undefined) return 0;
  if (rounds === undefined) throw new UsageError('--advance needs --rounds: the clock moves between rounds');
  const match = /^([0-9]{1,9})(s|m|h|d)$/.exec(raw);
  const seconds = match === null ? Number.NaN : Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? Number.NaN);
  if (!(seconds > 0 && seconds <= MAX_ADVANCE_SECONDS))
    throw new UsageError(`--advance must be a duration from 1s to 366d, a whole number and a unit (s, m, h or d) like 30m or 1d, got "${raw}"`);
  return seconds;
};

/** The options, or a UsageError. */
export const parseOptions = (argv: readonly string[]): Options => {
  const values = commandOptions(argv, {
    filename: { type: 'string', short: 'f', multiple: true },
    namespace: { type: 'string', short: 'n' },
    rounds: { type: 'string' },
    advance: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const files = values.filename ?? [];
  const namespace = values.namespace ?? 'default';
  if (values.help !== true && files.length === 0) throw new UsageError('give at least one file with -f (or -f - for standard input)');
  if (files.filter((f) => f === '-').length > 1) throw new UsageError('standard input (-f -) can be read only once');
  if (!isNamespaceName(namespace)) throw new UsageError(`--namespace "${namespace}" is not a valid namespace name`);
  const rounds = parseRounds(values.rounds);
  return { files, namespace, rounds, advance: parseAdvance(values.advance, rounds), help: values.help === true };
};

/** The objects of the files, or an Error whose message lists what is wrong. */
const loadObjects = async (options: Options, io: RenderIO): Promise<ReadResult> => {
  const result = readObjects(await readInputs(options.files, io), options.namespace);
  result.warnings.forEach((w) => io.stderr(`warning: ${w}\n`));
  if (result.errors.length > 0) throw new Error(result.errors.join('\n'));
  return result;
};

/** Why nothing can be rendered: no parent, and what to run when the input holds ironic-standalone-operator's objects. */
const noParentMessage = (proposal: ReadResult['proposal']): string => {
  const none = `no ${wordList(PARENT_NAMES, 'or')} object in the input`;
  if (proposal.length === 0) return `${none}\n`;
  const objects = wordList(proposal.map((p) => p.object));
  return (
    `${none}: ${objects} ${proposal.length === 1 ? 'is' : 'are'} of ironic-standalone-operator (metal3.io/v1alpha1); convert, then render the result:\n` +
    `  ${migrateCommand(proposal.map((p) => p.file))}\n  npm run render -- -f new.yaml\n`
  );
};

/** Why a parent is not rendered, and the exit status that says so; undefined when it is. */
const refusal = (outcome: SyncOutcome): { readonly message: string; readonly exit: number } | undefined => {
  if (outcome.error !== undefined) return { message: `${outcome.parent}: the ${outcome.hook} hook failed: ${outcome.error}`, exit: EXIT.refused };
  const ready = readyOf(outcome.status);
  if (ready === undefined || ready.status === 'True') return undefined;
  const message = `${outcome.parent}: ${ready.reason}: ${ready.message}`;
  if (REFUSED.has(ready.reason)) return { message, exit: EXIT.refused };
  return NOT_CARRIED_OUT.has(ready.reason) ? { message, exit: EXIT.notCarriedOut } : undefined;
};

const count = (writes: readonly Write[], verb: Write['verb']): number => writes.filter((w) => w.verb === verb).length;

const roundLine = (round: number, outcome: SyncOutcome): string => {
  const state = outcome.error !== undefined ? `sync failed: ${outcome.error}` : readyText(readyOf(outcome.status));
  const writes = outcome.writes;
  const status = count(writes, 'status') > 0 ? ', status written' : '';
  const changes =
    writes.length === 0 ? 'no writes' : `${count(writes, 'create')} created, ${count(writes, 'update')} updated, ${count(writes, 'delete')} deleted${status}`;
  return `# round ${round}: ${outcome.parent}: ${changes}; ${state}\n`;
};

/** A desired child as it would be applied without Metacontroller: without the controller-uid label it adds. */
const withoutControllerLabel = (child: KubeResource): KubeResource => {
  const { 'controller-uid': _uid, ...labels } = child.metadata.labels ?? {};
  const { labels: _labels, ...metadata } = child.metadata;
  return { ...child, metadata: { ...metadata, ...(Object.keys(labels).length > 0 && { labels }) } };
};

const commented = (text: string): string =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `#   ${line}`)
    .join('\n');

/** The parent's status as comments, then its children (as the hooks last returned them). */
const parentSection = (outcome: SyncOutcome): string => {
  const summary = readyText(readyOf(outcome.status));
  const pending = outcome.pending.length > 0 ? `# not updated (OnDelete): ${outcome.pending.join(', ')}\n` : '';
  const header = `# ${outcome.parent}: ${summary}\n${pending}# status:\n${commented(stringify(outcome.status ?? {}, YAML_OPTIONS))}\n`;
  return [header, ...outcome.desired.map((c) => stringify(withoutControllerLabel(c), YAML_OPTIONS))].join('---\n');
};

/** Runs the rounds; returns the last outcome of each parent, in the order of the input. */
const runRounds = async (
  cluster: Cluster,
  parents: readonly KubeResource[],
  options: Options & { readonly certManager: boolean },
  clock: RenderClock,
  out: string[],
): Promise<SyncOutcome[]> => {
  const now = clock.now;
  const last = new Map<string, SyncOutcome>();
  const operators: StandIns = {
    mariadbOperator: new MariaDBOperatorStandIn(),
    certManager: options.certManager && options.rounds !== undefined ? await CertManagerStandIn.start(now()) : undefined,
  };
  for (let round = 1; round <= (options.rounds ?? 1); round += 1) {
    if (round > 1) {
      clock.advance(options.advance);
      const started = settle(cluster, operators, now());
      if (options.rounds !== undefined) out.push(...started.map((job) => `# round ${round}: ${now()}: the CronJob started Job ${job}, which ran\n`));
    }
    for (const outcome of (await cluster.round()).syncs) {
      last.set(outcome.parent, outcome);
      if (options.rounds !== undefined) out.push(roundLine(round, outcome));
    }
  }
  return parents.flatMap((parent) => last.get(describe(parent)) ?? []);
};

const hintForEmpty = (outcomes: readonly SyncOutcome[], io: RenderIO): void => {
  for (const outcome of outcomes) {
    if (outcome.desired.length === 0) {
      io.stderr(
        `note: ${outcome.parent} has no children yet (${readyOf(outcome.status)?.message ?? 'no status'}); --rounds 8 replays the loop until its workloads are ready\n`,
      );
    }
  }
};

const render = async (
  options: Options & { readonly certManager: boolean },
  input: ReadResult,
  io: RenderIO,
  app: FastifyInstance,
  clock: RenderClock,
): Promise<number> => {
  const { objects } = input;
  // As `kubectl apply` would: kinds the API does not serve, unknown fields, the CRD's schema and CEL rules, before any hook runs.
  const invalid = [...input.refused, ...admissionRefusals(objects)];
  if (invalid.length > 0) {
    invalid.forEach((line) => io.stderr(`ironic-render: ${line}\n`));
    return EXIT.refused;
  }
  const cluster = new Cluster({ transport: injectTransport(app), clock: clock.now });
  // A status in the input (from `kubectl get -o yaml`) is what the hooks observe, e.g. installedVersion.
  objects.forEach((o) => {
    const created = cluster.put(o);
    if (isRecord(o['status'])) cluster.store.updateStatus(created, o['status']);
  });
  const parents = objects.filter(isParent).map((p) => cluster.store.get(groupKeyOf(p), objectKeyOf(p)) ?? p);
  if (parents.length === 0) {
    io.stderr(`ironic-render: ${noParentMessage(input.proposal)}`);
    return EXIT.usage;
  }
  const rounds: string[] = [];
  const outcomes = await runRounds(cluster, parents, options, clock, rounds);
  const refusals = outcomes.map(refusal).filter((r) => r !== undefined);
  if (refusals.length > 0) {
    refusals.forEach((r) => io.stderr(`ironic-render: ${r.message}\n`));
    return Math.min(...refusals.map((r) => r.exit));
  }
  outcomes.flatMap((o) => o.warnings.map((w) => `${o.parent}: ${w}`)).forEach((w) => io.stderr(`warning: ${w}\n`));
  if (options.rounds === undefined) hintForEmpty(outcomes, io);
  const sections = outcomes.map(parentSection).join('---\n');
  io.stdout(rounds.length > 0 ? `${rounds.join('')}#\n${sections}` : sections);
  return EXIT.rendered;
};

/** The command: returns the exit status. */
export const runRender = async (argv: readonly string[], io: RenderIO): Promise<number> => {
  if (argv[0] === 'migrate') return runMigrate(argv.slice(1), io);
  if (argv[0] === 'preview') return runPreview(argv.slice(1), io);
  let options: Options;
  let input: ReadResult;
  let app: FastifyInstance;
  let certManager: boolean;
  const clock = renderClock(io.deps?.now ?? rfc3339Now);
  try {
    options = parseOptions(argv);
    if (options.help) {
      io.stdout(USAGE);
      return EXIT.rendered;
    }
    input = await loadObjects(options, io);
    // The render never serves: the listener's TLS and authentication settings do not apply to it.
    const env = io.env ?? {};
    const { tls: _tls, auth: _auth, ...config } = loadConfig({ ...env, ...operatorSettings(input.objects, env, io), LOG_LEVEL: 'silent' });
    certManager = config.render.certManager === true;
    app = buildServer(config, { ...io.deps, now: clock.now, logger: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) io.stderr(usageErrorText({ message, env: io.env ?? {} }));
    else io.stderr(`ironic-render: ${error instanceof ConfigError ? `invalid configuration: ${message}` : message}\n`);
    return EXIT.usage;
  }
  try {
    return await render({ ...options, certManager }, input, io, app, clock);
  } finally {
    await app.close();
  }
};

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
};

/** True when this module is the program (also through the npm bin symlink), not an import. */
const isMain = (): boolean => {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
};

if (isMain()) {
  process.exitCode = await runRender(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
    readFile: (path) => readFile(path, 'utf8'),
    env: process.env,
  });
}
