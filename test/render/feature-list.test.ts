/**
 * The list of an Ironic's features is made from the files of src/render/ironic/features: every file gives one
 * record, placed by its order. The order of the list is that of the pod's containers, init containers,
 * volumes and children, so the table below is the list as it stands; featureList refuses a directory it
 * cannot make one list of, naming every fault.
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURES_DIR, IRONIC_FEATURES, loadFeatureModules } from '../../src/hooks/ironic-features.js';
import { featureList, type FeatureModule } from '../../src/render/ironic/feature-list.js';
import type { IronicFeature } from '../../src/render/ironic/feature.js';

t.test('the features are in the order of their containers, init containers and children', async (t) => {
  t.same(
    IRONIC_FEATURES.map((f) => f.name),
    [
      'api-credentials',
      'client-handoff',
      'user-certificates',
      'database',
      'ironic',
      'httpd',
      'ramdisk-logs',
      'dnsmasq',
      // Init containers from here on run in this order: the certificates first, as the iPXE firmware trusts the CA.
      'json-rpc',
      'generated-tls',
      'cert-manager',
      'ipxe-tls',
      'ramdisk-downloader',
      'image-cache',
      'keepalived',
      'prometheus-exporter',
      'networking-service',
      'api-service',
      'disruption-budget',
    ],
  );
});

t.test('every file of the features directory gives one feature', async (t) => {
  const files = readdirSync(FEATURES_DIR).filter((f) => f.endsWith('.ts'));
  t.equal(IRONIC_FEATURES.length, files.length);
  t.ok(files.length > 10, 'the features are found');
  const modules = await loadFeatureModules(FEATURES_DIR, '.ts');
  t.same(
    modules.map((m) => m.file),
    [...files].sort(),
    'read in file-name order, so the list does not depend on the order the file system lists them in',
  );
});

t.test('a directory of another language finds nothing (the compiled server reads .js, the tests .ts)', async (t) => {
  t.same(await loadFeatureModules(FEATURES_DIR, '.js'), []);
});

const feature = (name: string, order: number): IronicFeature => ({ name, order, applies: () => true });
const moduleOf = (file: string, exports: Record<string, unknown>): FeatureModule => ({ file, exports });

t.test('featureList puts the records in order and ignores the other exports', async (t) => {
  const list = featureList([
    moduleOf('b.ts', { B: feature('b', 20), helper: () => 1, NAME: 'b', memo: { name: 'not a feature', order: 1 } }),
    moduleOf('a.ts', { A: feature('a', 30) }),
    moduleOf('c.ts', { C: feature('c', 5) }),
  ]);
  t.same(
    list.map((f) => f.name),
    ['c', 'b', 'a'],
  );
});

const REFUSED: readonly { readonly name: string; readonly modules: readonly FeatureModule[]; readonly message: RegExp }[] = [
  {
    name: 'a module without a record',
    modules: [moduleOf('a.ts', { A: feature('a', 10) }), moduleOf('helpers.ts', { helper: () => 1 })],
    message: /helpers\.ts exports no feature record \(an object with name, order and applies\)/,
  },
  {
    name: 'a module with two records',
    modules: [moduleOf('two.ts', { A: feature('a', 10), B: feature('b', 20) })],
    message: /two\.ts exports 2 feature records \(A, B\): a file holds one feature/,
  },
  {
    name: 'two records with one name',
    modules: [moduleOf('a.ts', { A: feature('same', 10) }), moduleOf('b.ts', { B: feature('same', 20) })],
    message: /name "same" is held by 2 features \(same, same\)/,
  },
  {
    name: 'two records with one order',
    modules: [moduleOf('a.ts', { A: feature('a', 10) }), moduleOf('b.ts', { B: feature('b', 10) })],
    message: /order 10 is held by 2 features \(a, b\)/,
  },
  {
    name: 'an order that is not a whole number',
    modules: [moduleOf('a.ts', { A: feature('a', 1.5) })],
    message: /a's order 1\.5 is not a whole number/,
  },
  {
    name: 'every fault at once',
    modules: [moduleOf('a.ts', {}), moduleOf('b.ts', { B: feature('b', 10) }), moduleOf('c.ts', { C: feature('c', 10) })],
    message: /^The Ironic features cannot be listed: a\.ts exports no feature record .*; order 10 is held by 2 features \(b, c\)$/,
  },
];

for (const c of REFUSED) {
  t.test(`featureList refuses ${c.name}`, async (t) => {
    t.throws(() => featureList(c.modules), { message: c.message });
  });
}

t.test('the real directory passes the same checks when read again', async (t) => {
  const again = featureList(await loadFeatureModules(join(FEATURES_DIR), '.ts'));
  t.same(
    again.map((f) => f.name),
    IRONIC_FEATURES.map((f) => f.name),
  );
  t.equal(again[0], IRONIC_FEATURES[0], 'the same module instances (loaded once)');
});
