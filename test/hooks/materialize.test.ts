/**
 * The real bcrypt secrets: a hash that cannot be checked never crashes a sync; it does not match, so the
 * credentials are hashed anew (and the pods roll once), as for any mismatch.
 */
import t from 'tap';
import { bcryptSecrets } from '../../src/hooks/materialize.js';
import { syncIronic } from '../../src/hooks/ironic.js';
import { FIXED_NOW, ironic, syncRequest, testConfig } from '../helpers/hooks.js';
import { objAt, objsAt, valueAt } from '../support/paths.js';

const MALFORMED = ['$2y$99$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2', '$2b$03$abcdefghijklmnopqrstuuOmmpA8Yc1f7LnvCu0w3LNtB3JqkfMq2', '$2b$10$short', 'not-a-hash'];

t.test('verify answers false for a hash bcrypt cannot read', async (t) => {
  const secrets = bcryptSecrets();
  for (const hash of MALFORMED) t.equal(await secrets.verify('password', hash), false, hash);
  const good = await secrets.hash('password');
  t.equal(await secrets.verify('password', good), true, 'a real hash still matches');
});

t.test('a malformed hash in our observed htpasswd Secret is replaced, not a 500', async (t) => {
  const b64 = (v: string): string => Buffer.from(v).toString('base64');
  for (const hash of MALFORMED) {
    const children = {
      'Secret.v1': {
        'metal3/ironic-api-credentials': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ironic-api-credentials', namespace: 'metal3' }, data: { username: b64('ironic'), password: b64('pw') } },
        'metal3/ironic-htpasswd-0123456789': {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'ironic-htpasswd-0123456789', namespace: 'metal3', labels: { 'ironic.metal3.io/component': 'htpasswd' } },
          data: { htpasswd: b64(`ironic:${hash}`) },
        },
      },
    };
    const request = syncRequest({ parent: ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } }), children, related: {} });
    const response = await syncIronic(request, { config: testConfig().render, secrets: bcryptSecrets(), now: () => FIXED_NOW });
    const htpasswd = objsAt(response, 'children').filter((c) => String(objAt(c, 'metadata')['name']).startsWith('ironic-htpasswd-'));
    t.equal(htpasswd.length, 1, `${hash}: one htpasswd Secret`);
    t.not(valueAt(htpasswd[0], 'metadata', 'name'), 'ironic-htpasswd-0123456789', `${hash}: a new one, with a hash that works`);
  }
});
