/**
 * dnsmasq's mounts: ironic-image's rundnsmasq serves TFTP from /shared/tftpboot (where Ironic's `pxe` boot
 * interface writes too) and copies custom iPXE firmware from /shared/custom_ipxe_firmware, so dnsmasq mounts
 * the pod's shared volume, the one ironic and httpd mount, in every layout: single node, high availability,
 * and iPXE over TLS (which adds the same mount: it is there once).
 */
import t from 'tap';
import { childOf, containerOf, podOf, syncFor } from '../helpers/render.js';
import { validateK8s } from '../helpers/k8s.js';
import { secret } from '../fixtures/ironic-scenarios.js';
import type { Obj } from '../helpers/hooks.js';
import { objAt } from '../support/paths.js';

const dhcp = { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' };
const DB_SECRET = secret('db-creds', { username: 'u', password: 'p' });

const cases: { scenario: string; spec: Obj; related?: Obj[]; workload: 'Deployment' | 'DaemonSet'; extra: string[] }[] = [
  { scenario: 'single node', spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2', dhcp } }, workload: 'Deployment', extra: [] },
  {
    scenario: 'high availability',
    spec: {
      highAvailability: true,
      database: { host: 'mariadb', name: 'ironic', credentialsName: 'db-creds' },
      networking: { interface: 'eth1', ipAddress: '192.0.2.2', keepalived: { enabled: true }, dhcp },
    },
    related: [DB_SECRET],
    workload: 'DaemonSet',
    extra: [],
  },
  {
    scenario: 'iPXE over TLS',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2', dhcp }, tls: { generateCertificate: true, ipxe: true } },
    workload: 'Deployment',
    extra: ['/certs/ipxe'],
  },
];

for (const c of cases) {
  t.test(`${c.scenario}: dnsmasq serves from the shared volume`, async (t) => {
    const { children } = await syncFor(c.spec, c.related);
    const pod = podOf(children);
    const dnsmasq = containerOf(pod, 'dnsmasq');
    const shared = (dnsmasq?.volumeMounts ?? []).filter((m) => m.mountPath === '/shared');
    t.same(shared, [{ name: 'ironic-shared', mountPath: '/shared' }], 'one writable mount at /shared (rundnsmasq writes /shared/tftpboot)');
    t.same(
      (dnsmasq?.volumeMounts ?? []).map((m) => m.mountPath),
      ['/shared', ...c.extra],
      'nothing else but what the layout needs',
    );
    const ironicShared = containerOf(pod, 'ironic')?.volumeMounts?.find((m) => m.mountPath === '/shared');
    t.equal(ironicShared?.name, 'ironic-shared', "the volume ironic's pxe boot interface writes /shared/tftpboot into");
    t.match(
      pod.volumes.find((v) => v.name === 'ironic-shared'),
      { emptyDir: {} },
      'a volume of the pod',
    );
    t.doesNotThrow(() => validateK8s(objAt(childOf(children, c.workload))), `a valid ${c.workload}`);
  });
}
