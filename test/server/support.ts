/**
 * Support for the server tests: a server with test settings and captured log lines.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.js';
import { buildServer, type ServerDeps } from '../../src/server.js';
import { FIXED_NOW, fakeSecrets, testConfig, type Obj } from '../helpers/hooks.js';
import { objAt } from '../support/paths.js';

export type LogCapture = {
  readonly stream: { write: (line: string) => void };
  /** Everything written, as written. */
  readonly text: () => string;
  /** The lines, parsed. */
  readonly entries: () => Obj[];
};

export const captureLogs = (): LogCapture => {
  const lines: string[] = [];
  return {
    stream: { write: (line) => void lines.push(line) },
    text: () => lines.join(''),
    entries: () => lines.map((line) => objAt(JSON.parse(line))),
  };
};

/** A server with test settings (fake secrets, fixed clock, no logs unless asked). */
export const server = (config: Partial<Config> = {}, deps: ServerDeps = {}): FastifyInstance =>
  buildServer({ ...testConfig(), ...config }, { secrets: fakeSecrets(), now: () => FIXED_NOW, logger: false, ...deps });

/** A server logging at `level` into a capture. */
export const loggingServer = (level: string, deps: ServerDeps = {}, config: Partial<Config> = {}): { app: FastifyInstance; logs: LogCapture } => {
  const logs = captureLogs();
  const app = server({ ...config, logLevel: level }, { logger: true, logStream: logs.stream, ...deps });
  return { app, logs };
};

/** The hook call lines among captured entries. */
export const hookLines = (logs: LogCapture): Obj[] => logs.entries().filter((e) => 'hook' in e);

/** What `fn` throws (undefined when it returns). */
export const thrownBy = (fn: () => unknown): unknown => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
};
