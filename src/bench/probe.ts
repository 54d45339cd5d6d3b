/**
 * A fuzz, load and shutdown probe of the hook server over real HTTP on 127.0.0.1 (`npm run probe`; not part
 * of the tests). Bounded in count and time; it prints one line per figure:
 *
 * - fuzz: mutated bodies (a value replaced by another type, a huge string, a deep array, a dropped key, a
 *   `__proto__` or `constructor.prototype` key) over every hook route (three per parent kind), and how many were a 5xx;
 * - load: steady sync calls at concurrency 32 on keep-alive connections, p50 and p99, and the RSS after;
 * - shutdown: the same load while the server drains and closes; calls reset instead of answered.
 */
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { PARENT_KINDS } from '../kinds/index.js';
import { buildServer, closeGracefully } from '../server.js';
import type { Obj } from './objects.js';
import { scenarios, syncRequest } from './payloads.js';

const FUZZ_COUNT = 5_000;
const FUZZ_MAX_MS = 60_000;
const LOAD_CONCURRENCY = 32;
const LOAD_MS = 10_000;
const SHUTDOWN_DELAY_MS = 1_000;

type Answer = { readonly status: number; readonly connection: string; readonly error?: string; readonly ms: number };

const server = async (): Promise<{ app: ReturnType<typeof buildServer>; port: number }> => {
  const app = buildServer(loadConfig({ LOG_LEVEL: 'warn' }), { logStream: pino.destination({ dest: '/dev/null', sync: true }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
};

const post = (agent: Agent, port: number, path: string, body: string): Promise<Answer> =>
  new Promise((resolve) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, agent, method: 'POST', path, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection ?? '', ms: performance.now() - started }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, connection: '', error: error.code ?? error.message, ms: performance.now() - started }),
    );
    req.end(body);
  });

/** A small deterministic generator (mulberry32), so that a run can be repeated. */
const random = (seed: number): (() => number) => {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
};

const DEEP = '@@DEEP@@';

const REPLACEMENTS: readonly unknown[] = [null, 0, -1, 1.5, true, '', 'x'.repeat(100_000), [], {}, [null], { a: { b: [] } }, DEEP, '💥\u0000', 1e308];

/** Every object and array of a value with its parent and key, without recursion. */
const containers = (root: Obj): { holder: Obj | unknown[]; key: string | number }[] => {
  const out: { holder: Obj | unknown[]; key: string | number }[] = [];
  const stack: unknown[] = [root];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (typeof value !== 'object' || value === null) continue;
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value as Obj);
    for (const [key, child] of entries) {
      out.push({ holder: value as Obj | unknown[], key });
      stack.push(child);
    }
  }
  return out;
};

/** One to three mutations of a copy of `base`, as JSON text. */
const mutate = (base: Obj, next: () => number): string => {
  const body = structuredClone(base);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  for (let n = 1 + Math.floor(next() * 3); n > 0; n -= 1) {
    const { holder, key } = pick(containers(body));
    const choice = next();
    const target = holder as Record<string | number, unknown>;
    if (choice < 0.15 && !Array.isArray(holder)) Reflect.deleteProperty(target, key);
    else if (choice < 0.25 && !Array.isArray(holder))
      target[key] = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}') as Obj;
    else target[key] = structuredClone(pick(REPLACEMENTS));
  }
  const depth = 100 + Math.floor(next() * 5_000);
  return JSON.stringify(body).replace(`"${DEEP}"`, `${'['.repeat(depth)}${']'.repeat(depth)}`);
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

const fuzz = async (): Promise<void> => {
  const { app, port } = await server();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const bases = scenarios().map((scenario) => ({ kind: scenario.kind, body: syncRequest(scenario, {}, undefined) }));
  const next = random(18);
  const deadline = Date.now() + FUZZ_MAX_MS;
  const statuses = new Map<number, number>();
  let count = 0;
  while (count < FUZZ_COUNT && Date.now() < deadline) {
    const base = bases[count % bases.length] ?? bases[0];
    if (base === undefined) break;
    const hook = ['customize', 'sync', 'finalize'][Math.floor(next() * 3)] ?? 'sync';
    const answer = await post(agent, port, `/${base.kind.hookPath}/${hook}`, mutate(base.body, next));
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    count += 1;
  }
  const fivexx = [...statuses].filter(([status]) => status >= 500 || status === 0).reduce((sum, [, n]) => sum + n, 0);
  const routes = PARENT_KINDS.length * 3;
  console.log(`fuzz: ${count} mutated bodies over ${routes} routes, ${fivexx} 5xx or failed; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  agent.destroy();
  await app.close();
};

/** `concurrency` loops of sync calls until `until` says stop; what each call got. */
const load = async (port: number, body: string, path: string, until: (answer: Answer) => boolean): Promise<Answer[]> => {
  const agent = new Agent({ keepAlive: true, maxSockets: LOAD_CONCURRENCY });
  const answers: Answer[] = [];
  const loop = async (): Promise<void> => {
    for (;;) {
      const answer = await post(agent, port, path, body);
      answers.push(answer);
      if (until(answer)) return;
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, loop));
  agent.destroy();
  return answers;
};

const steadyBody = (): { path: string; body: string } => {
  const scenario = scenarios()[0];
  if (scenario === undefined) throw new Error('no scenario');
  return { path: `/${scenario.kind.hookPath}/customize`, body: JSON.stringify(syncRequest(scenario, {}, undefined)) };
};

const loadFigures = async (): Promise<void> => {
  const { app, port } = await server();
  const { path, body } = steadyBody();
  const deadline = Date.now() + LOAD_MS;
  const answers = await load(port, body, path, (answer) => answer.error !== undefined || Date.now() > deadline);
  const times = answers.map((a) => a.ms).sort((a, b) => a - b);
  const errors = answers.filter((a) => a.status !== 200).length;
  const rss = process.memoryUsage().rss / 1024 / 1024;
  console.log(
    `load: ${answers.length} calls of ${path} at c=${LOAD_CONCURRENCY} in ${LOAD_MS / 1000} s (${Math.round(answers.length / (LOAD_MS / 1000))} req/s), ${errors} not 200, p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms, RSS ${rss.toFixed(0)} MiB`,
  );
  await app.close();
};

/** Load while the server drains and closes; a client goes elsewhere once told `Connection: close`, as Metacontroller's does. */
const shutdownFigures = async (): Promise<void> => {
  const { app, port } = await server();
  const { path, body } = steadyBody();
  const loading = load(port, body, path, (answer) => answer.error !== undefined || answer.connection === 'close');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await closeGracefully(app, SHUTDOWN_DELAY_MS);
  const answers = await loading;
  const resets = answers.filter((a) => a.error !== undefined).length;
  const by = (status: number): number => answers.filter((a) => a.status === status).length;
  console.log(
    `shutdown: ${answers.length} calls at c=${LOAD_CONCURRENCY} across a ${SHUTDOWN_DELAY_MS / 1000} s drain: ${by(200)} 200, ${by(503)} 503, ${resets} reset or failed`,
  );
};

await fuzz();
await loadFigures();
await shutdownFigures();
