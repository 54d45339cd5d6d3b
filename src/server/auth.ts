/**
 * Optional authentication of hook calls, as Metacontroller's webhook client sends it (a hook's
 * `authorization` or `basicAuth`): `Authorization: Bearer <token>` or `Authorization: Basic
 * base64(user:password)`. The secret is read from a file at start and again when it changes. Health,
 * readiness and metrics stay open.
 *
 * Rotation: Metacontroller reads its webhook Secrets only when it (re)starts a CompositeController, so it
 * keeps sending the old secret after the file here has changed. The previous secret is therefore still
 * accepted for a grace window after each change (AUTH_ROTATION_GRACE_SECONDS), long enough to restart
 * Metacontroller without a single 401.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError, DEFAULT_AUTH_ROTATION_GRACE_MS, type AuthConfig } from '../config.js';
import { readConfiguredFile, watchFiles, type FileWatch, type NamedFile } from './files.js';

const REALM = 'ironic-hooks';

const digest = (text: string): Buffer => hash('sha256', text, 'buffer');

/** A secret file without the trailing newline editors and `kubectl create secret --from-file` leave. */
const secretOf = (file: NamedFile, content: string): string => {
  const secret = content.trim();
  if (secret === '') throw new ConfigError(`${file.variable}: ${file.path} is empty`);
  return secret;
};

type Scheme = {
  readonly name: 'Bearer' | 'Basic';
  readonly challenge: string;
  readonly file: NamedFile;
  /** What a correct header carries after the scheme, decoded, for a given secret. */
  readonly expected: (secret: string) => string;
  readonly decode: (credentials: string) => string;
};

const schemeOf = (auth: AuthConfig): Scheme =>
  auth.kind === 'bearer'
    ? {
        name: 'Bearer',
        challenge: `Bearer realm="${REALM}"`,
        file: { variable: 'AUTH_BEARER_TOKEN_FILE', path: auth.tokenFile },
        expected: (token) => token,
        decode: (credentials) => credentials,
      }
    : {
        name: 'Basic',
        challenge: `Basic realm="${REALM}", charset="UTF-8"`,
        file: { variable: 'AUTH_BASIC_PASSWORD_FILE', path: auth.passwordFile },
        expected: (password) => `${auth.username}:${password}`,
        decode: (credentials) => Buffer.from(credentials, 'base64').toString('utf8'),
      };

/** `<scheme> <credentials>` with a case-insensitive scheme (RFC 9110 11.1). */
const credentialsOf = (header: string | undefined, scheme: Scheme): string | undefined => {
  const match = /^(\S+) +(\S+) *$/.exec(header ?? '');
  return match?.[1]?.toLowerCase() === scheme.name.toLowerCase() ? match[2] : undefined;
};

export type Authenticator = {
  /** An onRequest hook: lets public routes and correct credentials through, answers 401 otherwise. */
  readonly onRequest: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  readonly close: () => void;
};

/**
 * Compares digests of equal length in constant time, so neither the content nor the length of the
 * secret leaks through timing; the previous secret is compared whether or not its window is open.
 * `now` is the clock of the grace window (milliseconds).
 */
export const authenticator = (
  auth: AuthConfig,
  isPublic: (request: FastifyRequest) => boolean,
  intervalMs: number,
  log: FastifyBaseLogger,
  now: () => number = Date.now,
): Authenticator => {
  const scheme = schemeOf(auth);
  const graceMs = auth.rotationGraceMs ?? DEFAULT_AUTH_ROTATION_GRACE_MS;
  const initial = readConfiguredFile(scheme.file);
  let expected = digest(scheme.expected(secretOf(scheme.file, initial)));
  /** The secret before the last change, and until when it is still accepted. */
  let previous = { expected, until: Number.NEGATIVE_INFINITY };
  const watch: FileWatch = watchFiles(
    [scheme.file],
    [initial],
    intervalMs,
    ([content = '']) => {
      if (content.trim() === '') return `${scheme.file.path} is empty`;
      const next = digest(scheme.expected(content.trim()));
      if (next.equals(expected)) return undefined;
      previous = { expected, until: now() + graceMs };
      expected = next;
      log.info(
        { file: scheme.file.path, previousAcceptedForSeconds: graceMs / 1000 },
        `${scheme.file.variable} reloaded; the previous value is accepted for ${graceMs / 1000} s more`,
      );
      return undefined;
    },
    (problem) => {
      if (problem !== undefined) log.warn(`keeping the current ${scheme.file.variable}: ${problem}`);
    },
  );
  const accepts = (header: string | undefined): boolean => {
    const credentials = credentialsOf(header, scheme);
    if (credentials === undefined) return false;
    const given = digest(scheme.decode(credentials));
    const current = timingSafeEqual(given, expected);
    const old = timingSafeEqual(given, previous.expected);
    return current || (old && now() < previous.until);
  };
  return {
    onRequest: async (request, reply) => {
      if (isPublic(request) || accepts(request.headers.authorization)) return undefined;
      return reply
        .code(401)
        .header('www-authenticate', scheme.challenge)
        .send({ error: 'Unauthorized', message: `hook calls need an Authorization: ${scheme.name} header with the configured credentials`, statusCode: 401 });
    },
    close: watch.close,
  };
};
