import t from 'tap';
import {
  DEFAULT_DATABASE_SIZE,
  DEFAULT_EXPORTER_BIND_ADDRESS,
  DEFAULT_PORTS,
  DEFAULT_SENSOR_INTERVAL,
  withDatabaseDefaults,
  withDefaults,
} from '../../src/api/defaults.js';
import type { IronicSpec } from '../../src/api/ironic.js';
import type { IronicDatabaseSpec } from '../../src/api/ironic-database.js';
import { DEFAULT_VERSION } from '../../src/api/version.js';

t.test('the default ports are the upstream ones', async (t) => {
  t.same(DEFAULT_PORTS, { apiPort: 6385, imageServerPort: 6180, imageServerTLSPort: 6183, rpcPort: 6189, prometheusExporterPort: 9608 });
});

t.test('withDefaults fills every port, the host network and the version of an empty spec', async (t) => {
  const spec = withDefaults({});
  t.equal(spec.networking.apiPort, 6385);
  t.equal(spec.networking.imageServerPort, 6180);
  t.equal(spec.networking.imageServerTLSPort, 6183);
  t.equal(spec.networking.rpcPort, 6189);
  t.equal(spec.networking.prometheusExporterPort, 9608);
  t.equal(spec.networking.disableHostNetwork, false);
  t.equal(spec.version, DEFAULT_VERSION);
  t.equal(spec.version, '38.0');
  t.notOk('prometheusExporter' in spec, 'no exporter is invented');
  t.notOk('networkingService' in spec, 'no networking service is invented');
});

t.test('withDefaults keeps explicit values and replaces zero ports', async (t) => {
  const spec = withDefaults({
    version: 'latest',
    networking: { apiPort: 8385, imageServerPort: 0, imageServerTLSPort: 8443, rpcPort: 0, prometheusExporterPort: 9999, disableHostNetwork: true, interface: 'eth0' },
  });
  t.same(
    { ...spec.networking },
    { apiPort: 8385, imageServerPort: 6180, imageServerTLSPort: 8443, rpcPort: 6189, prometheusExporterPort: 9999, disableHostNetwork: true, interface: 'eth0' },
  );
  t.equal(spec.version, 'latest');
  t.equal(withDefaults({ version: '' }).version, DEFAULT_VERSION, 'an empty version defaults');
});

t.test('withDefaults fills the exporter settings', async (t) => {
  const filled = withDefaults({ prometheusExporter: { enabled: true } }).prometheusExporter;
  t.same(filled, { enabled: true, bindAddress: '0.0.0.0', sensorCollectionInterval: 60 });
  t.equal(DEFAULT_EXPORTER_BIND_ADDRESS, '0.0.0.0');
  t.equal(DEFAULT_SENSOR_INTERVAL, 60);
  const blank = withDefaults({ prometheusExporter: { enabled: false, bindAddress: '', sensorCollectionInterval: 0 } }).prometheusExporter;
  t.same(blank, { enabled: false, bindAddress: '0.0.0.0', sensorCollectionInterval: 60 }, 'empty and zero get defaults');
  const explicit = withDefaults({ prometheusExporter: { enabled: true, bindAddress: '::', sensorCollectionInterval: 120, disableServiceMonitor: true } }).prometheusExporter;
  t.same(explicit, { enabled: true, bindAddress: '::', sensorCollectionInterval: 120, disableServiceMonitor: true });
});

t.test('withDefaults sets the provider network mode to access', async (t) => {
  const service = withDefaults({
    networkingService: {
      providerNetworks: [
        { type: 'idle', nativeVLAN: 10 },
        { type: 'provisioning', mode: 'trunk', nativeVLAN: 20, allowedVLANs: ['30'] },
      ],
    },
  }).networkingService;
  t.equal(service?.enabled, false, 'enabled defaults to false');
  t.same(
    service?.providerNetworks?.map((n) => n.mode),
    ['access', 'trunk'],
  );
  t.same(withDefaults({ networkingService: { enabled: true } }).networkingService, { enabled: true }, 'no provider networks are invented');
});

t.test('withDefaults does not mutate its input', async (t) => {
  const input: IronicSpec = {
    networking: { apiPort: 0, dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.20' } },
    prometheusExporter: { enabled: true },
    networkingService: { providerNetworks: [{ type: 'idle', nativeVLAN: 1 }] },
  };
  const before = structuredClone(input);
  const output = withDefaults(input);
  t.same(input, before);
  t.not(output.networking, input.networking, 'a new networking object');
  t.equal(output.networking.dhcp, input.networking?.dhcp, 'untouched sub-objects may be shared');
});

t.test('withDatabaseDefaults', async (t) => {
  t.same(withDatabaseDefaults({}).storage, { size: '10Gi', ephemeral: false, whenDeleted: 'Retain' });
  t.equal(DEFAULT_DATABASE_SIZE, '10Gi');
  t.same(withDatabaseDefaults({ storage: { size: '', storageClassName: '' } }).storage, { size: '10Gi', ephemeral: false, whenDeleted: 'Retain' }, 'empty strings default');
  t.same(withDatabaseDefaults({ storage: { size: '50Gi', storageClassName: 'fast', ephemeral: true, whenDeleted: 'Delete' } }).storage, {
    storageClassName: 'fast',
    size: '50Gi',
    ephemeral: true,
    whenDeleted: 'Delete',
  });
  const input: IronicDatabaseSpec = { image: 'mariadb', storage: { size: '1Gi' } };
  const before = structuredClone(input);
  const output = withDatabaseDefaults(input);
  t.same(input, before, 'input not mutated');
  t.equal(output.image, 'mariadb', 'other fields kept');
});
