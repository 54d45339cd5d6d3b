// @ts-check
/**
 * The static checks of `npm test`, side by side: the type check with ESLint (one program for both,
 * scripts/typecheck-and-lint.mjs) and the Prettier check each use one core for most of their time, so on a
 * 2-core machine running them together takes about as long as the first alone. Each check's output is printed
 * whole once it ends, in the order they end, with its time; the exit code is 1 when any of them failed.
 */
import { spawn } from 'node:child_process';

/** The package.json scripts this runs. */
const CHECKS = ['typecheck-and-lint', 'format:check'];

/**
 * Runs one package script, its output kept until it ends.
 * @param {string} name
 * @returns {Promise<{ readonly name: string; readonly ok: boolean; readonly output: string; readonly seconds: number }>}
 */
const run = (name) =>
  new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const chunks = [];
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk));
    child.stderr.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk));
    const done = (/** @type {boolean} */ ok) => resolve({ name, ok, output: Buffer.concat(chunks).toString(), seconds: (performance.now() - started) / 1000 });
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(false);
    });
    child.on('close', (code) => done(code === 0));
  });

const results = await Promise.all(
  CHECKS.map(async (name) => {
    const result = await run(name);
    process.stdout.write(`${result.output}${result.ok ? 'ok' : 'FAILED'}: npm run ${name} (${result.seconds.toFixed(1)} s)\n`);
    return result;
  }),
);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
