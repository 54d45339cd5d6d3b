import t from 'tap';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { server } from './support.js';
import { tcpAddress } from '../helpers/net.js';
import { valueAt } from '../support/paths.js';

/** Sends the headers and the first bytes of a body, then nothing; what the server says, within `waitMs`. */
const slowBody = async (port: number, waitMs: number): Promise<{ received: string; closed: boolean }> => {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const state = { closed: false };
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('close', () => (state.closed = true)).on('error', () => undefined);
  socket.write('POST /ironic/sync HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"parent":');
  const deadline = Date.now() + waitMs;
  while (!state.closed && Date.now() < deadline) await sleep(20);
  socket.destroy();
  return { received, closed: state.closed };
};

t.test('a body that does not arrive in time is a 408 and its connection is closed', async (t) => {
  const app = server({ requestTimeoutMs: 200 });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  const started = Date.now();
  const { received, closed } = await slowBody(port, 3000);
  t.match(received, /^HTTP\/1\.1 408 /, 'a 408');
  t.ok(closed, 'the connection is closed');
  t.ok(Date.now() - started < 1500, `within the timeout and one check (${String(Date.now() - started)} ms)`);
});

t.test('by default a slow body is cut before Metacontroller would have given up (10 s)', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  t.ok(app.server.requestTimeout > 0 && app.server.requestTimeout < 10_000, `requestTimeout ${String(app.server.requestTimeout)} ms`);
  t.ok(app.server.headersTimeout <= app.server.requestTimeout, 'headers too');
  // Not in @types/node: read as any other field, and compared as a number.
  t.ok(Number(valueAt(app.server, 'connectionsCheckingInterval')) <= 1000, 'checked every second at least');
});
