/**
 * The PrometheusRules of deploy/overlays/servicemonitor checked by Prometheus' own `promtool` (Debian's
 * prometheus package, which .ci/run installs): `promtool check rules` on every rule group of the built overlay,
 * and `promtool test rules` on test/deploy/promtool/hardware-alerts.test.yaml, input series as the
 * ironic-prometheus-exporter serves them and the alerts each must give. Without promtool the tests fail.
 */
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import { Type } from '@sinclair/typebox';
import { kustomizeBuild, objectId, parseYamlFile } from './kustomize.js';
import { checked } from '../helpers/json.js';
import { objAt } from '../support/paths.js';

const OVERLAY = 'deploy/overlays/servicemonitor';
const UNIT_TESTS = 'test/deploy/promtool/hardware-alerts.test.yaml';
const HARDWARE = 'ironic-hardware-defaults';
const OPT_OUT = 'deploy/components/no-hardware-alerts';

/** promtool, or undefined when it is not installed. */
const promtool = ['promtool', '/usr/bin/promtool'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0);

const runPromtool = (args: readonly string[], cwd: string): { status: number | null; output: string } => {
  const run = spawnSync(promtool ?? 'promtool', args, { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

const Groups = Type.Array(Type.Object({ name: Type.String(), rules: Type.Array(Type.Object({ alert: Type.Optional(Type.String()) })) }));

const scratch = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ironic-promtool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const built = kustomizeBuild(OVERLAY);
const ruleObjects = built.filter((o) => o['kind'] === 'PrometheusRule');
const nameOf = (o: Record<string, unknown>): string => String(objAt(o, 'metadata')['name']);
const groupsOf = (o: Record<string, unknown>) => checked(Groups, objAt(o, 'spec')['groups'], `${nameOf(o)} groups`);

/** Writes the rule groups of each PrometheusRule as `<name>.rules.yaml`, the file format promtool reads. */
const writeRuleFiles = (dir: string): string[] =>
  ruleObjects.map((o) => {
    const file = `${nameOf(o)}.rules.yaml`;
    writeFileSync(join(dir, file), stringify(objAt(o, 'spec')));
    return file;
  });

t.test('promtool is installed (Debian: apt-get install prometheus; .ci/run installs it)', async (t) => {
  t.ok(promtool, 'promtool runs: install the prometheus package for the rule checks');
});

t.test('promtool check rules accepts every rule group of the overlay, and refuses a broken one', async (t) => {
  if (promtool === undefined) {
    t.fail('no promtool: install Debian prometheus (.ci/run does)');
    return;
  }
  const dir = scratch(t);
  const files = writeRuleFiles(dir);
  t.same(files.sort(), ['ironic-hardware-defaults.rules.yaml', 'ironic-hooks.rules.yaml']);
  const check = runPromtool(['check', 'rules', ...files], dir);
  t.equal(check.status, 0, check.output);
  t.match(check.output, /SUCCESS: 10 rules found/, 'the hardware group');
  writeFileSync(join(dir, 'broken.rules.yaml'), stringify({ groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'sum by (job (up)' }] }] }));
  t.not(runPromtool(['check', 'rules', 'broken.rules.yaml'], dir).status, 0, 'promtool refuses bad PromQL');
});

t.test('promtool test rules: each hardware alert fires on its input series, and only then', async (t) => {
  if (promtool === undefined) {
    t.fail('no promtool: install Debian prometheus (.ci/run does)');
    return;
  }
  const dir = scratch(t);
  writeRuleFiles(dir);
  copyFileSync(UNIT_TESTS, join(dir, 'hardware-alerts.test.yaml'));
  const run = runPromtool(['test', 'rules', 'hardware-alerts.test.yaml'], dir);
  t.equal(run.status, 0, run.output);
  t.match(run.output, /SUCCESS/);

  const alerts = ruleObjects
    .filter((o) => nameOf(o) === HARDWARE)
    .flatMap(groupsOf)
    .flatMap((g) => g.rules.map((r) => r.alert ?? ''));
  const Tests = Type.Object({
    tests: Type.Array(
      Type.Object({ alert_rule_test: Type.Array(Type.Object({ alertname: Type.String(), exp_alerts: Type.Optional(Type.Array(Type.Unknown())) })) }),
    ),
  });
  const unit = checked(Tests, parseYamlFile(UNIT_TESTS)[0], UNIT_TESTS);
  const cases = unit.tests.flatMap((c) => c.alert_rule_test);
  for (const alert of alerts) {
    t.ok(
      cases.some((c) => c.alertname === alert && (c.exp_alerts ?? []).length > 0),
      `${alert}: a case where it fires`,
    );
    t.ok(
      cases.some((c) => c.alertname === alert && (c.exp_alerts ?? []).length === 0),
      `${alert}: a case where it does not`,
    );
  }
  t.equal(alerts.length, 10);

  // The unit tests can fail: without the freshness guard, a deprovisioned node would alert forever.
  const unguarded = join(dir, 'ironic-hardware-defaults.rules.yaml');
  const hardware = ruleObjects.find((o) => nameOf(o) === HARDWARE) ?? {};
  writeFileSync(unguarded, stringify(objAt(hardware, 'spec')).replaceAll('> 3600)', '> 99999)'));
  const mutated = runPromtool(['test', 'rules', 'hardware-alerts.test.yaml'], dir);
  t.not(mutated.status, 0, 'a rule that ignores stale node data fails the unit tests');
  t.match(mutated.output, /stops alerting/);
});

t.test(`the component ${OPT_OUT} removes the hardware alerts and nothing else`, async (t) => {
  const dir = scratch(t);
  const overlay = join(dir, 'overlay');
  mkdirSync(overlay);
  writeFileSync(
    join(overlay, 'kustomization.yaml'),
    stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [relative(overlay, resolve(OVERLAY))],
      components: [relative(overlay, resolve(OPT_OUT))],
    }),
  );
  const without = kustomizeBuild(overlay);
  t.same(
    built.map(objectId).filter((id) => !without.map(objectId).includes(id)),
    [`monitoring.coreos.com/v1/PrometheusRule/ironic-system/${HARDWARE}`],
    'only the PrometheusRule ironic-hardware-defaults is gone',
  );
  t.same(without.filter((o) => o['kind'] === 'PrometheusRule').map(nameOf), ['ironic-hooks'], 'the alerts on the hook server and Ironic stay');
});
