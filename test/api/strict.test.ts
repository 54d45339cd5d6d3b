/**
 * Unknown fields are found by path at every level, as strict field validation of the API server does;
 * maps and embedded Kubernetes objects (which keep unknown fields) are not reported.
 */
import t from 'tap';
import { IronicSpec } from '../../src/api/ironic/schema.js';
import { IronicDatabaseSpec } from '../../src/api/ironic-database/schema.js';
import { unknownFields } from '../../src/cli/emulation/strict.js';

const cases: readonly { scenario: string; schema: typeof IronicSpec | typeof IronicDatabaseSpec; value: unknown; expected: string[] }[] = [
  {
    scenario: 'a known spec',
    schema: IronicSpec,
    value: { networking: { ipAddress: '192.0.2.2', dhcp: { networkCIDR: '192.0.2.0/24' } }, nodeSelector: { a: 'b' } },
    expected: [],
  },
  {
    scenario: 'typos at the top and nested',
    schema: IronicSpec,
    value: { apiCredentialName: 'x', networking: { ipAdress: '192.0.2.2' } },
    expected: ['spec.apiCredentialName', 'spec.networking.ipAdress'],
  },
  {
    scenario: 'inside list items',
    schema: IronicSpec,
    value: { networking: { dhcp: { extraRanges: [{ networkCIDR: 'x', rangeBegin: 'a', rangeEnd: 'b', bogus: 1 }] } } },
    expected: ['spec.networking.dhcp.extraRanges[0].bogus'],
  },
  {
    scenario: 'map keys are data, not fields',
    schema: IronicSpec,
    value: { overrides: { labels: { anything: 'goes' } }, networking: { ingress: { annotations: { x: 'y' } } } },
    expected: [],
  },
  {
    scenario: 'embedded Kubernetes objects keep their fields',
    schema: IronicSpec,
    value: { overrides: { containers: [{ name: 'a', image: 'b', securityContext: { privileged: false } }] } },
    expected: [],
  },
  {
    scenario: 'int-or-string quantities have no fields',
    schema: IronicDatabaseSpec,
    value: { resources: { requests: { cpu: '1' } }, storage: { size: '1Gi', sizee: 2 } },
    expected: ['spec.storage.sizee'],
  },
  { scenario: 'not an object: nothing to report', schema: IronicSpec, value: 'x', expected: [] },
];

for (const c of cases) t.same(unknownFields(c.schema, c.value, 'spec'), c.expected, c.scenario);

t.test('deep input is bounded, not a crash', async (t) => {
  let deep: unknown = {};
  for (let i = 0; i < 10_000; i += 1) deep = { networking: deep };
  t.doesNotThrow(() => unknownFields(IronicSpec, deep, 'spec'));
});
