/**
 * Errors of a connection before a request reaches a route (Node's `clientError`), answered as Fastify would
 * (400, 431 for headers too large) except the request timeout: its 408 names REQUEST_TIMEOUT_SECONDS, and it is
 * logged (a warning with the client's address: never the bytes received, which may hold Secrets).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger } from 'fastify';

/** The status and message of a connection error. */
const answerOf = (code: string, timeoutMs: number): { readonly statusCode: number; readonly message: string } => {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      statusCode: 408,
      message: `the request (headers and body) did not arrive within REQUEST_TIMEOUT_SECONDS (${timeoutMs / 1000} s) of the hook server: raise it, below the webhooks' timeout, if requests are that slow`,
    };
  if (code === 'HPE_HEADER_OVERFLOW') return { statusCode: 431, message: 'Exceeded maximum allowed HTTP header size' };
  return { statusCode: 400, message: 'Client Error' };
};

/**
 * Fastify's `clientErrorHandler`: answers on the socket and closes it. A reset connection (or one already
 * closed) gets nothing; a timeout is logged at warn, other errors at trace as Fastify does.
 */
export const clientErrorHandler =
  (timeoutMs: number, log: () => FastifyBaseLogger) =>
  (error: ConnectionError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { statusCode, message } = answerOf(error.code, timeoutMs);
    if (statusCode === 408) log().warn({ statusCode, remoteAddress: socket.remoteAddress }, `request timeout: ${message}`);
    else log().trace({ code: error.code, statusCode }, 'client error');
    const body = JSON.stringify({ error: STATUS_CODES[statusCode], message, statusCode });
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
      );
    socket.destroy(error);
  };
