import t from 'tap';
import { fakeSecrets, ironic, type Obj } from '../helpers/hooks.js';
import { hookLines, loggingServer, server } from './support.js';
import { describeValidation } from '../../src/server/validation.js';
import { objAt, valueAt } from '../support/paths.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const json = { 'content-type': 'application/json' };

t.test('a malformed or misshapen request is a 400 that says what is wrong', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const cases: { url?: string; payload: string | Obj; message: RegExp }[] = [
    { payload: '{"parent": {', message: /not valid JSON/ },
    { payload: '', message: /cannot be empty/ },
    { payload: '[]', message: /^invalid hook request: the body must be an object: a hook request of Metacontroller is a JSON object with the parent object/ },
    {
      payload: {},
      message: /^invalid hook request: parent is missing: a hook request of Metacontroller is a JSON object with the parent object \(and, for sync/,
    },
    { payload: { children: {} }, message: /^invalid hook request: parent is missing: / },
    { payload: { parent: {} }, message: /^invalid hook request: parent\.apiVersion, parent\.kind and parent\.metadata are missing$/ },
    {
      payload: { parent: { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: {} } },
      message: /^invalid hook request: parent\.metadata\.name is missing$/,
    },
    {
      payload: { parent: { apiVersion: '', kind: 'Ironic', metadata: { name: 'x' } } },
      message: /^invalid hook request: parent\.apiVersion must not be empty$/,
    },
    {
      payload: { parent: ironic({}), children: { 'Secret.v1': { x: 3 } } },
      message: /^invalid hook request: children must be a map of objects as Metacontroller sends it/,
    },
    { payload: { parent: ironic({}), finalizing: 'yes' }, message: /^invalid hook request: finalizing must be true or false$/ },
    {
      payload: { parent: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      message: /this hook serves Ironic \(ironic.metal3.io\); the parent is ConfigMap \(v1\)/,
    },
    { url: '/ironicdatabase/sync', payload: { parent: ironic({}) }, message: /this hook serves IronicDatabase/ },
    {
      url: '/ironic/customize',
      payload: { parent: { apiVersion: 'example.com/v1alpha1', kind: 'Ironic', metadata: { name: 'x' } } },
      message: /serves Ironic \(ironic.metal3.io\); the parent is Ironic \(example.com\/v1alpha1\)/,
    },
  ];
  for (const c of cases) {
    const response = await app.inject({
      method: 'POST',
      url: c.url ?? '/ironic/sync',
      headers: json,
      payload: typeof c.payload === 'string' ? c.payload : JSON.stringify(c.payload),
    });
    const what = JSON.stringify(c.payload).slice(0, 80);
    t.equal(response.statusCode, 400, what);
    t.match(response.json(), { error: 'Bad Request', statusCode: 400, message: c.message }, what);
    t.notMatch(response.json(), { message: /Expected|body\// }, `${what}: not in the validator's words`);
    t.match(response.headers['content-type'], /^application\/json/);
  }
});

t.test("words for the validator's other problems", async (t) => {
  t.equal(describeValidation([{ instancePath: '/parent/spec', message: 'Expected array' }]), 'parent.spec is invalid: Expected array');
  t.equal(describeValidation([{ instancePath: '/controller' }]), 'controller is invalid');
  t.equal(describeValidation([{ instancePath: '/related', message: 'Expected number' }]), 'related must be a number');
  t.equal(
    describeValidation([
      { instancePath: '/parent/kind', message: 'Expected required property' },
      { instancePath: '/finalizing', message: 'Expected boolean' },
    ]),
    'parent.kind is missing; finalizing must be true or false',
  );
});

t.test('only JSON is accepted: other content types are a 415', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/yaml']) {
    const response = await app.inject({
      method: 'POST',
      url: '/ironic/sync',
      headers: { 'content-type': type },
      payload: JSON.stringify({ parent: ironic({}) }),
    });
    t.equal(response.statusCode, 415, type);
    t.match(response.json(), { error: 'Unsupported Media Type', message: new RegExp(`must be application/json, not "${type}"`) });
  }
  const charset = await app.inject({
    method: 'POST',
    url: '/ironic/customize',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ parent: ironic({}) }),
  });
  t.equal(charset.statusCode, 200, 'application/json with a charset is fine');
});

t.test('a body over BODY_LIMIT_BYTES is a 413 that names the variable', async (t) => {
  const app = server({ bodyLimit: 2048 });
  t.teardown(() => app.close());
  const big = JSON.stringify({ parent: ironic({ padding: 'x'.repeat(4096) }) });
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', headers: json, payload: big });
  t.equal(response.statusCode, 413);
  t.match(response.json(), { error: 'Payload Too Large', statusCode: 413, message: /BODY_LIMIT_BYTES \(2048 bytes\)/ });
  const small = await app.inject({ method: 'POST', url: '/ironic/customize', headers: json, payload: JSON.stringify({ parent: ironic({}) }) });
  t.equal(small.statusCode, 200, 'a body under the limit is served');
});

t.test('unknown routes are a JSON 404 that lists the hooks', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  for (const [method, url] of [
    ['POST', '/nope'],
    ['GET', '/ironic/sync'],
    ['POST', '/ironic/sync/extra?x=1'],
  ] as const) {
    const response = await app.inject({ method, url, headers: json, ...(method === 'POST' && { payload: '{}' }) });
    t.equal(response.statusCode, 404, `${method} ${url}`);
    t.match(response.json(), {
      error: 'Not Found',
      statusCode: 404,
      message: new RegExp(`no route ${method} ${url.split('?')[0]}: the hooks are POST /ironic/`),
    });
  }
});

t.test('a bug inside a hook is a 500 that leaks nothing, logged with the parent and the hook', async (t) => {
  const secrets = {
    ...fakeSecrets(),
    hash: async (): Promise<string> => {
      throw new Error('renderer exploded at /internal/path/of/the/server');
    },
  };
  const { app, logs } = loggingServer('info', { secrets });
  t.teardown(() => app.close());
  const parent = ironic({ networking: provisioning }, { metadata: { name: 'broken', namespace: 'lab', generation: 7 } });
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', payload: { parent, children: {}, related: {} } });
  t.equal(response.statusCode, 500);
  const body = objAt(response.json());
  t.same(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
  t.match(body, { error: 'Internal Server Error', statusCode: 500, message: /^the hook server failed \(request [^)]+\); see its logs$/ });
  t.notMatch(response.body, /exploded|\/internal\/|stack|\s+at /, 'no message, stack or path of the error');
  const lines = hookLines(logs);
  t.equal(lines.length, 1, 'one line for the call');
  t.match(lines[0], {
    level: 'error',
    hook: 'ironic/sync',
    parent: 'lab/broken',
    generation: 7,
    outcome: 'error',
    statusCode: 500,
    err: { message: /renderer exploded/, stack: /Error/ },
  });
  t.match(String(body['message']), String(lines[0]?.['reqId']), 'the message names the request id of the log line');
});

t.test('a "__proto__" key in a parent is dropped, not a 400 and no prototype change', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const body = JSON.stringify({ parent: ironic({ networking: provisioning, nodeSelector: { role: 'x' } }), children: {}, related: {} }).replace(
    '"role":"x"',
    '"role":"x","__proto__":{"polluted":true}',
  );
  const response = await app.inject({ method: 'POST', url: '/ironic/sync', headers: json, payload: body });
  t.equal(response.statusCode, 200);
  t.equal(valueAt({}, 'polluted'), undefined);
  t.notMatch(response.body, /polluted/);
});
