/**
 * Fleet scale (issue 28) as tables: the database connection budget holds for the number of conductors it is
 * sized for, on both engines; the conductor's heartbeats, shutdown and logging reach ironic.conf as
 * oslo.config overrides the user's extraConfig still wins over; the pod gives the conductor the time its
 * stop takes.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { ParentView } from '../../src/render/parent.js';
import type { KubeChild } from '../../src/render/child.js';
import type { RenderConfig } from '../../src/render/config.js';
import { finishDatabase, prepareDatabase } from '../../src/render/database/plan.js';
import { parseIronic } from '../../src/api/ironic/parse.js';
import { ADMIN_CONNECTIONS, DATABASE_STALL_SECONDS, DEFAULT_MAX_CONDUCTORS, JOB_CONNECTIONS, MAX_CONDUCTORS_LIMIT } from '../../src/api/shared/constants.js';
import { PRE_STOP_SECONDS, STOP_STEPS } from '../../src/render/ironic/conductor.js';
import { FIXED_NOW, testConfig, type Obj } from '../helpers/hooks.js';
import { containerOf, envOf, podOf, syncFor } from '../helpers/render.js';
import { WITH_MARIADB_OPERATOR } from '../fixtures/database-scenarios.js';
import { present, stringAt, valueAt } from '../support/paths.js';

const BUILTIN = testConfig().render;
const OPERATOR = testConfig(WITH_MARIADB_OPERATOR).render;
const externalDatabase = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };

const view = (spec: unknown): ParentView => ({
  name: 'ironic-db',
  namespace: 'metal3',
  uid: 'database-uid',
  finalizers: [],
  generation: 1,
  spec,
  status: undefined,
  children: {},
  related: {},
  now: FIXED_NOW,
});

const databaseChildren = (spec: Obj, config: RenderConfig): KubeChild[] => {
  const v = view(spec);
  return finishDatabase(v, prepareDatabase(v), 'generated_password-1', config).children;
};

const childOfKind = (children: readonly KubeChild[], kind: string): KubeChild =>
  present(
    children.find((c) => c.kind === kind),
    kind,
  );

/** `name = value` settings of a MariaDB configuration file. */
const settings = (cnf: string): Record<string, number> =>
  Object.fromEntries(
    cnf
      .split('\n')
      .map((line) => /^(\w+) = (\d+)$/.exec(line))
      .flatMap((m) => (m?.[1] !== undefined && m[2] !== undefined ? [[m[1], Number(m[2])]] : [])),
  );

type Limits = { readonly maxConnections: number; readonly maxUserConnections: number };

const builtinLimits = (conductors: number): Limits => {
  const s = settings(stringAt(childOfKind(databaseChildren({ maxConductors: conductors }, BUILTIN), 'ConfigMap'), 'data', 'ironic-database.cnf'));
  return { maxConnections: present(s['max_connections']), maxUserConnections: present(s['max_user_connections']) };
};

const galeraLimits = (conductors: number): Limits => {
  const children = databaseChildren({ engine: 'MariaDBOperator', maxConductors: conductors }, OPERATOR);
  const s = settings(stringAt(childOfKind(children, 'MariaDB'), 'spec', 'myCnf'));
  const user = valueAt(childOfKind(children, 'User'), 'spec', 'maxUserConnections');
  if (typeof user !== 'number') throw new Error('no maxUserConnections');
  return { maxConnections: present(s['max_connections']), maxUserConnections: Math.min(user, present(s['max_user_connections'])) };
};

/** The most connections one conductor of an HA Ironic opens, from the variables it is rendered with. */
const connectionsPerConductor = async (): Promise<number> => {
  const response = await syncFor({ highAvailability: true, database: externalDatabase });
  const e = envOf(containerOf(podOf(response.children), 'ironic'));
  return Number(present(e['OS_DATABASE__MAX_POOL_SIZE'])) + Number(present(e['OS_DATABASE__MAX_OVERFLOW']));
};

void t.test('the connection budget holds for the conductors it is sized for, and no more', async (t) => {
  const perConductor = await connectionsPerConductor();
  t.equal(perConductor, 30, 'each conductor opens at most pool (10) + overflow (20)');
  for (const conductors of [1, 2, 3, 4, 5, 8, 16, MAX_CONDUCTORS_LIMIT]) {
    for (const [engine, limits] of [
      ['Builtin', builtinLimits(conductors)],
      ['MariaDBOperator', galeraLimits(conductors)],
    ] as const) {
      const ironicUser = conductors * perConductor + JOB_CONNECTIONS;
      t.ok(ironicUser <= limits.maxUserConnections, `${engine}, ${conductors} conductors: the Ironic user may open ${ironicUser}`);
      t.ok(
        limits.maxUserConnections + ADMIN_CONNECTIONS <= limits.maxConnections,
        `${engine}, ${conductors} conductors: ${ADMIN_CONNECTIONS} connections stay free for administration`,
      );
      t.ok((conductors + 1) * perConductor + JOB_CONNECTIONS > limits.maxUserConnections, `${engine}: one conductor more needs a larger maxConductors`);
    }
  }
});

void t.test('the defaults: three conductors, 110 connections of which 100 for Ironic', async (t) => {
  t.equal(DEFAULT_MAX_CONDUCTORS, 3);
  t.same(builtinLimits(DEFAULT_MAX_CONDUCTORS), { maxConnections: 110, maxUserConnections: 100 });
  const v = view({});
  const cnf = stringAt(
    childOfKind(finishDatabase(v, prepareDatabase(v), 'generated_password-1', BUILTIN).children, 'ConfigMap'),
    'data',
    'ironic-database.cnf',
  );
  t.match(cnf, /^max_connections = 110$/m, 'an unset maxConductors is 3');
});

void t.test('maxConductors outside 1..64 is refused with the field named', async (t) => {
  for (const maxConductors of [0, MAX_CONDUCTORS_LIMIT + 1]) {
    const v = view({ maxConductors });
    const result = finishDatabase(v, prepareDatabase(v), 'generated_password-1', BUILTIN);
    t.match(JSON.stringify(result.status), /maxConductors/, `${maxConductors} is reported`);
    t.equal(result.children.length, 0, 'and nothing is rendered from it');
  }
});

void t.test('the pool is rendered only for MariaDB (SQLite has none)', async (t) => {
  const e = envOf(containerOf(podOf((await syncFor({})).children), 'ironic'));
  t.notOk('OS_DATABASE__MAX_POOL_SIZE' in e);
  t.notOk('OS_DATABASE__MAX_OVERFLOW' in e);
  t.notOk('OS_DATABASE__POOL_TIMEOUT' in e);
});

/**
 * One row: the spec, what reaches the ironic container, the grace period, and with a database the pool timeout
 * and the longest stall the heartbeats outlast (timeout - interval - pool timeout: a heartbeat waits behind the
 * queue of its pool at most the pool timeout, and the next one comes an interval after a failed one).
 */
type ConductorCase = {
  readonly spec: Obj;
  readonly env: Record<string, string>;
  readonly grace: number;
  readonly poolTimeout: number;
  readonly stallOutlasted: number;
};

const conductorCases: ConductorCase[] = [
  {
    spec: {},
    env: {
      OS_CONDUCTOR__HEARTBEAT_INTERVAL: '5',
      OS_CONDUCTOR__HEARTBEAT_TIMEOUT: '30',
      OS_CONDUCTOR__GRACEFUL_SHUTDOWN_TIMEOUT: '60',
      OS_DEFAULT__GRACEFUL_SHUTDOWN_TIMEOUT: '85',
      OS_DEFAULT__DEBUG: 'false',
      OS_AGENT__DEPLOY_LOGS_COLLECT: 'on_failure',
    },
    grace: 95,
    poolTimeout: 5,
    stallOutlasted: 20,
  },
  {
    spec: { conductor: { heartbeatInterval: 10, heartbeatTimeout: 60, shutdownTimeout: 300 }, logging: { debug: true, deployLogs: 'always' } },
    env: {
      OS_CONDUCTOR__HEARTBEAT_INTERVAL: '10',
      OS_CONDUCTOR__HEARTBEAT_TIMEOUT: '60',
      OS_CONDUCTOR__GRACEFUL_SHUTDOWN_TIMEOUT: '300',
      OS_DEFAULT__GRACEFUL_SHUTDOWN_TIMEOUT: '325',
      OS_DEFAULT__DEBUG: 'true',
      OS_AGENT__DEPLOY_LOGS_COLLECT: 'always',
    },
    grace: 335,
    poolTimeout: 30,
    stallOutlasted: 20,
  },
  {
    // The smallest timeout the CRD allows for a 10 s interval: the pool waits 1 s, and the stall outlasted is 19 s.
    spec: { conductor: { heartbeatInterval: 10, heartbeatTimeout: 30 } },
    env: { OS_CONDUCTOR__HEARTBEAT_INTERVAL: '10', OS_CONDUCTOR__HEARTBEAT_TIMEOUT: '30' },
    grace: 95,
    poolTimeout: 1,
    stallOutlasted: 19,
  },
  {
    spec: { conductor: { shutdownTimeout: 1 }, logging: { deployLogs: 'never' } },
    env: { OS_CONDUCTOR__GRACEFUL_SHUTDOWN_TIMEOUT: '1', OS_DEFAULT__GRACEFUL_SHUTDOWN_TIMEOUT: '26', OS_AGENT__DEPLOY_LOGS_COLLECT: 'never' },
    grace: 36,
    poolTimeout: 5,
    stallOutlasted: 20,
  },
];

void t.test('heartbeats, shutdown and logging reach the ironic container; the pod waits for the whole stop', async (t) => {
  for (const c of conductorCases) {
    for (const ha of [false, true]) {
      const spec = ha ? { ...c.spec, highAvailability: true, database: externalDatabase } : c.spec;
      const pod = podOf((await syncFor(spec)).children);
      const ironic = containerOf(pod, 'ironic');
      t.match(envOf(ironic), c.env, `${JSON.stringify(c.spec)} (HA ${ha}): variables`);
      t.equal(pod.terminationGracePeriodSeconds, c.grace, 'terminationGracePeriodSeconds');
      const parentBound = Number(present(envOf(ironic)['OS_DEFAULT__GRACEFUL_SHUTDOWN_TIMEOUT']));
      const conductorBound = Number(present(envOf(ironic)['OS_CONDUCTOR__GRACEFUL_SHUTDOWN_TIMEOUT']));
      // The conductor's stop: the hash ring wait and the servers' stop, then its own timeout.
      t.ok(parentBound >= Math.max(conductorBound, 22) + 1, 'oslo.service does not kill the conductor before it is done');
      t.ok(present(pod.terminationGracePeriodSeconds) > PRE_STOP_SECONDS + parentBound, 'Kubernetes does not kill the parent before it is done');
      const { ringWait, serversStop } = STOP_STEPS;
      t.ok(parentBound >= conductorBound + ringWait + serversStop, `the stop's steps fit: ${conductorBound} + ${ringWait} + ${serversStop} ≤ ${parentBound}`);
      const e = envOf(ironic);
      if (ha) {
        const [interval, timeout, pool] = ['OS_CONDUCTOR__HEARTBEAT_INTERVAL', 'OS_CONDUCTOR__HEARTBEAT_TIMEOUT', 'OS_DATABASE__POOL_TIMEOUT'].map((k) =>
          Number(e[k]),
        );
        t.equal(pool, c.poolTimeout, '[database] pool_timeout');
        t.equal(
          present(timeout) - present(interval) - present(pool),
          c.stallOutlasted,
          `a heartbeat is late by at most interval + stall + pool timeout: ${interval} + ${c.stallOutlasted} + ${pool} = ${timeout}`,
        );
        t.ok(c.stallOutlasted >= DATABASE_STALL_SECONDS, `the measured ${DATABASE_STALL_SECONDS} s stall is outlasted`);
        t.equal(e['OS_DEFAULT__HASH_RING_RESET_INTERVAL'], String(ringWait), 'the hash ring is rebuilt as often as the stop waits for it');
      } else t.notOk('OS_DEFAULT__HASH_RING_RESET_INTERVAL' in e, 'one conductor has no ring to share');
      for (const name of ['ironic', 'httpd']) {
        t.same(
          containerOf(pod, name)?.lifecycle?.preStop?.exec?.command,
          ['sleep', String(PRE_STOP_SECONDS)],
          `${name} keeps serving while the endpoints update`,
        );
      }
    }
  }
});

void t.test("the user's extraConfig wins over the rendered settings", async (t) => {
  const e = envOf(
    containerOf(
      podOf(
        (
          await syncFor({
            logging: { debug: false },
            extraConfig: [
              { group: 'DEFAULT', name: 'debug', value: 'true' },
              { group: 'conductor', name: 'heartbeat_timeout', value: '120' },
            ],
          })
        ).children,
      ),
      'ironic',
    ),
  );
  t.equal(e['OS_DEFAULT__DEBUG'], 'true');
  t.equal(e['OS_CONDUCTOR__HEARTBEAT_TIMEOUT'], '120');
});

const heartbeatCases: { readonly conductor: Obj; readonly ok: boolean }[] = [
  { conductor: {}, ok: true },
  { conductor: { heartbeatInterval: 10 }, ok: true },
  { conductor: { heartbeatInterval: 11 }, ok: false },
  { conductor: { heartbeatTimeout: 15 }, ok: true },
  { conductor: { heartbeatTimeout: 14 }, ok: false },
  { conductor: { heartbeatInterval: 20, heartbeatTimeout: 60 }, ok: true },
  { conductor: { heartbeatInterval: 0 }, ok: false },
  { conductor: { shutdownTimeout: 0 }, ok: false },
  { conductor: { shutdownTimeout: 3601 }, ok: false },
];

void t.test('heartbeatTimeout covers at least three heartbeats; out-of-range values are refused', async (t) => {
  for (const c of heartbeatCases) {
    const parsed = parseIronic({ conductor: c.conductor });
    t.equal(parsed.ok, c.ok, JSON.stringify(c.conductor));
    if (!parsed.ok) t.match(parsed.problems[0]?.path, /^spec\.conductor/, 'the problem names the field');
  }
  const parsed = parseIronic({ conductor: { heartbeatInterval: 11 } });
  t.match(parsed.ok ? '' : parsed.problems[0]?.message, /at least 3 times heartbeatInterval \(11\).*raise heartbeatTimeout to 33/);
});

void t.test('logging.deployLogs accepts only what Ironic does', async (t) => {
  t.notOk(parseIronic({ logging: { deployLogs: 'sometimes' } }).ok);
  t.ok(parseIronic({ logging: { deployLogs: 'never', debug: true } }).ok);
});

void t.test("the README's budget table is what the database renders", async (t) => {
  const section = present(/### Sizing\n([\s\S]*?)\n### /.exec(readFileSync('README.md', 'utf8'))?.[1], 'the Sizing section');
  const rows = [...section.matchAll(/^\| (\d+)(?: \(default\))? *\| (\d+) *\| (\d+) *\|$/gm)];
  t.ok(rows.length >= 3, `${rows.length} rows`);
  for (const [, conductors, user, all] of rows) {
    t.same(builtinLimits(Number(conductors)), { maxConnections: Number(all), maxUserConnections: Number(user) }, `${conductors} conductors`);
  }
});
