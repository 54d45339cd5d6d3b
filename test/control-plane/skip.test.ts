/**
 * Where the control-plane kit is missing (a user's machine), the suite is skipped and says why and how to
 * provide the programs, never silently: the test file, run with CONTROL_PLANE_DIR pointing at nothing.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';

t.test('without the kit the suite says what it needs and is skipped', async (t) => {
  const output = execFileSync(process.execPath, ['--import=./scripts/ts-loader.mjs', 'test/control-plane/real-cluster.test.ts'], {
    env: { ...process.env, CONTROL_PLANE_DIR: '/nonexistent/control-plane', TAP: '1' },
    encoding: 'utf8',
  });
  t.match(output, /# SKIP the tests against a real control plane are skipped: no control-plane\.sh in \/nonexistent\/control-plane\./);
  for (const needed of ['KUBEBUILDER_ASSETS', 'Metacontroller v4.17.2', 'set CONTROL_PLANE_DIR', 'xz-utils kubernetes-client'])
    t.ok(output.includes(needed), `the message names ${needed}`);
  t.notMatch(output, /^not ok/m, 'and fails nothing');
});
