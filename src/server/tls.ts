/**
 * Optional HTTPS (TLS_CERT_FILE and TLS_KEY_FILE): the certificate is read at start and reloaded into
 * the running server when the files change, so a cert-manager renewal needs no restart.
 */
import { createSecureContext } from 'node:tls';
import type { Server } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, type TlsConfig } from '../config.js';
import { readConfiguredFile, watchFiles, type FileWatch, type NamedFile } from './files.js';

export type TlsFiles = { readonly cert: string; readonly key: string };

const certFile = (tls: TlsConfig): NamedFile => ({ variable: 'TLS_CERT_FILE', path: tls.certFile });
const keyFile = (tls: TlsConfig): NamedFile => ({ variable: 'TLS_KEY_FILE', path: tls.keyFile });

/** Why a certificate and key cannot serve, or undefined when they can. */
const unusable = (files: TlsFiles): string | undefined => {
  try {
    createSecureContext(files);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

/** Reads and checks the certificate and key at start. */
export const readTls = (tls: TlsConfig): TlsFiles => {
  const files = { cert: readConfiguredFile(certFile(tls)), key: readConfiguredFile(keyFile(tls)) };
  const problem = unusable(files);
  if (problem !== undefined)
    throw new ConfigError(`TLS_CERT_FILE ${tls.certFile} and TLS_KEY_FILE ${tls.keyFile} are not a usable certificate and key: ${problem}`);
  return files;
};

/**
 * Serves new connections with the new certificate once both files hold a matching pair; a pair that
 * does not match yet (one file replaced before the other) is retried at the next check.
 */
export const watchTls = (server: Server, tls: TlsConfig, initial: TlsFiles, intervalMs: number, log: FastifyBaseLogger): FileWatch =>
  watchFiles(
    [certFile(tls), keyFile(tls)],
    [initial.cert, initial.key],
    intervalMs,
    ([cert = '', key = '']) => {
      const problem = unusable({ cert, key });
      if (problem !== undefined) return `the new TLS certificate and key are not usable yet: ${problem}`;
      server.setSecureContext({ cert, key });
      log.info({ certFile: tls.certFile }, 'TLS certificate reloaded');
      return undefined;
    },
    (problem) => {
      if (problem !== undefined) log.warn({ certFile: tls.certFile, keyFile: tls.keyFile }, `keeping the current TLS certificate: ${problem}`);
    },
  );
