/**
 * A conductor taking over a host in the middle of cleaning or deploying (issue 37): Ironic writes no iPXE file for
 * such a host, so with high availability and DHCP its boot chain ends in inspector.ipxe, and the agent reports back
 * only with fast track (httpd puts `ipa-api-url` on inspector.ipxe's command line). The render states it.
 */
import t from 'tap';
import { containerOf, envOf, podOf, syncFor } from '../helpers/render.js';

const database = { host: 'mariadb.db.svc', name: 'ironic', credentialsName: 'db-credentials' };
const dhcp = { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' };
const haDhcp = { highAvailability: true, database, networking: { interface: 'eth1', ipAddress: '192.0.2.2', keepalived: { enabled: true }, dhcp } };

const rows: readonly { readonly name: string; readonly spec: Record<string, unknown>; readonly fastTrack: string | undefined }[] = [
  { name: 'high availability with DHCP', spec: haDhcp, fastTrack: 'true' },
  {
    name: 'high availability without DHCP (no boot chain of ours)',
    spec: { highAvailability: true, database, networking: { interface: 'eth1' } },
    fastTrack: undefined,
  },
  {
    name: 'one conductor with DHCP (its own files, no takeover)',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2', dhcp } },
    fastTrack: undefined,
  },
];

void t.test('fast track is stated where a takeover in the middle of cleaning needs it: for ironic and for httpd, which renders inspector.ipxe', async (t) => {
  for (const row of rows) {
    const pod = podOf((await syncFor(row.spec)).children);
    for (const name of ['ironic', 'httpd']) {
      t.equal(envOf(containerOf(pod, name))['IRONIC_FAST_TRACK'], row.fastTrack, `${row.name}: ${name}`);
    }
  }
});
