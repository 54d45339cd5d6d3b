/**
 * Error answers. Metacontroller copies the body of a failed call into a Warning event on the parent,
 * so a client error says briefly what is wrong; a server error (a bug) says nothing about internals
 * and is logged instead.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PARENT_KINDS, wordList } from '../kinds/index.js';
import { ECHO_LIMIT, echo } from './echo.js';
import { describeValidation } from './validation.js';

/** A request the hook cannot serve, e.g. a parent of another kind. */
export class HookInputError extends Error {
  readonly statusCode = 400;
}

export type ErrorBody = { readonly error: string; readonly message: string; readonly statusCode: number };

const body = (statusCode: number, message: string): ErrorBody => ({ error: STATUS_CODES[statusCode] ?? 'Error', message, statusCode });

const clientMessage = (error: FastifyError, request: FastifyRequest, bodyLimit: number): string => {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return `the request body is larger than BODY_LIMIT_BYTES (${bodyLimit} bytes) of the hook server; raise BODY_LIMIT_BYTES`;
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return `hook requests must be application/json, not ${JSON.stringify(echo(request.headers['content-type'] ?? 'none'))}`;
  }
  // A field's path may hold a key of the body.
  return error.validation !== undefined ? `invalid hook request: ${echo(describeValidation(error.validation), 3 * ECHO_LIMIT)}` : error.message;
};

/** A status from 400 to 599 carried by the error, else 500. */
const statusOf = (error: FastifyError): number => {
  const status = error.statusCode;
  return status !== undefined && status >= 400 && status <= 599 ? status : 500;
};

/** What the error handler answered, for the log line of the call. */
export type Rejection = { readonly statusCode: number; readonly message: string; readonly error: Error };

/**
 * The error handler: 4xx with a short message, 5xx with a generic one. `report` receives every answer
 * (with the error, which only the logs may show).
 */
export const errorHandler =
  (bodyLimit: number, report: (request: FastifyRequest, rejection: Rejection) => void) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const statusCode = statusOf(error);
    const message = statusCode < 500 ? clientMessage(error, request, bodyLimit) : `the hook server failed (request ${request.id}); see its logs`;
    report(request, { statusCode, message, error });
    return reply.code(statusCode).send(body(statusCode, message));
  };

/** The hook routes of every parent kind, e.g. `POST /ironic/{customize,sync,finalize} and POST /ironicdatabase/{…}`. */
const HOOK_ROUTES = wordList(PARENT_KINDS.map((kind) => `POST /${kind.hookPath}/{customize,sync,finalize}`));

/** Unknown routes: JSON, with the routes that exist. */
export const notFoundHandler = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  reply.code(404).send(body(404, `no route ${request.method} ${echo(request.url.split('?')[0] ?? '')}: the hooks are ${HOOK_ROUTES}`));
