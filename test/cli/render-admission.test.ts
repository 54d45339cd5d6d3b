/**
 * `ironic-render` refuses what `kubectl apply` would refuse, before any hook runs: unknown fields (strict
 * field validation) by path, the CRD's structural schema, and its CEL rules; exit 1 and nothing rendered.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { parentProblems } from '../../src/cli/admission.js';
import { runRender, type RenderIO } from '../../src/cli/render.js';
import { FIXED_NOW, fakeSecrets } from '../helpers/hooks.js';
import { objAt } from '../support/paths.js';

type Run = { code: number; stdout: string; stderr: string };

const run = async (text: string): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  const io: RenderIO = {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    stdin: async () => text,
    readFile: async (path) => readFileSync(path, 'utf8'),
    // As deploy/overlays/mariadb-operator sets it, for an example with a Galera database.
    env: text.includes('engine: MariaDBOperator') ? { MARIADB_OPERATOR: 'true' } : {},
    deps: { secrets: fakeSecrets(), now: () => FIXED_NOW },
  };
  const code = await runRender(['-f', '-', '-n', 'metal3'], io);
  return { code, stdout, stderr };
};

const ironic = (spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'ironic' }, spec });

const cases = [
  {
    scenario: 'a misspelt networking.ipAddress',
    spec: { version: '38.0', networking: { interface: 'eth1', ipAdress: '192.0.2.2' } },
    message: /^ironic-render: Ironic "metal3\/ironic" is invalid: spec\.networking\.ipAdress: unknown field \(the closest is ipAddress\)\n$/,
  },
  {
    scenario: 'apiCredentialName for apiCredentialsName',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, apiCredentialName: 'my-creds' },
    message: /^ironic-render: Ironic "metal3\/ironic" is invalid: spec\.apiCredentialName: unknown field \(the closest is apiCredentialsName\)\n$/,
  },
  {
    scenario: 'a field written in the wrong case',
    spec: { networking: { interface: 'eth1', ipaddress: '192.0.2.2' } },
    message: /: spec\.networking\.ipaddress: unknown field \(the closest is ipAddress\)/,
  },
  {
    scenario: 'a field that is no typo of a known one',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, flavour: 'vanilla' },
    message: /^ironic-render: Ironic "metal3\/ironic" is invalid: spec\.flavour: unknown field\n$/,
  },
  {
    scenario: 'a field of the wrong type',
    spec: { networking: { interface: 'eth1', ipAddress: 192 } },
    message: /spec\.networking\.ipAddress: must be text, but it is the number 192: write it as text, in quotes, for example "192"\n$/,
  },
  {
    scenario: 'a port out of range',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2', apiPort: 70000 } },
    message: /spec\.networking\.apiPort: is 70000, which is too large: use a value from 1 to 65535\n$/,
  },
  {
    scenario: 'a version written as a number (YAML reads 38.0 as 38)',
    spec: { version: 38.0, networking: { interface: 'eth1', ipAddress: '192.0.2.2' } },
    message:
      /^ironic-render: Ironic "metal3\/ironic" is invalid: spec\.version: must be text, but it is the number 38: write it as text, in quotes, for example "38\.0"\n$/,
  },
  {
    scenario: 'a memory limit in GB',
    spec: { networking: { interface: 'eth1', ipAddress: '192.0.2.2' }, resources: { ironic: { limits: { memory: '1GB' } } } },
    message:
      /spec\.resources\.ironic\.limits\.memory: "1GB" is not a Kubernetes quantity \(.*\): write "1Gi" \(powers of 1024\) or "1G" \(powers of 1000\), without a trailing B\n$/,
  },
  {
    scenario: 'a CEL rule of the CRD',
    spec: { networking: { disableHostNetwork: true, interface: 'eth1' } },
    message: /spec\.networking: Invalid value: "object": disableHostNetwork cannot be used with bindInterface, dhcp, interface/,
  },
] as const;

for (const c of cases) {
  t.test(`${c.scenario}: refused as the API server would, exit 1, nothing rendered`, async (t) => {
    const r = await run(ironic(c.spec));
    t.equal(r.code, 1);
    t.equal(r.stdout, '');
    t.match(r.stderr, c.message);
  });
}

t.test('every problem of an object is listed, and each refused object', async (t) => {
  const second = JSON.stringify({ apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'IronicDatabase', metadata: { name: 'db' }, spec: { imagee: 'x' } });
  const r = await run(`${ironic({ networking: { interface: 'eth1', ipAdress: '192.0.2.2' }, apiCredentialName: 'my-creds' })}\n---\n${second}`);
  t.equal(r.code, 1);
  t.match(
    r.stderr,
    /spec\.networking\.ipAdress: unknown field \(the closest is ipAddress\); spec\.apiCredentialName: unknown field \(the closest is apiCredentialsName\)/,
  );
  t.match(r.stderr, /IronicDatabase "metal3\/db" is invalid: spec\.imagee: unknown field \(the closest is image\)/);
});

t.test('a misspelt top-level field gets the closest of apiVersion, kind, metadata, spec and status', async (t) => {
  const object = { apiVersion: 'ironic.metal3.io/v1alpha1', kind: 'Ironic', metadata: { name: 'ironic' }, sepc: {} };
  t.same(parentProblems(object), ['sepc: unknown field (the closest is spec)']);
});

t.test('every example passes the check', async (t) => {
  for (const file of readdirSync('examples').filter((f) => f.endsWith('.yaml'))) {
    const r = await run(readFileSync(`examples/${file}`, 'utf8'));
    t.equal(r.code, 0, `${file}: ${r.stderr}`);
  }
});

t.test('transition rules run against the stored object only', async (t) => {
  const object = objAt(JSON.parse(ironic({ networking: { interface: 'eth1', ipAddress: '192.0.2.2' } })));
  t.same(parentProblems(object), []);
  t.same(parentProblems({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, bogus: 1 }), [], 'other kinds are not checked here');
});
