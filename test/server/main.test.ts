import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { parseJson } from '../helpers/json.js';
import { freePort } from '../support/processes.js';

/** Runs src/main.ts with the TypeScript loader of the test run. */
const main = (env: NodeJS.ProcessEnv) => {
  const loader = process.execArgv.filter((arg) => arg.includes('scripts/ts-loader.mjs'));
  const child = spawn(process.execPath, [...loader, 'src/main.ts'], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('exit', (code, signal) => resolve([code, signal]));
    child.once('error', reject);
  });
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
};

t.test('an invalid configuration exits with code 2 and names the variable', async (t) => {
  for (const [env, message] of [
    [{ PORT: 'eighty' }, /invalid configuration: PORT must be an integer/],
    [{ AUTH_BEARER_TOKEN_FILE: '/nonexistent/token' }, /invalid configuration: AUTH_BEARER_TOKEN_FILE: cannot read \/nonexistent\/token/],
  ] as const) {
    const run = main(env);
    const [code] = await run.exit;
    t.equal(code, 2, JSON.stringify(env));
    t.match(run.stderr(), message);
  }
});

t.test('SIGTERM: /readyz answers 503 for the drain delay, then the process exits cleanly', async (t) => {
  const port = await freePort();
  const run = main({ PORT: String(port), HOST: '127.0.0.1', SHUTDOWN_DELAY_SECONDS: '1', LOG_LEVEL: 'info' });
  t.teardown(() => run.child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  let ready = 0;
  for (let i = 0; i < 300 && ready !== 200; i += 1) {
    await sleep(50);
    ready = await fetch(`${url}/readyz`)
      .then((r) => r.status)
      .catch(() => 0);
  }
  t.equal(ready, 200, 'ready once listening');
  run.child.kill('SIGTERM');
  await sleep(300);
  t.equal((await fetch(`${url}/readyz`, { headers: { connection: 'close' } })).status, 503, 'not ready while draining');
  t.equal((await fetch(`${url}/healthz`, { headers: { connection: 'close' } })).status, 200, 'still alive');
  const [code] = await run.exit;
  t.equal(code, 0);
  const lines = run
    .stdout()
    .trim()
    .split('\n')
    .map((l) => parseJson(l, Type.Object({ msg: Type.Optional(Type.String()) }), 'log line'));
  t.ok(
    lines.some((l) => (l.msg ?? '').includes('shutting down')),
    'the shutdown is logged',
  );
});

/** Starts the server and waits until /readyz answers 200; returns the run and its URL. */
const started = async (t: Test, env: NodeJS.ProcessEnv) => {
  const port = await freePort();
  const run = main({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  t.teardown(() => run.child.kill('SIGKILL'));
  let ready = 0;
  for (let i = 0; i < 300 && ready !== 200; i += 1) {
    await sleep(50);
    ready = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.status)
      .catch(() => 0);
  }
  t.equal(ready, 200, 'ready once listening');
  return run;
};

const messages = (stdout: string): string[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => parseJson(l, Type.Object({ msg: Type.Optional(Type.String()) }), 'log line').msg ?? '');

t.test("Ctrl-C on npm start: the terminal's SIGINT and npm's forwarded one are one request, and the server drains", async (t) => {
  const run = await started(t, { SHUTDOWN_DELAY_SECONDS: '1' });
  run.child.kill('SIGINT');
  await sleep(20);
  run.child.kill('SIGINT');
  const [code, signal] = await run.exit;
  t.same([code, signal], [0, null], `drained and exited 0 (stderr: ${run.stderr()})`);
  const logged = messages(run.stdout());
  t.ok(
    logged.some((m) => m.startsWith('SIGINT again within 1 s of the first: the same request')),
    logged.join('\n'),
  );
  t.ok(logged.includes('shut down'), 'the drain ran to its end');
  t.notOk((run.stdout() + run.stderr()).includes('second SIGINT'), 'not taken as a second Ctrl-C');
});

t.test('a deliberate second Ctrl-C after the first second stops the server at once', async (t) => {
  const run = await started(t, { SHUTDOWN_DELAY_SECONDS: '5' });
  run.child.kill('SIGINT');
  await sleep(1300);
  run.child.kill('SIGINT');
  const [code] = await run.exit;
  t.equal(code, 1);
  t.match(run.stdout() + run.stderr(), /second SIGINT, exiting/);
  t.notOk(messages(run.stdout()).includes('shut down'), 'no drain to the end');
});
