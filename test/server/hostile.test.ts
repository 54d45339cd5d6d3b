import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { ironic, type Obj } from '../helpers/hooks.js';
import { server } from './support.js';

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };
const json = { 'content-type': 'application/json' };

/** An array nested `depth` deep, as JSON text (no recursion needed to build or send it). */
const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const post = (app: FastifyInstance, url: string, text: string) => app.inject({ method: 'POST', url, headers: json, payload: text });

/** The children of a first sync, observed as Metacontroller sends them (by type, then namespace/name). */
const observed = async (app: FastifyInstance): Promise<Record<string, Record<string, Obj>>> => {
  const first = (await post(app, '/ironic/sync', JSON.stringify({ parent: ironic({ networking: provisioning }), children: {}, related: {} }))).json<{
    children: Obj[];
  }>();
  const children: Record<string, Record<string, Obj>> = {};
  for (const child of first.children) {
    const metadata = child['metadata'] as { name: string };
    (children[`${String(child['kind'])}.${String(child['apiVersion'])}`] ??= {})[`metal3/${metadata.name}`] = child;
  }
  return children;
};

t.test('an array nested 4,000 deep in an observed child of an invalid spec is a 400 that names the child, not a 500', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const children = await observed(app);
  const invalid = ironic({ networking: { interface: 'eth1', ipAddress: 'not-an-address' } });
  const text = JSON.stringify({ parent: invalid, children, related: {} }).replace('"containers":', `"deep":${deepArray(4000)},"containers":`);
  const response = await post(app, '/ironic/sync', text);
  t.equal(response.statusCode, 400);
  t.match(response.json(), { message: /^children Deployment\.apps\/v1 metal3\/ironic-service is nested deeper than 100 levels/ });
});

t.test('a related Secret with a 5,000-deep data value is a 400 that names the Secret', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ironic-api-credentials', namespace: 'metal3' }, data: { username: '@DEEP@' } };
  const text = JSON.stringify({
    parent: ironic({ networking: provisioning }),
    children: {},
    related: { 'Secret.v1': { 'metal3/ironic-api-credentials': secret } },
  }).replace('"@DEEP@"', deepArray(5000));
  const response = await post(app, '/ironic/sync', text);
  t.equal(response.statusCode, 400);
  t.match(response.json(), { message: /^related Secret\.v1 metal3\/ironic-api-credentials is nested deeper than 100 levels/ });
});

t.test('a body nested deeper than the limit anywhere is a 400, on every route', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  for (const url of PARENT_KINDS.flatMap((kind) => ['customize', 'sync', 'finalize'].map((hook) => `/${kind.hookPath}/${hook}`))) {
    const response = await post(app, url, JSON.stringify({ parent: ironic({ overrides: '@DEEP@' }) }).replace('"@DEEP@"', deepArray(150)));
    t.equal(response.statusCode, 400, url);
    t.match(response.json(), { message: /^the parent is nested deeper than 100 levels/ }, url);
  }
  const outside = await post(app, '/ironic/sync', JSON.stringify({ parent: ironic({}), extra: '@DEEP@' }).replace('"@DEEP@"', deepArray(150)));
  t.match(outside.json(), { statusCode: 400, message: /^the request body is nested deeper/ });
  const fine = await post(app, '/ironic/customize', JSON.stringify({ parent: ironic({ overrides: '@DEEP@' }) }).replace('"@DEEP@"', deepArray(80)));
  t.equal(fine.statusCode, 200, 'a nesting under the limit is served');
});

t.test('malformed related and observed objects are never a 5xx', async (t) => {
  const app = server();
  t.teardown(() => app.close());
  const children = await observed(app);
  const deployment = Object.values(children['Deployment.apps/v1'] ?? {})[0] as { spec: { template: { spec: Obj } } };
  deployment.spec.template.spec['volumes'] = { not: 'a list' };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ironic-api-credentials', namespace: 'metal3' },
    data: { username: { nested: 'object' }, password: ['x'] },
  };
  for (const parent of [ironic({ networking: provisioning }), ironic({ networking: { interface: 'eth1', ipAddress: 'not-an-address' } })]) {
    const response = await post(
      app,
      '/ironic/sync',
      JSON.stringify({ parent, children, related: { 'Secret.v1': { 'metal3/ironic-api-credentials': secret } } }),
    );
    t.ok(response.statusCode < 500, `${String(response.statusCode)} ${response.body.slice(0, 120)}`);
  }
});
