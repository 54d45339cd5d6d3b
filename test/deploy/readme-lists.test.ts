/**
 * The README's lists are complete: the deploy/ table has a row for every kustomization, and the list of
 * "See it without a cluster" names every file under examples/ (subfolders too), the configuration table
 * documents exactly the variables the server reads, and "Differences from ironic-standalone-operator" lists
 * what upstream refuses and this project runs.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { filesUnder } from '../support/files.js';
import { parseAllDocuments } from 'yaml';
import { parentProblems } from '../../src/cli/admission.js';
import { validateIronic } from '../../src/api/ironic/validate.js';
import { README, configurationRows, imageRowProblems, readmeSection } from '../support/readme.js';
import { IRONIC_FEATURES } from '../../src/hooks/ironic-features.js';

/** The images the features run besides Ironic's, each set by a variable of the hook server. */
const FEATURE_IMAGES = IRONIC_FEATURES.flatMap((f) => f.images ?? []);

const section = readmeSection;

t.test('the deploy table of "Deploying" has a row for every kustomization under deploy/', async (t) => {
  const directories = filesUnder('deploy')
    .filter((file) => file.endsWith('/kustomization.yaml'))
    .map((file) => file.slice(0, -'kustomization.yaml'.length));
  t.ok(directories.includes('deploy/components/cert-manager/'), directories.join(', '));
  const rows = section('Deploying')
    .split('\n')
    .flatMap((line) => /^\| `(deploy\/[^`]+)` +\|/.exec(line)?.[1] ?? []);
  t.same([...rows].sort(), directories, 'one row per kustomization, none for a directory that is not there');
});

t.test('"See it without a cluster" names every file under examples/', async (t) => {
  const text = section('See it without a cluster');
  for (const file of filesUnder('examples').map((f) => relative('examples', f))) t.ok(text.includes(`\`${file}\``), file);
});

t.test('"Configuration of the hook server" has a row for every variable the server reads, and no other', async (t) => {
  const read = new Set<string>();
  // An environment that records every name the configuration asks for, and has none of them.
  const env = new Proxy<NodeJS.ProcessEnv>(
    {},
    {
      get: (_target, key) => {
        if (typeof key === 'string') read.add(key);
        return undefined;
      },
    },
  );
  loadConfig(env);
  t.ok(read.has('PORT') && read.has('AUTH_BASIC_PASSWORD_FILE'), [...read].join(', '));
  // The features' images are read by their variables' names, among every `*_IMAGE` variable given.
  for (const image of FEATURE_IMAGES) read.add(image.setting);
  const documented = new Set(configurationRows().flatMap((row) => row.variables));
  t.same([...read].filter((name) => !documented.has(name)).sort(), [], 'every variable read is documented');
  t.same([...documented].filter((name) => !read.has(name)).sort(), [], 'every documented variable is read');
});

t.test('"Configuration of the hook server" has a row for the image of every feature, with its default and container', async (t) => {
  t.ok(FEATURE_IMAGES.length >= 3, FEATURE_IMAGES.map((i) => i.setting).join(', '));
  t.same(imageRowProblems(FEATURE_IMAGES), []);
  t.same(
    imageRowProblems([{ setting: 'SIDECAR_IMAGE', default: 'example.org/sidecar:1', container: 'sidecar' }]),
    ['no row of its own for SIDECAR_IMAGE'],
    'an image without a row is found',
  );
  t.same(
    imageRowProblems([{ setting: 'KEEPALIVED_IMAGE', default: 'example.org/keepalived:2', container: 'vrrp' }]),
    ['the row of KEEPALIVED_IMAGE does not give its default example.org/keepalived:2', 'the row of KEEPALIVED_IMAGE does not name the container vrrp'],
    'a row with another default or container is found',
  );
});

t.test('"Differences from ironic-standalone-operator" lists keepalived with high availability, which upstream refuses', async (t) => {
  const ironic = parseAllDocuments(readFileSync('examples/ha-dhcp.yaml', 'utf8'), { version: '1.1' })
    .map((d) => d.toJS() as { kind?: string; spec?: { highAvailability?: boolean; networking?: { keepalived?: { enabled?: boolean } } } })
    .find((o) => o.kind === 'Ironic');
  t.ok(ironic?.spec?.highAvailability === true && ironic.spec.networking?.keepalived?.enabled === true, 'the example has both');
  t.same(parentProblems(ironic), [], 'the CRD accepts it');
  t.same(validateIronic(ironic?.spec), [], 'and so do the hooks');
  const differences = README.slice(
    README.indexOf('\n### Differences from ironic-standalone-operator\n'),
    README.indexOf('\n## Configuration of the hook server\n'),
  );
  t.match(differences, /\n- keepalived with high availability, which upstream refuses/);
});
