import t from 'tap';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loggingServer, server } from './support.js';
import { clientErrorHandler } from '../../src/server/client-errors.js';
import { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { tcpAddress } from '../helpers/net.js';
import { valueAt } from '../support/paths.js';

const SLOW_BODY = 'POST /ironic/sync HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"parent":';

/** Sends `bytes` (by default the headers and the first bytes of a body), then nothing; what the server says, within `waitMs`. */
const slowBody = async (port: number, waitMs: number, bytes = SLOW_BODY): Promise<{ received: string; closed: boolean }> => {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const state = { closed: false };
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('close', () => (state.closed = true)).on('error', () => undefined);
  socket.write(bytes);
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

t.test('the 408 names REQUEST_TIMEOUT_SECONDS, and is logged without the body', async (t) => {
  const { app, logs } = loggingServer('info', {}, { requestTimeoutMs: 1000 });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { received } = await slowBody(tcpAddress(app.server).port, 4000);
  const [head = '', body = ''] = received.split('\r\n\r\n');
  t.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  t.match(head, /\r\nContent-Type: application\/json/);
  t.same(JSON.parse(body), {
    error: 'Request Timeout',
    message:
      "the request (headers and body) did not arrive within REQUEST_TIMEOUT_SECONDS (1 s) of the hook server: raise it, below the webhooks' timeout, if requests are that slow",
    statusCode: 408,
  });
  const lines = logs.entries().filter((e) => e['statusCode'] === 408);
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], { level: 'warn', remoteAddress: '127.0.0.1', msg: /^request timeout: .*REQUEST_TIMEOUT_SECONDS \(1 s\)/ });
  t.notMatch(logs.text(), /parent/, 'nothing of the request');
});

t.test('other connection errors are answered as Fastify would: 400, and 431 for headers too large', async (t) => {
  const { app, logs } = loggingServer('info');
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  const garbage = await slowBody(port, 2000, 'NOT HTTP AT ALL\r\n\r\n');
  t.match(garbage.received, /^HTTP\/1\.1 400 Bad Request\r\n[^]*"message":"Client Error"/);
  const huge = await slowBody(port, 2000, `GET /healthz HTTP/1.1\r\nHost: hooks\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`);
  t.match(huge.received, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  t.same(
    logs.entries().filter((e) => !String(e['msg']).startsWith('Server listening')),
    [],
    'not logged at info',
  );
});

t.test('a connection already closed or reset gets no answer', async (t) => {
  const { app, logs } = loggingServer('trace');
  t.teardown(() => app.close());
  const handle = clientErrorHandler(1000, () => app.log);
  const closed = new Socket();
  closed.destroy();
  const error = (code: string): ConnectionError => Object.assign(new Error(code), { code, bytesParsed: 0, rawPacket: { type: 'Buffer', data: [] } });
  t.doesNotThrow(() => handle(error('ERR_HTTP_REQUEST_TIMEOUT'), closed));
  t.doesNotThrow(() => handle(error('ECONNRESET'), new Socket()));
  t.equal(logs.text(), '', 'nothing logged');
});

t.test('by default a slow body is cut before Metacontroller would have given up (10 s)', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  t.ok(app.server.requestTimeout > 0 && app.server.requestTimeout < 10_000, `requestTimeout ${String(app.server.requestTimeout)} ms`);
  t.ok(app.server.headersTimeout <= app.server.requestTimeout, 'headers too');
  // Not in @types/node: read as any other field, and compared as a number.
  t.ok(Number(valueAt(app.server, 'connectionsCheckingInterval')) <= 1000, 'checked every second at least');
});
