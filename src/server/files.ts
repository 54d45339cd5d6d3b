/**
 * Files the server reads at start and again when they change: the TLS certificate and key, and the
 * auth token or password. Kubernetes updates a mounted Secret by swapping a symlink, which fs.watch
 * misses on some file systems, so the files are polled (a small read every few seconds).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config.js';

/** A file named by a variable, for error messages. */
export type NamedFile = { readonly variable: string; readonly path: string };

/** Reads a file at start; an unreadable file is a configuration error that names the variable. */
export const readConfiguredFile = (file: NamedFile): string => {
  try {
    return readFileSync(file.path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new ConfigError(`${file.variable}: cannot read ${file.path} (${reason})`);
  }
};

export type FileWatch = { readonly close: () => void };

/**
 * Polls `files` every `intervalMs`. When any content differs from the last accepted one, `apply` gets
 * the new contents; it returns an error message to reject them (they are offered again while they
 * stay different, e.g. a certificate whose key has not been replaced yet), or undefined to accept.
 * `report` gets each distinct problem once. The timer never keeps the process alive.
 */
export const watchFiles = (
  files: readonly NamedFile[],
  initial: readonly string[],
  intervalMs: number,
  apply: (contents: readonly string[]) => string | undefined,
  report: (problem: string | undefined) => void,
): FileWatch => {
  let accepted = initial.join('\0');
  let lastProblem: string | undefined;
  let busy = false;
  const problem = (message: string | undefined): void => {
    if (message !== lastProblem) report(message);
    lastProblem = message;
  };
  const check = async (): Promise<void> => {
    const contents = await Promise.all(files.map((f) => readFile(f.path, 'utf8')));
    if (contents.join('\0') === accepted) {
      problem(undefined);
      return;
    }
    const rejected = apply(contents);
    if (rejected === undefined) accepted = contents.join('\0');
    problem(rejected);
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    check()
      .catch((error: unknown) => problem(`cannot read ${files.map((f) => f.path).join(', ')}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
};
