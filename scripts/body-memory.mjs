/**
 * How much memory one large sync call costs the hook server: starts the server (from dist/, built by
 * `npm run bench:memory`) in a child process, sends an 8 MiB sync body of a few large objects and one of many
 * small ones, and prints the growth of the server's peak resident memory (VmHWM, Linux) as a multiple of the
 * body. README "Resources under pressure" quotes it.
 */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';

const TARGET = 8 * 1024 * 1024;

const serve = async () => {
  const { buildServer } = await import('../dist/server.js');
  const { loadConfig } = await import('../dist/config.js');
  const app = buildServer(loadConfig({ LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: String(4 * TARGET) }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`);
};

const parent = {
  apiVersion: 'ironic.metal3.io/v1alpha1',
  kind: 'Ironic',
  metadata: { name: 'ironic', namespace: 'ns', uid: 'u', generation: 1 },
  spec: { version: '38.0', networking: { interface: 'eth1', ipAddress: '192.0.2.2' } },
};

/** @param {string} name @param {string} value */
const configMap = (name, value) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: value } });

const bodies = () => {
  const large = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`ns/c${i}`, configMap(`c${i}`, 'x'.repeat(TARGET / 8 - 200))]));
  /** @type {Record<string, unknown>} */
  const small = {};
  for (let i = 0, size = 0; size < TARGET; i += 1) {
    const object = configMap(`s${i}`, 'v');
    small[`ns/s${i}`] = object;
    size += JSON.stringify(object).length + 12;
  }
  return { 'a few large objects': large, 'many small objects': small };
};

/** @param {number | undefined} pid @param {string} field */
const kibOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 'NaN') * 1024;

/** @param {string} label @param {Record<string, unknown>} objects */
const measure = async (label, objects) => {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    /** @type {number} */
    const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    /** @param {Record<string, unknown>} children */
    const send = async (children) => {
      const body = JSON.stringify({ controller: {}, parent, children: { 'ConfigMap.v1': children }, related: {} });
      const response = await fetch(`http://127.0.0.1:${port}/ironic/sync`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await response.text();
      if (response.status !== 200) throw new Error(`${label}: the server answered ${response.status}`);
      return body.length;
    };
    await send({});
    const before = kibOf(child.pid, 'VmHWM');
    const length = await send(objects);
    const growth = (kibOf(child.pid, 'VmHWM') - before) / length;
    console.log(
      `${label}: ${(length / 1048576).toFixed(1)} MiB body, ${Object.keys(objects).length} objects, peak memory grew by ${growth.toFixed(1)} times the body`,
    );
  } finally {
    child.kill();
  }
};

if (process.argv[2] === 'serve') await serve();
else for (const [label, objects] of Object.entries(bodies())) await measure(label, objects);
