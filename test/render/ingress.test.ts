/**
 * The Ingress: with TLS, httpd serves HTTPS behind it, so ingress-nginx must be told to speak HTTPS to the
 * backend (otherwise every request gets 400); the user's own annotation wins.
 */
import t from 'tap';
import { childOf, syncFor } from '../helpers/render.js';
import { TLS_SECRET } from '../fixtures/ironic-scenarios.js';
import type { Obj } from '../helpers/hooks.js';

const ingress = { host: 'ironic.example.com', ingressClassName: 'nginx' };

const cases: readonly { scenario: string; spec: Obj; related: Obj[]; expected: Record<string, string> | undefined }[] = [
  {
    scenario: 'TLS: HTTPS to the backend',
    spec: { tls: { certificateName: 'ironic-tls' }, networking: { disableHostNetwork: true, ingress } },
    related: [TLS_SECRET],
    expected: { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' },
  },
  { scenario: 'no TLS: plain HTTP, no annotation', spec: { networking: { disableHostNetwork: true, ingress } }, related: [], expected: undefined },
  {
    scenario: "the user's setting wins",
    spec: {
      tls: { certificateName: 'ironic-tls' },
      networking: { disableHostNetwork: true, ingress: { ...ingress, annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPCS', a: 'b' } } },
    },
    related: [TLS_SECRET],
    expected: { a: 'b', 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPCS' },
  },
];

for (const c of cases) {
  t.test(c.scenario, async (t) => {
    const { children } = await syncFor(c.spec, c.related);
    const rendered = childOf(children, 'Ingress');
    t.ok(rendered, 'an Ingress is rendered');
    t.same(rendered?.metadata?.annotations, c.expected);
  });
}
