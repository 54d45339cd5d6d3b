/**
 * Readiness and graceful shutdown. On SIGTERM the pod leaves the Service endpoints while the process
 * keeps running; /readyz answers 503 at once, the server keeps serving for a short delay (until every
 * node has stopped sending it connections), then closes: hook calls in flight finish, calls that still
 * arrive on open connections get 503 (Fastify's return503OnClosing), new connections are refused.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';

const draining = new WeakSet<FastifyInstance>();

/** Whether /readyz should answer 503. */
export const isDraining = (app: FastifyInstance): boolean => draining.has(app);

/** /readyz answers 503 from now on; everything else is still served. */
export const beginDrain = (app: FastifyInstance): void => {
  draining.add(app);
};

/** Drains for `delayMs`, then closes once the hook calls in flight have finished. */
export const closeGracefully = async (app: FastifyInstance, delayMs: number): Promise<void> => {
  beginDrain(app);
  app.log.info({ delayMs }, 'shutting down: /readyz answers 503, closing after the delay');
  await sleep(delayMs);
  await app.close();
};
