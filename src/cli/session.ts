/**
 * What `ironic-render` and `ironic-render preview` share: the command's I/O and exit statuses, the hook server
 * reached in process, the stand-ins of the operators and the kubelet between rounds, the optional operators an
 * input asks for, and the clock of a render.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../server.js';
import type { Cluster, HookTransport } from './cluster.js';
import { CONTROLLERS } from './controllers.js';
import { wordList } from '../kinds/index.js';
import { settledStatus } from './kubelet.js';
import { reconcileCronJobs } from './cron-jobs.js';
import type { CertManagerStandIn } from './cert-manager.js';
import type { MariaDBOperatorStandIn } from './mariadb-operator.js';
import { describe, groupKeyOf, type Json, type KubeResource } from './objects.js';
import type { Input } from './documents.js';
import { CACHE_REASONS } from '../render/image-cache/status.js';
import { DATABASE_REASONS } from '../render/database/status.js';
import { IRONIC_REASONS } from '../render/ironic/status.js';
import { findCondition, REFUSAL_REASONS } from '../render/status.js';
import { pathOf } from '../render/observed.js';
import { READY_CONDITION } from '../api/shared/common.js';

/** Whether an object is a parent of one of the controllers. */
export const isParent = (object: KubeResource): boolean => CONTROLLERS.some((c) => c.parentGroup === groupKeyOf(object));

/** Everything the command touches, injectable for tests. */
export type RenderIO = {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: () => Promise<string>;
  readonly readFile: (path: string) => Promise<string>;
  readonly env?: NodeJS.ProcessEnv;
  /** Replaces the random passwords, bcrypt and the clock of the hook server (tests). */
  readonly deps?: Pick<ServerDeps, 'secrets' | 'now'>;
};

/** The exit statuses of the command (USAGE documents them). */
export const EXIT = { rendered: 0, refused: 1, usage: 2, notCarriedOut: 3 } as const;

/** Ready reasons of an object the hooks refuse as it is (exit 1). */
export const REFUSED = new Set<string>([IRONIC_REASONS.invalidSpec, IRONIC_REASONS.missingReference, IRONIC_REASONS.invalidReference]);
/** Ready reasons of a valid object the hooks do not carry out from the status they observe (exit 3). */
export const NOT_CARRIED_OUT = new Set<string>([IRONIC_REASONS.failed, DATABASE_REASONS.failed, CACHE_REASONS.failed, REFUSAL_REASONS.conflict]);

export const injectTransport =
  (app: FastifyInstance): HookTransport =>
  async (path, body) => {
    const response = await app.inject({ method: 'POST', url: path, payload: body, headers: { 'content-type': 'application/json' } });
    let parsed: unknown = response.body;
    try {
      parsed = response.json();
    } catch {
      // not JSON: reported as it is
    }
    return { statusCode: response.statusCode, body: parsed };
  };

/** A parent's Ready condition, as the CLI reports it. */
export type Ready = { readonly status: string; readonly reason: string; readonly message: string };

/** The Ready condition of a status: `status`, `reason` and `message`. */
export const readyOf = (status: Json | undefined): Ready | undefined => {
  const ready = findCondition(status, READY_CONDITION);
  return ready !== undefined ? { status: String(ready.status), reason: String(ready.reason), message: String(ready.message) } : undefined;
};

/** `Ready=<status> <reason>: <message>`, or that there is none. */
export const readyText = (ready: Ready | undefined): string =>
  ready === undefined ? 'no Ready condition' : `Ready=${ready.status} ${ready.reason}: ${ready.message}`;

/** The stand-ins of the operators the hooks create objects for. */
export type StandIns = { readonly mariadbOperator: MariaDBOperatorStandIn; readonly certManager: CertManagerStandIn | undefined };

/**
 * CronJobs start the Jobs their schedule has by `now`; workloads become ready and Jobs complete, as their
 * controllers and the kubelet would make them; mariadb-operator and cert-manager reconcile.
 */
export const settle = (cluster: Cluster, operators: StandIns, now: string): readonly string[] => {
  const { started } = reconcileCronJobs(cluster.store, now);
  for (const object of cluster.store.list()) {
    const status = settledStatus(object, now);
    if (status !== undefined) cluster.store.updateStatus(object, status);
  }
  operators.mariadbOperator.reconcile(cluster.store, now);
  operators.certManager?.reconcile(cluster, now);
  return started;
};

/** An optional operator an input can ask for: the setting of the hook server, and which objects ask for it. */
type OptionalOperator = {
  readonly setting: 'CERT_MANAGER' | 'MARIADB_OPERATOR';
  readonly name: string;
  readonly field: string;
  readonly deploy: string;
  readonly asks: (object: KubeResource) => boolean;
};

const OPTIONAL_OPERATORS: readonly OptionalOperator[] = [
  {
    setting: 'CERT_MANAGER',
    name: 'cert-manager',
    field: 'spec.tls.issuerRef',
    deploy: 'deploy/components/cert-manager',
    asks: (o) => o.kind === 'Ironic' && pathOf(o, 'spec', 'tls', 'issuerRef') !== undefined,
  },
  {
    setting: 'MARIADB_OPERATOR',
    name: 'mariadb-operator',
    field: 'spec.engine: MariaDBOperator',
    deploy: 'deploy/overlays/mariadb-operator',
    asks: (o) => o.kind === 'IronicDatabase' && pathOf(o, 'spec', 'engine') === 'MariaDBOperator',
  },
];

/**
 * The settings that turn on the optional operators the input asks for, unless the environment sets them: the
 * render then plays those operators, as a cluster with them installed would run. A note says so.
 */
export const operatorSettings = (objects: readonly KubeResource[], env: NodeJS.ProcessEnv, io: RenderIO): Record<string, string> => {
  const settings: Record<string, string> = {};
  for (const operator of OPTIONAL_OPERATORS) {
    const asking = objects.filter(isParent).filter(operator.asks);
    if (asking.length === 0 || env[operator.setting] !== undefined) continue;
    settings[operator.setting] = 'true';
    io.stderr(
      `note: ${wordList(asking.map(describe))} ${asking.length === 1 ? 'asks' : 'ask'} for ${operator.name} (${operator.field}): the render plays it ` +
        `(${operator.setting}=false turns that off); a cluster needs ${operator.name} and ${operator.deploy}\n`,
    );
  }
  return settings;
};

/** The clock of the render (the hook server's and the cluster's): the wall clock, or the tests', moved forward by --advance. */
export type RenderClock = { readonly now: () => string; readonly advance: (seconds: number) => void };

export const renderClock = (base: () => string): RenderClock => {
  let offset = 0;
  return {
    now: () => (offset === 0 ? base() : new Date(Date.parse(base()) + offset * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    advance: (seconds) => {
      offset += seconds;
    },
  };
};

/** The texts of the files of a command line (`-` is standard input), or an Error naming the one that cannot be read. */
export const readInputs = async (files: readonly string[], io: RenderIO): Promise<Input[]> => {
  const inputs: Input[] = [];
  for (const file of files) {
    try {
      inputs.push({ source: file === '-' ? 'standard input' : file, file, text: file === '-' ? await io.stdin() : await io.readFile(file) });
    } catch (error) {
      throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return inputs;
};
