/**
 * Configuration of the hook server, read once from the environment at start and validated.
 */
import type { RenderConfig } from './render/ironic/input.js';
import { IRONIC_IMAGE_REPOSITORY } from './api/version.js';

export type Config = {
  readonly port: number;
  readonly host: string;
  readonly bodyLimit: number;
  readonly logLevel: string;
  readonly render: RenderConfig;
};

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DOWNLOADER_VARIABLES = ['IPA_BASEURI', 'IPA_FLAVOR', 'IPA_ARCH'] as const;
const PROXY_VARIABLES = [
  ['IPA_HTTPS_PROXY', 'HTTPS_PROXY'],
  ['IPA_HTTP_PROXY', 'HTTP_PROXY'],
  ['IPA_NO_PROXY', 'NO_PROXY'],
] as const;

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
};

const downloaderEnv = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const name of DOWNLOADER_VARIABLES) if (env[name]) out[name] = env[name];
  for (const [from, to] of PROXY_VARIABLES) if (env[from]) out[to] = env[from];
  return out;
};

/** Reads and validates the configuration; throws ConfigError with a message that names the variable. */
export const loadConfig = (env: NodeJS.ProcessEnv): Config => {
  const logLevel = env['LOG_LEVEL'] ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  return {
    port: integer(env, 'PORT', 8080, 1, 65535),
    host: env['HOST'] ?? '0.0.0.0',
    bodyLimit: integer(env, 'BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel,
    render: {
      images: {
        ironicRepository: env['IRONIC_IMAGE_REPOSITORY'] ?? IRONIC_IMAGE_REPOSITORY,
        downloader: env['RAMDISK_DOWNLOADER_IMAGE'] ?? 'quay.io/metal3-io/ironic-ipa-downloader:latest',
        keepalived: env['KEEPALIVED_IMAGE'] ?? 'quay.io/metal3-io/keepalived:latest',
        mariadb: env['MARIADB_IMAGE'] ?? 'quay.io/metal3-io/mariadb:latest',
      },
      downloaderEnv: downloaderEnv(env),
      clusterDomain: env['CLUSTER_DOMAIN'] ?? 'cluster.local',
    },
  };
};
