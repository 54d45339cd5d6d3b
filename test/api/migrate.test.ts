/**
 * Migration from ironic-standalone-operator: the design proposal's API and a real `kubectl get -o yaml`
 * List migrate to objects with the same meaning; what has no equivalent is refused, never dropped.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { migrateDocuments } from '../../src/cli/migrate-spec.js';
import { jsOf } from '../helpers/json.js';

const load = (file: string): unknown[] => parseAllDocuments(readFileSync(`test/fixtures/migrate/${file}`, 'utf8')).map(jsOf);

t.test("the design proposal's API: renamed fields mapped, Secret names kept", async (t) => {
  const result = migrateDocuments(load('design-proposal.yaml'));
  t.same(result.problems, []);
  t.same(result.objects, [
    {
      apiVersion: 'ironic.metal3.io/v1alpha1',
      kind: 'IronicDatabase',
      metadata: { name: 'ironic', namespace: 'test' },
      spec: { tlsCertificateName: 'ironic-tls' },
    },
    {
      apiVersion: 'ironic.metal3.io/v1alpha1',
      kind: 'Ironic',
      metadata: { name: 'ironic', namespace: 'test' },
      spec: {
        networking: { interface: 'eth1', ipAddress: '10.89.0.2', dhcp: { networkCIDR: '10.89.0.1/24', rangeBegin: '10.89.0.10', rangeEnd: '10.89.0.100' } },
        images: { deployRamdiskBranch: 'stable/2024.2' },
        apiCredentialsName: 'ironic-service-x7k2p',
        tls: { certificateName: 'ironic-tls' },
        databaseName: 'ironic',
        deployRamdisk: { sshKey: 'ssh-ed25519 AAAA... user@example' },
      },
    },
  ]);
  t.match(result.notes.join('\n'), /IronicDatabase test\/ironic: the data is not copied/);
});

t.test('kubectl get -o yaml of a recent release: server fields and the last-applied record go, the rest stays', async (t) => {
  const result = migrateDocuments(load('kubectl-get.yaml'));
  t.same(result.problems, []);
  const [ironic] = result.objects;
  t.same(ironic?.['metadata'], {
    name: 'ironic',
    namespace: 'baremetal-operator-system',
    labels: { app: 'ironic' },
    annotations: { 'example.com/owner': 'team-a' },
  });
  t.notOk('status' in (ironic ?? {}));
  t.match(ironic?.['spec'], {
    apiCredentialsName: 'ironic-service-abcde',
    database: { credentialsName: 'ironic-db-user' },
    tls: { certificateName: 'ironic-tls' },
    version: '38.0',
  });
});

t.test('what has no equivalent is refused with its path, and nothing is printed for that object', async (t) => {
  const cases = [
    { scenario: 'an unknown field', spec: { networking: { ipAdress: '192.0.2.2' } }, problem: /Ironic ns\/x: spec.networking.ipAdress has no equivalent/ },
    { scenario: 'a removed field', spec: { disableRPCHostValidation: true }, problem: /spec.disableRPCHostValidation has no equivalent: .*insecureRPC/ },
    {
      scenario: 'a per-Ironic download URL',
      spec: { images: { agentDownloadURL: 'https://x' } },
      problem: /spec.images.agentDownloadURL has no equivalent: .*IPA_BASEURI/,
    },
    {
      scenario: 'an old field and its new name disagree',
      spec: { tlsRef: { name: 'a' }, tls: { certificateName: 'b' } },
      problem: /spec.tls.certificateName is set twice with different values/,
    },
    { scenario: 'a reference without a name', spec: { credentialsRef: {} }, problem: /spec.credentialsRef must be a reference with a name/ },
    { scenario: 'a spec our rules refuse', spec: { highAvailability: true }, problem: /high availability requires a database/ },
  ];
  for (const c of cases) {
    const result = migrateDocuments([{ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'x', namespace: 'ns' }, spec: c.spec }]);
    t.same(result.objects, [], `${c.scenario}: nothing migrated`);
    t.match(result.problems.join('\n'), c.problem, c.scenario);
  }
  const other = migrateDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, 'text']);
  t.same(other.problems, ['a document is not an object'], 'a non-object is refused');
  t.same(other.objects, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }], 'another kind passes through');
  t.equal(other.migrated, 0, 'nothing was migrated: the CLI says so and exits 1');
});

t.test("a sensor interval below ironic-image's minimum is raised to it, with a note; others are kept", async (t) => {
  const upstream = (sensorCollectionInterval: number) => ({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'Ironic',
    metadata: { name: 'x', namespace: 'ns' },
    spec: { prometheusExporter: { enabled: true, sensorCollectionInterval } },
  });
  const low = migrateDocuments([upstream(60)]);
  t.same(low.problems, []);
  t.same(low.objects[0]?.['spec'], { prometheusExporter: { enabled: true, sensorCollectionInterval: 120 } });
  t.match(
    low.notes.join('\n'),
    /Ironic ns\/x: spec.prometheusExporter.sensorCollectionInterval raised from 60 to 120 s: the power state is already polled every 60 s/,
  );
  const kept = migrateDocuments([upstream(300)]);
  t.same(kept.objects[0]?.['spec'], { prometheusExporter: { enabled: true, sensorCollectionInterval: 300 } });
  t.same(kept.notes, []);
  const disabled = migrateDocuments([{ ...upstream(60), spec: { prometheusExporter: 'not an object' } }]);
  t.same(disabled.notes, [], 'an exporter that is not an object is left to validation');
});
