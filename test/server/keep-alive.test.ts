import t from 'tap';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeGracefully } from '../../src/server.js';
import { ironic } from '../helpers/hooks.js';
import { server } from './support.js';
import { tcpAddress } from '../helpers/net.js';

/** `sent` and `at`: when the call was sent and when it ended (performance.now(), the clock of the drain's start). */
type Outcome = { readonly status?: number; readonly connection?: string; readonly error?: string; readonly sent: number; readonly at: number };

const body = JSON.stringify({ parent: ironic({}) });

/** One customize call over the agent: its status and Connection header, or the socket error. */
const call = (agent: Agent, port: number): Promise<Outcome> =>
  new Promise((resolve) => {
    const sent = performance.now();
    const req = request(
      { host: '127.0.0.1', port, agent, method: 'POST', path: '/ironic/customize', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection ?? '', sent, at: performance.now() }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, sent, at: performance.now() }));
    req.end(body);
  });

/**
 * Keeps `loops` keep-alive connections busy, as Metacontroller's workers do, until an answer closes the
 * connection or a call fails: the next call would go to another pod (this one has left the Service
 * endpoints by then), so a new connection is opened only while none has been told to close.
 */
const load = (agent: Agent, port: number, loops: number, outcomes: Outcome[]): Promise<Outcome[]> => {
  const loop = async (): Promise<void> => {
    for (;;) {
      const outcome = await call(agent, port);
      outcomes.push(outcome);
      if (outcome.error !== undefined || outcome.connection === 'close') return;
    }
  };
  return Promise.all(Array.from({ length: loops }, loop)).then(() => outcomes);
};

/** Waits until the load has been answered at least once (a slow machine may need more than a moment). */
const firstAnswer = async (outcomes: readonly Outcome[]): Promise<void> => {
  for (let waited = 0; waited < 20_000 && !outcomes.some((o) => o.status === 200); waited += 20) await sleep(20);
};

t.test('shutdown under keep-alive load: no request is reset, answers during the drain say Connection: close', async (t) => {
  const app = server();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  t.teardown(() => agent.destroy());
  const outcomes: Outcome[] = [];
  const loading = load(agent, port, 16, outcomes);
  await firstAnswer(outcomes);
  await sleep(100);
  const drainStart = performance.now();
  await closeGracefully(app, 400);
  await loading;
  const errors = outcomes.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED');
  t.same(
    errors.map((o) => o.error),
    [],
    'no reset, no hang-up',
  );
  t.equal(outcomes.filter((o) => o.connection === 'close').length, 16, 'every connection ended with an answer that closed it');
  // The client runs in this process: a call sent after the drain began is answered after it (an answer
  // received late on a loaded machine may have been written before it).
  const drained = outcomes.filter((o) => o.status !== undefined && o.sent > drainStart);
  t.same(
    drained.filter((o) => o.connection !== 'close').map((o) => `${String(o.status)} ${o.connection ?? ''}`),
    [],
    'every answer during the drain carries Connection: close',
  );
  t.ok(
    outcomes.some((o) => o.status === 200 && o.at < drainStart),
    'served before the drain',
  );
  t.same(
    [...new Set(outcomes.map((o) => o.status ?? o.error))].filter((s) => s !== 200 && s !== 503),
    [],
    'only 200 or 503',
  );
});
