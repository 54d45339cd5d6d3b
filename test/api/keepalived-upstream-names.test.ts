/**
 * keepalived's VRRP settings under the names upstream's pull request 686 proposes, next to this API's:
 * `networking.keepalivedVRID` = `networking.keepalived.vrid`, `networking.keepalivedPasswordRef` =
 * `networking.keepalived.passwordRef`. Either spelling configures keepalived the same way (also with the
 * deprecated ipAddressManager, as upstream's change does), both may be given only with the same value,
 * customize asks for the password Secret under either, and `ironic-render migrate` moves them.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateIronic } from '../../src/api/validate.js';
import { customizeIronic } from '../../src/hooks/ironic.js';
import { migrateDocuments } from '../../src/cli/migrate-spec.js';
import { customizeRequest, ironic, type Obj } from '../helpers/hooks.js';
import { syncFor } from '../helpers/render.js';
import { objAt, objsAt } from '../support/paths.js';

const PROVISIONING = { interface: 'eth1', ipAddress: '192.0.2.2' };
const UID = '3f2a9c4e-0d1b-4e6f-9a7c-5b8d2e1f0a63';
const vrrpSecret = (name: string, password: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'metal3', uid: UID, resourceVersion: '7' },
  data: { password: Buffer.from(password).toString('base64') },
});

const START_SCRIPT = readFileSync(new URL('../fixtures/keepalived/manage-keepalived.sh', import.meta.url), 'utf8');

/** The image's start script run on `template` with the keepalived container's variables: the file keepalived reads. */
const startScript = (template: string, env: Readonly<Record<string, string>>): string => {
  const dir = mkdtempSync(join(tmpdir(), 'keepalived-'));
  try {
    writeFileSync(join(dir, 'template.conf'), template);
    const script = START_SCRIPT.replace(
      "KEEPALIVED_DEFAULT_CONF='/etc/keepalived/keepalived.conf'",
      `KEEPALIVED_DEFAULT_CONF='${join(dir, 'template.conf')}'`,
    ).replace('exec /usr/sbin/keepalived', 'exit 0; exec /usr/sbin/keepalived');
    execFileSync('bash', ['-c', script], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CUSTOM_CONF_DIR: join(dir, 'conf'), CUSTOM_DATA_DIR: join(dir, 'data'), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return readFileSync(join(dir, 'conf', 'keepalived', 'keepalived.conf'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The configuration keepalived reads for a spec, or undefined when the image's own file is used. */
const written = async (networking: Obj, secrets: Obj[] = []): Promise<{ config?: string; status: Obj }> => {
  const { children, status } = await syncFor({ networking: { ...PROVISIONING, ...networking } }, secrets);
  const secret = objsAt(children).find((c) => c['kind'] === 'Secret' && String(objAt(c, 'metadata')['name']).startsWith('ironic-keepalived-'));
  if (secret === undefined) return { status: objAt(status) };
  const deployment = objsAt(children).find((c) => c['kind'] === 'Deployment');
  const containers = objsAt(deployment, 'spec', 'template', 'spec', 'containers');
  const keepalived = containers.find((c) => c['name'] === 'keepalived');
  const env = Object.fromEntries(objsAt(keepalived, 'env').map((e) => [String(e['name']), String(e['value'])]));
  const template = Buffer.from(String(objAt(secret, 'data')['keepalived.conf']), 'base64').toString('utf8');
  return { config: startScript(template, env), status: objAt(status) };
};

t.test("upstream's names configure keepalived exactly as this API's", async (t) => {
  const secret = vrrpSecret('vrrp', 'Vr7p-pw');
  const ours = await written({ keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' } } }, [secret]);
  const theirs = await written({ keepalived: { enabled: true }, keepalivedVRID: 42, keepalivedPasswordRef: { name: 'vrrp', kind: 'Secret' } }, [secret]);
  t.match(ours.config, /virtual_router_id 42\n/);
  t.match(ours.config, /auth_pass Vr7p-pw\n/);
  t.equal(theirs.config, ours.config, 'the same file keepalived reads');
  const both = await written(
    { keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' } }, keepalivedVRID: 42, keepalivedPasswordRef: { name: 'vrrp' } },
    [secret],
  );
  t.equal(both.config, ours.config, 'both names with the same values: the same');
});

t.test("with the deprecated ipAddressManager (upstream's change targets it), the ID and password reach keepalived too", async (t) => {
  const { config } = await written({ ipAddressManager: 'keepalived', keepalivedVRID: 7, keepalivedPasswordRef: { name: 'vrrp' } }, [
    vrrpSecret('vrrp', 'pw-7'),
  ]);
  t.match(config, /\n {4}interface eth1\n {4}virtual_router_id 7\n/, 'the interface the script fills in, and the router ID');
  t.match(config, /auth_type PASS\n {8}auth_pass pw-7\n/);
  t.match(config, /virtual_ipaddress \{\n {8}192\.0\.2\.2\/32/, 'the provisioning IP the script fills in from PROVISIONING_IP');
  t.notMatch(config, /INTERFACE|CHANGEIP/);
  const plain = await written({ ipAddressManager: 'keepalived' });
  t.equal(plain.config, undefined, "without them, the image's own file as before");
});

t.test('a missing password Secret named in upstream spelling says which field names it', async (t) => {
  const { status } = await written({ ipAddressManager: 'keepalived', keepalivedPasswordRef: { name: 'absent' } });
  const ready = objsAt(status, 'conditions')[0] ?? {};
  t.equal(ready['status'], 'False');
  t.match(String(ready['message']), /spec\.networking\.keepalivedPasswordRef\.name/);
  t.match(String(ready['message']), /absent/);
});

t.test('validation: both names only with one value, and only for a keepalived that runs', async (t) => {
  const problems = (networking: Obj) => validateIronic({ networking: { ...PROVISIONING, ...networking } }).map((p) => `${p.path}: ${p.message}`);
  const accepted: Obj[] = [
    { keepalived: { enabled: true }, keepalivedVRID: 9 },
    { keepalived: { enabled: true, vrid: 9 }, keepalivedVRID: 9 },
    { keepalived: { enabled: true, passwordRef: { name: 'a' } }, keepalivedPasswordRef: { name: 'a', kind: 'Secret' } },
    { ipAddressManager: 'keepalived', keepalivedVRID: 255, keepalivedPasswordRef: { name: 'a' } },
  ];
  for (const networking of accepted) t.same(problems(networking), [], JSON.stringify(networking));
  const refused: [Obj, RegExp][] = [
    [
      { keepalived: { enabled: true, vrid: 9 }, keepalivedVRID: 10 },
      /^spec\.networking\.keepalivedVRID: keepalivedVRID \(10\) and keepalived\.vrid \(9\) .* differ: keep one/,
    ],
    [
      { keepalived: { enabled: true, passwordRef: { name: 'a' } }, keepalivedPasswordRef: { name: 'b' } },
      /^spec\.networking\.keepalivedPasswordRef: keepalivedPasswordRef \(Secret b\) and keepalived\.passwordRef \(Secret a\) .* differ: keep one/,
    ],
    [{ keepalivedVRID: 9 }, /^spec\.networking: keepalivedVRID and keepalivedPasswordRef configure keepalived, which does not run/],
    [{ keepalived: { enabled: false }, keepalivedPasswordRef: { name: 'a' } }, /which does not run: set keepalived\.enabled to true/],
    [{ keepalived: { enabled: true }, keepalivedVRID: 0 }, /^spec\.networking\.keepalivedVRID: /],
    [{ keepalived: { enabled: true }, keepalivedVRID: 256 }, /^spec\.networking\.keepalivedVRID: /],
    [{ keepalived: { enabled: true }, keepalivedPasswordRef: { name: 'a', kind: 'ConfigMap' } }, /^spec\.networking\.keepalivedPasswordRef\.kind: /],
  ];
  for (const [networking, message] of refused) {
    const found = problems(networking);
    t.ok(
      found.some((p) => message.test(p)),
      `${JSON.stringify(networking)}: ${found.join('; ')}`,
    );
  }
});

t.test('customize asks for the password Secret under either name, when keepalived runs', async (t) => {
  const secrets = (networking: Obj): unknown =>
    customizeIronic(customizeRequest({ parent: { ...ironic({}), spec: { networking: { ...PROVISIONING, ...networking } } } })).relatedResources.find(
      (r) => r.resource === 'secrets',
    )?.names;
  const own = ['ironic-api-credentials', 'ironic-clouds'];
  t.same(secrets({ keepalived: { enabled: true }, keepalivedPasswordRef: { name: 'vrrp' } }), [...own, 'vrrp']);
  t.same(secrets({ ipAddressManager: 'keepalived', keepalivedPasswordRef: { name: 'vrrp' } }), [...own, 'vrrp'], 'with ipAddressManager');
  t.same(secrets({ ipAddressManager: 'keepalived', keepalived: undefined }), own, 'no password, no Secret');
  t.same(secrets({ keepalived: { enabled: true, passwordRef: { name: 'vrrp' } }, keepalivedPasswordRef: { name: 'vrrp' } }), [...own, 'vrrp'], 'once');
  t.same(secrets({ keepalivedPasswordRef: { name: 'vrrp' } }), undefined, 'keepalived off: an invalid spec asks for nothing');
});

t.test("ironic-render migrate moves upstream's names into keepalived, or keeps them where there is no keepalived object", async (t) => {
  const upstream = (networking: Obj): Obj => ({
    apiVersion: 'ironic.metal3.io/v1alpha1',
    kind: 'Ironic',
    metadata: { name: 'ironic', namespace: 'metal3' },
    spec: { networking: { ...PROVISIONING, ...networking } },
  });
  const moved = migrateDocuments([upstream({ keepalived: { enabled: true }, keepalivedVRID: 42, keepalivedPasswordRef: { name: 'vrrp', kind: 'Secret' } })]);
  t.same(moved.problems, []);
  t.same(objAt(moved.objects[0], 'spec', 'networking'), { ...PROVISIONING, keepalived: { enabled: true, vrid: 42, passwordRef: { name: 'vrrp' } } });

  const same = migrateDocuments([upstream({ keepalived: { enabled: true, vrid: 42 }, keepalivedVRID: 42 })]);
  t.same(objAt(same.objects[0], 'spec', 'networking', 'keepalived'), { enabled: true, vrid: 42 }, 'the same value under both names: once');

  const differ = migrateDocuments([upstream({ keepalived: { enabled: true, vrid: 42 }, keepalivedVRID: 43 })]);
  t.same(differ.objects, []);
  t.match(differ.problems.join('\n'), /spec\.networking\.keepalived\.vrid is set twice with different values/);

  const configMap = migrateDocuments([upstream({ keepalived: { enabled: true }, keepalivedPasswordRef: { name: 'vrrp', kind: 'ConfigMap' } })]);
  t.match(configMap.problems.join('\n'), /spec\.networking\.keepalivedPasswordRef must name a Secret/);

  const legacy = migrateDocuments([upstream({ ipAddressManager: 'keepalived', keepalivedVRID: 42, keepalivedPasswordRef: { name: 'vrrp', kind: 'Secret' } })]);
  t.same(legacy.problems, []);
  t.same(objAt(legacy.objects[0], 'spec', 'networking')['keepalivedVRID'], 42, 'kept: this API reads it with ipAddressManager');
  t.match(legacy.notes.join('\n'), /keepalivedVRID and keepalivedPasswordRef kept under upstream's names/);
});
