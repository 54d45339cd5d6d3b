/**
 * The load generator of the benchmark, in a worker thread so that the server's event loop (and its
 * delay measurement) only carries the server. Keep-alive connections, one per concurrent caller.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';

export type Job = {
  readonly url: string;
  readonly body: string;
  readonly concurrency: number;
  readonly maxRequests: number;
  readonly maxMs: number;
};

export type Result = {
  /** Milliseconds, one per measured call. */
  readonly latencies: number[];
  readonly elapsedMs: number;
  readonly errors: number;
  readonly responseBytes: number;
};

const post = (agent: Agent, url: string, body: Buffer): Promise<{ status: number; bytes: number }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const run = async (job: Job): Promise<Result> => {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const body = Buffer.from(job.body);
  const latencies: number[] = [];
  let errors = 0;
  let responseBytes = 0;
  let started = 0;
  const one = async (): Promise<void> => {
    const begin = performance.now();
    const { status, bytes } = await post(agent, job.url, body).catch(() => ({ status: 0, bytes: 0 }));
    latencies.push(performance.now() - begin);
    responseBytes = bytes;
    if (status !== 200) errors += 1;
  };
  const begin = performance.now();
  const caller = async (): Promise<void> => {
    while (started < job.maxRequests && performance.now() < begin + job.maxMs) {
      started += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, caller));
  const elapsedMs = performance.now() - begin;
  agent.destroy();
  return { latencies, elapsedMs, errors, responseBytes };
};

parentPort?.on('message', (job: Job) => {
  void run(job).then((result) => parentPort?.postMessage(result));
});
