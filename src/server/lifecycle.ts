/**
 * Readiness and graceful shutdown. On SIGTERM the pod leaves the Service endpoints while the process
 * keeps running; /readyz answers 503 at once, the server keeps serving for a short delay (until every
 * node has stopped sending it connections), then closes: hook calls in flight finish, calls that still
 * arrive on open connections get 503 (Fastify's return503OnClosing), new connections are refused.
 *
 * Keep-alive: a connection that is idle when the server closes is closed by it, and a client that sends
 * its next request at that moment gets a reset. So every answer during the delay says
 * `Connection: close` and the connection is closed after it, cleanly: by the end of the delay a busy
 * client holds no connection to this server any more and has opened new ones to the other pods. Then the
 * server stops accepting connections but does not close the open ones at once: for a short linger, a
 * request on a connection opened at the last moment is still answered (with `Connection: close`); only
 * then does the close end the connections still idle.
 */
import { Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const draining = new WeakSet<FastifyInstance>();

/** Whether /readyz should answer 503. */
export const isDraining = (app: FastifyInstance): boolean => draining.has(app);

/** /readyz answers 503 from now on; everything else is still served. */
export const beginDrain = (app: FastifyInstance): void => {
  draining.add(app);
};

/** An onSend hook: from the start of the drain, each answer closes its connection. */
export const closeConnectionWhenDraining =
  (app: FastifyInstance) =>
  (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void => {
    if (draining.has(app)) void reply.header('connection', 'close');
    done(null, payload);
  };

/** The longest wait between no longer accepting connections and closing the idle ones. */
export const LINGER_MS = 500;

/**
 * Stops listening without touching the open connections (http.Server#close would also destroy the
 * idle ones, and with them any request the client is sending on them at this moment).
 */
const stopAccepting = (server: Server): void => {
  if (server.listening) Server.prototype.close.call(server);
};

/**
 * Drains for `delayMs`, stops accepting connections, lingers (at most LINGER_MS, never longer than the
 * delay), then closes once the hook calls in flight have finished.
 */
export const closeGracefully = async (app: FastifyInstance, delayMs: number): Promise<void> => {
  beginDrain(app);
  app.log.info({ delayMs }, 'shutting down: /readyz answers 503, closing after the delay');
  await sleep(delayMs);
  stopAccepting(app.server);
  await sleep(Math.min(delayMs, LINGER_MS));
  await app.close();
};
