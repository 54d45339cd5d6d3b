import t from 'tap';
import fc from 'fast-check';
import { dnsLabel, ironicNames, labelValue, objectName, databaseNames } from '../../src/render/names.js';

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Valid Kubernetes object names (DNS-1123 subdomains up to 253 characters). */
const objectNames = fc
  .array(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join('.').slice(0, 253).replace(/[.-]+$/, ''))
  .filter((n) => n.length > 0 && SUBDOMAIN.test(n));

t.test('child names and label values stay within Kubernetes limits for any valid parent name', async (t) => {
  t.doesNotThrow(() =>
  fc.assert(
    fc.property(objectNames, (name) => {
      const n = ironicNames(name);
      const d = databaseNames(name);
      return (
        DNS_LABEL.test(n.service) && n.service.length <= 63 &&
        DNS_LABEL.test(d.service) && d.service.length <= 63 &&
        n.workload.length <= 253 && SUBDOMAIN.test(n.workload) &&
        n.upgradeJob('pre', '37.0', '38.0').length <= 63 &&
        LABEL_VALUE.test(labelValue(name)) && labelValue(name).length <= 63
      );
    }),
    { numRuns: 500 },
  ),
  );
});

t.test('different names never share a Service', async (t) => {
  t.not(dnsLabel('a.b'), dnsLabel('a-b'));
  t.equal(dnsLabel('ironic'), 'ironic', 'a valid name is kept as it is');
  t.match(dnsLabel('1ironic'), /^x-1ironic-[0-9a-f]{8}$/);
  t.equal(objectName('x'.repeat(300)).length, 253);
});
