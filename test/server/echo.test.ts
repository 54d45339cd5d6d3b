import t from 'tap';
import { ironic } from '../helpers/hooks.js';
import { hookLines, loggingServer, server } from './support.js';
import { Type } from '@sinclair/typebox';
import { bodyOf } from '../helpers/json.js';
import { valueAt } from '../support/paths.js';

const json = { 'content-type': 'application/json' };
const huge = 'K'.repeat(1024 * 1024);

t.test('a "constructor.prototype" key anywhere in the body is dropped as "__proto__" is, not a 400', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const parent = ironic({ overrides: { containers: [{ name: 'ironic', constructor: { prototype: { polluted: true } } }] } });
  const response = await app.inject({ method: 'POST', url: '/ironic/customize', headers: json, payload: JSON.stringify({ parent }) });
  t.equal(response.statusCode, 200, response.body.slice(0, 200));
  t.equal(valueAt({}, 'polluted'), undefined, 'nothing polluted');
});

t.test('echoed input is cut to 100 characters in the answer and in the log line', async (t) => {
  const { app, logs } = loggingServer('info');
  t.teardown(() => app.close());
  const parent = { apiVersion: `${huge}/v1`, kind: huge, metadata: { name: huge, namespace: huge } };
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', headers: json, payload: JSON.stringify({ parent, children: {}, related: {} }) });
  t.equal(response.statusCode, 400);
  const { message } = bodyOf(response, Type.Object({ message: Type.String() }));
  t.ok(message.length < 400, `a short message (${String(message.length)} characters)`);
  t.match(message, new RegExp(`the parent is ${'K'.repeat(100)}… \\(${'K'.repeat(100)}…\\)`));
  const line = JSON.stringify(hookLines(logs)[0]);
  t.ok(line.length < 1000, `a short log line (${String(line.length)} characters)`);

  const type = await app.inject({ method: 'POST', url: '/ironic/sync', headers: { 'content-type': `text/${huge}` }, payload: 'x' });
  t.ok(type.body.length < 400, 'a short 415');
  const route = await app.inject({ method: 'POST', url: `/${huge}`, headers: json, payload: '{}' });
  t.ok(route.body.length < 1000, 'a short 404');
  t.ok(logs.text().length < 4000, 'short logs');
});

t.test('a validation message that echoes a long key is cut', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const response = await app.inject({
    method: 'POST',
    url: '/ironic/sync',
    headers: json,
    payload: JSON.stringify({ parent: ironic({}), children: { [huge]: { x: 3 } } }),
  });
  t.equal(response.statusCode, 400);
  t.ok(response.body.length < 1000, `a short message (${String(response.body.length)} characters)`);
});
