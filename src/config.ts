/**
 * Configuration of the hook server, read once from the environment at start and validated.
 */
import { DEFAULT_IPXE_RELEASE, type RenderConfig } from './render/config.js';
import { IRONIC_IMAGE_REPOSITORY } from './api/shared/version.js';
import { DEFAULT_MARIADB_IMAGE } from './api/shared/constants.js';
import { listEntries } from './api/shared/fields.js';

/** HTTPS: the PEM files of the serving certificate, reloaded when they change. */
export type TlsConfig = { readonly certFile: string; readonly keyFile: string };

/**
 * What Metacontroller's webhook client sends (`authorization` or `basicAuth` of a hook). After the file
 * changes, the previous token or password is still accepted for `rotationGraceMs`
 * (DEFAULT_AUTH_ROTATION_GRACE_MS when unset): Metacontroller keeps sending it until it is restarted.
 */
export type AuthConfig =
  | { readonly kind: 'bearer'; readonly tokenFile: string; readonly rotationGraceMs?: number }
  | { readonly kind: 'basic'; readonly username: string; readonly passwordFile: string; readonly rotationGraceMs?: number };

export type Config = {
  readonly port: number;
  readonly host: string;
  readonly bodyLimit: number;
  readonly logLevel: string;
  readonly render: RenderConfig;
  readonly tls?: TlsConfig;
  readonly auth?: AuthConfig;
  /** How often the TLS and auth files are checked for changes. */
  readonly reloadIntervalMs?: number;
  /** How long /readyz answers 503 before the server stops accepting connections. */
  readonly shutdownDelayMs?: number;
  /** The longest a shutdown may take (delay and in-flight hooks) before the process exits anyway. */
  readonly shutdownTimeoutMs?: number;
  /** The longest the server waits for a whole request (headers and body) before it answers 408. */
  readonly requestTimeoutMs?: number;
};

export class ConfigError extends Error {}

export const DEFAULT_RELOAD_INTERVAL_MS = 10_000;
export const DEFAULT_SHUTDOWN_DELAY_MS = 3_000;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;
export const DEFAULT_AUTH_ROTATION_GRACE_MS = 900_000;
/** Below Metacontroller's default webhook timeout (10 s): a request still arriving by then is abandoned. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 8_000;
/**
 * A sync request is the parent, its children and its related objects: about 30 KiB for a minimal Ironic,
 * 150 KiB for a large one (src/bench). 8 MiB leaves room for several objects at the API server's own
 * limit (about 1.5 MiB each) while a body costs about 3 times its size in memory: Metacontroller's
 * workers (5 per controller by default) cannot take the 512 Mi of the Deployment with such bodies.
 */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const IPA_VARIABLES = ['IPA_BASEURI', 'IPA_FLAVOR', 'IPA_ARCH'] as const;
const PROXY_VARIABLES = [
  ['IPA_HTTPS_PROXY', 'HTTPS_PROXY'],
  ['IPA_HTTP_PROXY', 'HTTP_PROXY'],
  ['IPA_NO_PROXY', 'NO_PROXY'],
] as const;

/** A variable, with an empty value read as unset. */
const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
};

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number => {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return parsed;
};

const boolean = (env: NodeJS.ProcessEnv, name: string): boolean => {
  const raw = value(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
};

/** Where and which IPA to download, and through which proxy (IPA_HTTP_PROXY as HTTP_PROXY, ...). */
const ipaSettings = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const name of IPA_VARIABLES) if (env[name]) out[name] = env[name];
  for (const [from, to] of PROXY_VARIABLES) if (env[from]) out[to] = env[from];
  return out;
};

/** Two variables that only make sense together. */
const pair = (env: NodeJS.ProcessEnv, first: string, second: string): [string, string] | undefined => {
  const a = value(env, first);
  const b = value(env, second);
  if (a === undefined && b === undefined) return undefined;
  if (a === undefined || b === undefined)
    throw new ConfigError(`${first} and ${second} must be set together (only ${a === undefined ? second : first} is set)`);
  return [a, b];
};

const tlsConfig = (env: NodeJS.ProcessEnv): TlsConfig | undefined => {
  const files = pair(env, 'TLS_CERT_FILE', 'TLS_KEY_FILE');
  return files && { certFile: files[0], keyFile: files[1] };
};

const authConfig = (env: NodeJS.ProcessEnv): AuthConfig | undefined => {
  const tokenFile = value(env, 'AUTH_BEARER_TOKEN_FILE');
  const basic = pair(env, 'AUTH_BASIC_USERNAME', 'AUTH_BASIC_PASSWORD_FILE');
  if (tokenFile !== undefined && basic !== undefined) {
    throw new ConfigError('AUTH_BEARER_TOKEN_FILE and AUTH_BASIC_USERNAME/AUTH_BASIC_PASSWORD_FILE cannot be combined: a hook sends one Authorization header');
  }
  const rotationGraceMs = integer(env, 'AUTH_ROTATION_GRACE_SECONDS', DEFAULT_AUTH_ROTATION_GRACE_MS / 1000, 0, 86_400) * 1000;
  if (tokenFile !== undefined) return { kind: 'bearer', tokenFile, rotationGraceMs };
  if (basic === undefined) return undefined;
  if (basic[0].includes(':')) throw new ConfigError('AUTH_BASIC_USERNAME must not contain ":" (RFC 7617)');
  return { kind: 'basic', username: basic[0], passwordFile: basic[1], rotationGraceMs };
};

/** A tag or branch name of the iPXE repository (passed to `git clone --branch`). */
const GIT_REF = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

const ipxeRelease = (env: NodeJS.ProcessEnv): string => {
  const release = value(env, 'IPXE_RELEASE') ?? DEFAULT_IPXE_RELEASE;
  if (!GIT_REF.test(release) || release.includes('..')) {
    throw new ConfigError(`IPXE_RELEASE must be a tag of https://github.com/ipxe/ipxe such as ${DEFAULT_IPXE_RELEASE}, got ${JSON.stringify(release)}`);
  }
  return release;
};

const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** HOOK_IMAGE_PULL_SECRETS: comma-separated Secret names, each a DNS subdomain, each once. */
const hookImagePullSecrets = (env: NodeJS.ProcessEnv): string[] => {
  const names = listEntries(value(env, 'HOOK_IMAGE_PULL_SECRETS'));
  const bad = names.find((n) => n.length > 253 || !SECRET_NAME.test(n));
  if (bad !== undefined) throw new ConfigError(`HOOK_IMAGE_PULL_SECRETS must list Secret names (lower-case DNS subdomains) separated by commas, got "${bad}"`);
  return [...new Set(names)];
};

/** A variable that names a default image (the images the features run declare theirs: FeatureImage). */
const IMAGE_SETTING = /^[A-Z][A-Z0-9_]*_IMAGE$/;

/** Every non-empty `*_IMAGE` variable, by name: each image the renderers run reads its own. */
const imageSettings = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.keys(env)
      .filter((name) => IMAGE_SETTING.test(name))
      .sort()
      .flatMap((name) => {
        const image = value(env, name);
        return image !== undefined ? [[name, image]] : [];
      }),
  );

const renderConfig = (env: NodeJS.ProcessEnv): RenderConfig => {
  const hookImage = value(env, 'HOOK_IMAGE');
  const pullSecrets = hookImagePullSecrets(env);
  return {
    images: {
      ironicRepository: env['IRONIC_IMAGE_REPOSITORY'] ?? IRONIC_IMAGE_REPOSITORY,
      mariadb: env['MARIADB_IMAGE'] ?? DEFAULT_MARIADB_IMAGE,
      settings: imageSettings(env),
    },
    ipaSettings: ipaSettings(env),
    clusterDomain: env['CLUSTER_DOMAIN'] ?? '',
    serviceMonitors: boolean(env, 'SERVICE_MONITORS'),
    certManager: boolean(env, 'CERT_MANAGER'),
    mariadbOperator: boolean(env, 'MARIADB_OPERATOR'),
    ipxeRelease: ipxeRelease(env),
    ...(hookImage !== undefined && { hookImage }),
    ...(pullSecrets.length > 0 && { hookImagePullSecrets: pullSecrets }),
  };
};

/** Reads and validates the configuration; throws ConfigError with a message that names the variable. */
export const loadConfig = (env: NodeJS.ProcessEnv): Config => {
  const logLevel = env['LOG_LEVEL'] ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  const tls = tlsConfig(env);
  const auth = authConfig(env);
  const shutdownDelayMs = integer(env, 'SHUTDOWN_DELAY_SECONDS', DEFAULT_SHUTDOWN_DELAY_MS / 1000, 0, 300) * 1000;
  const shutdownTimeoutMs = integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000, 1, 3600) * 1000;
  if (shutdownTimeoutMs <= shutdownDelayMs) {
    throw new ConfigError(`SHUTDOWN_TIMEOUT_SECONDS (${shutdownTimeoutMs / 1000}) must be longer than SHUTDOWN_DELAY_SECONDS (${shutdownDelayMs / 1000})`);
  }
  return {
    port: integer(env, 'PORT', 8080, 1, 65535),
    host: env['HOST'] ?? '0.0.0.0',
    bodyLimit: integer(env, 'BODY_LIMIT_BYTES', DEFAULT_BODY_LIMIT, 1024, 1024 * 1024 * 1024),
    logLevel,
    render: renderConfig(env),
    ...(tls !== undefined && { tls }),
    ...(auth !== undefined && { auth }),
    reloadIntervalMs: integer(env, 'RELOAD_INTERVAL_SECONDS', DEFAULT_RELOAD_INTERVAL_MS / 1000, 1, 86_400) * 1000,
    shutdownDelayMs,
    shutdownTimeoutMs,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_SECONDS', DEFAULT_REQUEST_TIMEOUT_MS / 1000, 1, 3600) * 1000,
  };
};
