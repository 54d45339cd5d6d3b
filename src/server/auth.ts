/**
 * Optional authentication of hook calls, as Metacontroller's webhook client sends it (a hook's
 * `authorization` or `basicAuth`): `Authorization: Bearer <token>` or `Authorization: Basic
 * base64(user:password)`. The secret is read from a file at start and again when it changes. Health,
 * readiness and metrics stay open.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError, type AuthConfig } from '../config.js';
import { readConfiguredFile, watchFiles, type FileWatch, type NamedFile } from './files.js';

const REALM = 'ironic-hooks';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

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
 * secret leaks through timing.
 */
export const authenticator = (auth: AuthConfig, isPublic: (request: FastifyRequest) => boolean, intervalMs: number, log: FastifyBaseLogger): Authenticator => {
  const scheme = schemeOf(auth);
  const initial = readConfiguredFile(scheme.file);
  let expected = digest(scheme.expected(secretOf(scheme.file, initial)));
  const watch: FileWatch = watchFiles(
    [scheme.file],
    [initial],
    intervalMs,
    ([content = '']) => {
      if (content.trim() === '') return `${scheme.file.path} is empty`;
      expected = digest(scheme.expected(content.trim()));
      log.info({ file: scheme.file.path }, `${scheme.file.variable} reloaded`);
      return undefined;
    },
    (problem) => {
      if (problem !== undefined) log.warn(`keeping the current ${scheme.file.variable}: ${problem}`);
    },
  );
  const accepts = (header: string | undefined): boolean => {
    const credentials = credentialsOf(header, scheme);
    return credentials !== undefined && timingSafeEqual(digest(scheme.decode(credentials)), expected);
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
