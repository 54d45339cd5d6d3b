/**
 * The schema of Metacontroller's CompositeController that deploy/ is checked against refuses what the
 * real API would prune or reject, and the webhook URL is built as Metacontroller builds it.
 */
import t from 'tap';
import { compositeControllerErrors, Hook, webhookUrl } from './composite-controller.js';
import { checked } from '../helpers/json.js';
import { present } from '../support/paths.js';

t.test('the CompositeController schema refuses typos, wrong enums and bad durations', async (t) => {
  const valid = () => ({
    apiVersion: 'metacontroller.k8s.io/v1alpha1',
    kind: 'CompositeController',
    metadata: { name: 'c' },
    spec: {
      parentResource: { apiVersion: 'example.com/v1', resource: 'widgets' },
      childResources: [{ apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'OnDelete' } }],
      generateSelector: true,
      resyncPeriodSeconds: 300,
      hooks: {
        sync: { version: 'v2', webhook: { url: 'http://h.ns:8080/sync', timeout: '1m30s' } },
        finalize: { version: 'v2', webhook: { service: { name: 'h', namespace: 'ns', port: 8080 }, path: '/finalize' } },
      },
    },
  });
  t.same(compositeControllerErrors(valid()), []);
  const broken: [string, (c: ReturnType<typeof valid>) => void][] = [
    ['a misspelt strategy field', (c) => Object.assign(present(c.spec.childResources[0]), { updateStrategy: { methd: 'OnDelete' } })],
    ['an unknown method', (c) => Object.assign(present(c.spec.childResources[0]), { updateStrategy: { method: 'Replace' } })],
    ['a v3 hook', (c) => Object.assign(c.spec.hooks.sync, { version: 'v3' })],
    ['a timeout without unit', (c) => Object.assign(c.spec.hooks.sync.webhook, { timeout: '10' })],
    ['a service without path', (c) => Object.assign(c.spec.hooks, { finalize: { webhook: { service: { name: 'h', namespace: 'ns' } } } })],
    ['no parent resource', (c) => Object.assign(c.spec, { parentResource: { apiVersion: 'example.com/v1' } })],
    ['a string resync period', (c) => Object.assign(c.spec, { resyncPeriodSeconds: '300' })],
    ['a string generateSelector', (c) => Object.assign(c.spec, { generateSelector: 'true' })],
    ['a namespace', (c) => Object.assign(c.metadata, { namespace: 'ns' })],
    ['an unknown spec field', (c) => Object.assign(c.spec, { resyncPeriod: 300 })],
  ];
  for (const [scenario, change] of broken) {
    const c = valid();
    change(c);
    t.not(compositeControllerErrors(c).length, 0, scenario);
  }
  const hooks = { sync: checked(Hook, valid().spec.hooks.sync), finalize: checked(Hook, valid().spec.hooks.finalize) };
  t.equal(webhookUrl(hooks.sync).href, 'http://h.ns:8080/sync');
  t.equal(webhookUrl(hooks.finalize).href, 'http://h.ns:8080/finalize');
  t.equal(webhookUrl({ webhook: { service: { name: 'h', namespace: 'ns' }, path: '/x' } }).href, 'http://h.ns/x', 'port 80 and http by default');
});
