/**
 * How much memory one large sync call costs the hook server (`npm run bench:memory`; Linux; not part of the
 * tests): starts the server in a child process, sends it an 8 MiB sync body of a few large objects and one of
 * many small ones, and prints the growth of the child's peak resident memory (VmHWM) as a multiple of the
 * body. README "Resources under pressure" quotes it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.js';
import { buildServer } from '../server.js';

const TARGET = 8 * 1024 * 1024;

const serve = async (): Promise<void> => {
  const app = buildServer(loadConfig({ LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: String(4 * TARGET) }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${String((app.server.address() as AddressInfo).port)}\n`);
};

const parent = {
  apiVersion: 'ironic.metal3.io/v1alpha1',
  kind: 'Ironic',
  metadata: { name: 'ironic', namespace: 'ns', uid: 'u', generation: 1 },
  spec: { version: '38.0', networking: { interface: 'eth1', ipAddress: '192.0.2.2' } },
};

type Objects = Record<string, unknown>;

const configMap = (name: string, value: string): Objects => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: value } });

const bodies = (): Record<string, Objects> => {
  const large = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`ns/c${String(i)}`, configMap(`c${String(i)}`, 'x'.repeat(TARGET / 8 - 200))]));
  const small: Objects = {};
  for (let i = 0, size = 0; size < TARGET; i += 1) {
    const object = configMap(`s${String(i)}`, 'v');
    small[`ns/s${String(i)}`] = object;
    size += JSON.stringify(object).length + 12;
  }
  return { 'a few large objects': large, 'many small objects': small };
};

/** A field of /proc/<pid>/status in bytes. */
const bytesOf = (pid: number, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1] ?? 'NaN') * 1024;

const measure = async (label: string, objects: Objects): Promise<void> => {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    const send = async (children: Objects): Promise<number> => {
      const body = JSON.stringify({ controller: {}, parent, children: { 'ConfigMap.v1': children }, related: {} });
      const response = await fetch(`http://127.0.0.1:${String(port)}/ironic/sync`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await response.text();
      if (response.status !== 200) throw new Error(`${label}: the server answered ${String(response.status)}`);
      return body.length;
    };
    const pid = child.pid ?? 0;
    await send({});
    const before = bytesOf(pid, 'VmHWM');
    const length = await send(objects);
    const growth = (bytesOf(pid, 'VmHWM') - before) / length;
    console.log(
      `${label}: ${(length / 1048576).toFixed(1)} MiB body, ${String(Object.keys(objects).length)} objects, peak memory grew by ${growth.toFixed(1)} times the body`,
    );
  } finally {
    child.kill();
  }
};

if (process.argv[2] === 'serve') await serve();
else for (const [label, objects] of Object.entries(bodies())) await measure(label, objects);
