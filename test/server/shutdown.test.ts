import t from 'tap';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { beginDrain, closeGracefully } from '../../src/server.js';
import { fakeSecrets, ironic } from '../helpers/hooks.js';
import { server } from './support.js';
import { tcpAddress } from '../helpers/net.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };

/** Secrets whose bcrypt waits until the test releases it: a real slow path of a first sync. */
const slowSecrets = () => {
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const hashing = new Promise<void>((resolve) => (entered = resolve));
  const fake = fakeSecrets();
  return {
    secrets: {
      ...fake,
      hash: async (password: string) => {
        entered();
        await gate;
        return fake.hash(password);
      },
    },
    hashing,
    release: () => release(),
  };
};

const httpRequest = (path: string, body: string): string =>
  `POST ${path} HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

t.test('draining: /readyz answers 503 while everything else is still served', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  beginDrain(app);
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 503);
  t.same(ready.json(), { status: 'shutting down' });
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'still alive');
  t.equal((await app.inject({ method: 'POST', url: '/ironic/customize', payload: { parent: ironic({}) } })).statusCode, 200, 'hooks still served');
});

t.test('closing: the call in flight completes and closes its connection; a call pipelined behind it is left for another pod', async (t) => {
  const slow = slowSecrets();
  const app = server({}, { secrets: slow.secrets });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  let received = '';
  let reset = false;
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => (reset = true));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(httpRequest('/ironic/sync', JSON.stringify({ parent: ironic({ networking: provisioning }), children: {}, related: {} })));
  await slow.hashing;

  let closed = false;
  const closing = closeGracefully(app, 0).then(() => (closed = true));
  await sleep(50);
  t.notOk(closed, 'the close waits for the call in flight');
  // A second call on the same (busy, so not closed) connection, after the close began.
  socket.write(httpRequest('/ironic/customize', JSON.stringify({ parent: ironic({}) })));
  await sleep(50);
  slow.release();
  await closing;
  await ended;
  const answers = received.split(/(?=HTTP\/1\.1 )/);
  t.equal(answers.length, 1, 'one answer');
  t.match(answers[0], /^HTTP\/1\.1 200 OK\r\n/, 'the call in flight completed');
  t.match(answers[0], /"children":\[/, 'with its whole response');
  t.match(answers[0], /\r\nconnection: close\r\n/i, 'and closed its connection: the client sends its next call elsewhere');
  t.notOk(reset, 'the connection was closed, not reset');
  t.ok(closed);
});

t.test('a request that arrives while the server closes gets a 503 that closes the connection', async (t) => {
  const app = server();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const request = httpRequest('/ironic/customize', JSON.stringify({ parent: ironic({}) }));
  // Half of the headers: the connection is busy, so the close does not end it.
  socket.write(request.slice(0, 20));
  await sleep(50);
  const closing = app.close();
  await sleep(50);
  socket.write(request.slice(20));
  await closing;
  await ended;
  t.match(received, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  t.match(received, /connection: close/i);
});

t.test('closeGracefully waits for the drain delay before closing', async (t) => {
  const app = server();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tcpAddress(app.server);
  // Long enough for a first hook call on a loaded machine to be answered within the delay.
  const closing = closeGracefully(app, 2000);
  await sleep(50);
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  t.equal(ready.status, 503, '/readyz first');
  const hook = await fetch(`http://127.0.0.1:${port}/ironic/customize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ parent: ironic({}) }),
  });
  t.equal(hook.status, 200, 'hooks are served during the delay');
  await closing;
  await t.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'closed afterwards');
});
