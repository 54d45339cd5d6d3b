/**
 * Container resources over the defaults: the defaults alone are worked out once per table, and every
 * answer is a new object, the same as working it out again.
 */
import t from 'tap';
import { resourcesOverDefaults } from '../../src/api/shared/fields.js';
import { DEFAULT_CONTAINER_REQUESTS } from '../../src/api/ironic/schema.js';

t.test('the defaults alone: canonical, sorted, the same answer every time, and a new object each time', async (t) => {
  const defaults = { memory: '1024Mi', cpu: '0.5' };
  const first = resourcesOverDefaults(defaults, undefined);
  t.same(first, { requests: { cpu: '500m', memory: '1Gi' } });
  t.same(resourcesOverDefaults(defaults, {}), first, 'no requests nor limits');
  t.same(resourcesOverDefaults(defaults, { requests: {} }), first, 'the same as working it out with the user part');
  (first.requests as Record<string, string>)['cpu'] = 'changed';
  t.same(resourcesOverDefaults(defaults, undefined), { requests: { cpu: '500m', memory: '1Gi' } }, 'changing an answer changes no later one');
  t.not(resourcesOverDefaults(defaults, undefined).requests, resourcesOverDefaults(defaults, undefined).requests, 'never the same object');
  t.same(resourcesOverDefaults(DEFAULT_CONTAINER_REQUESTS.ironic, undefined), { requests: { cpu: '100m', memory: '400Mi' } });
});

t.test('user requests replace the defaults, user limits cap them', async (t) => {
  const defaults = { cpu: '100m', memory: '400Mi' };
  t.same(resourcesOverDefaults(defaults, { requests: { cpu: 2 } }), { requests: { cpu: '2', memory: '400Mi' } });
  t.same(resourcesOverDefaults(defaults, { limits: { memory: '256Mi' } }), { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '256Mi' } });
  t.same(resourcesOverDefaults(defaults, { limits: {} }), { requests: { cpu: '100m', memory: '400Mi' } }, 'empty limits are left out');
  t.same(resourcesOverDefaults(defaults, undefined), { requests: { cpu: '100m', memory: '400Mi' } }, 'the defaults alone, untouched');
});
