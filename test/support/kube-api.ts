/** A client of a real API server for tests (admin client certificate over HTTPS), and running programs. */
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { isObj, valueAt, type Obj } from './paths.js';

/** Runs a program; resolves with its exit code and output (never rejects on a non-zero exit). */
export const run = (
  file: string,
  args: readonly string[],
  options: { readonly input?: string; readonly env?: Readonly<Record<string, string>>; readonly timeoutMs?: number } = {},
): Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolvePromise) => {
    const child = execFile(
      file,
      [...args],
      { env: { ...process.env, ...options.env }, maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 120_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolvePromise({ code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });

/** An API answer: status code and parsed body (the text when it is no JSON). */
export type ApiAnswer = { readonly status: number; readonly body: unknown };

/** A client of the API server with the admin certificate, over HTTPS. */
export class KubeApi {
  readonly #base: string;
  readonly #tls: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer };

  constructor(dir: string, port: number) {
    this.#base = `https://127.0.0.1:${port}`;
    const pki = join(dir, 'pki');
    this.#tls = { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
  }

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiAnswer> {
    return new Promise((resolvePromise, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = httpsRequest(
        `${this.#base}${path}`,
        { method, ...this.#tls, headers: { accept: 'application/json', ...(text !== undefined && { 'content-type': contentType }) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = raw;
            try {
              parsed = JSON.parse(raw);
            } catch {
              // not JSON: kept as text
            }
            resolvePromise({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  /** GET a list and return its items. */
  async list(path: string): Promise<Obj[]> {
    const answer = await this.request('GET', path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    const items = valueAt(answer.body, 'items');
    return Array.isArray(items) ? items.filter(isObj) : [];
  }

  /** A merge patch of the status subresource (as the kubelet or an operator writes it). */
  async patchStatus(path: string, status: unknown): Promise<ApiAnswer> {
    return this.request('PATCH', `${path}/status`, { status }, 'application/merge-patch+json');
  }
}

/** Polls `probe` until it answers a value other than undefined, or fails with what it last saw. */
export const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, lastSeen?: () => string): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastSeen === undefined ? '' : `: ${lastSeen()}`}`);
    await sleep(250);
  }
};
