/**
 * The alerts of deploy/overlays/servicemonitor, from the real `kubectl kustomize` build: a PrometheusRule the
 * Prometheus Operator's published CRD accepts, whose expressions Prometheus' own PromQL grammar parses without
 * an error, and which read metrics that exist (the hook server's, from its registry; the exporter's and
 * kube-state-metrics', as they name them).
 */
import t from 'tap';
import { parser } from '@prometheus-io/lezer-promql';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { checkAgainstCrd } from '../helpers/crd-check.js';
import { hookMetrics } from '../../src/server/metrics.js';
import { databaseNames } from '../../src/render/names.js';
import { kustomizeBuild, readYamlDocuments, type Obj } from './kustomize.js';
import { Type, type Static } from '@sinclair/typebox';
import { ofKind } from '../helpers/children.js';
import { checked } from '../helpers/json.js';
import { objAt } from '../support/paths.js';

const Rule = Type.Object({
  alert: Type.Optional(Type.String()),
  record: Type.Optional(Type.String()),
  expr: Type.Union([Type.String(), Type.Number()]),
  for: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const Groups = Type.Array(Type.Object({ name: Type.String(), rules: Type.Array(Rule) }));
type Group = Static<typeof Groups>[number];
type Rule = Static<typeof Rule>;

const overlay = kustomizeBuild('deploy/overlays/servicemonitor');
const rules = overlay.filter((o) => o['kind'] === 'PrometheusRule');
const [crd] = readYamlDocuments('test/fixtures/prometheus-operator/prometheusrules-crd.yaml');

/**
 * NOTE: the CRD's `^(?i)(abort|warn)?$` is Go (RE2) syntax, which JavaScript regular expressions refuse; the
 * same language is written without the flag, so the rest of the schema is checked as published.
 */
const jsCompatible = (schema: Obj): Obj =>
  objAt(JSON.parse(JSON.stringify(schema).replaceAll('^(?i)(abort|warn)?$', '^([aA][bB][oO][rR][tT]|[wW][aA][rR][nN])?$')));

const groupsOf = (rule: Obj): Group[] => checked(Groups, objAt(rule, 'spec')['groups'] ?? [], 'PrometheusRule groups');
const allRules = rules.flatMap(groupsOf).flatMap((g) => g.rules);

/** The PromQL syntax errors of an expression: the error nodes of the parse tree, with their position. */
export const promqlErrors = (expr: string): string[] => {
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(`error at ${node.from}: ${JSON.stringify(expr.slice(node.from, node.from + 20))}`);
    },
  });
  return errors;
};

/** The metric names an expression reads (the identifiers of its vector selectors). */
const metricNames = (expr: string): string[] => {
  const names: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(expr.slice(node.from, node.to));
    },
  });
  return names;
};

t.test('the overlay has two PrometheusRules, valid against the published CRD and the Prometheus Operator model', async (t) => {
  t.same(
    rules.map((r) => objAt(r, 'metadata')['name']),
    ['ironic-hardware-defaults', 'ironic-hooks'],
    'the hook server and Ironic alerts, and the default hardware alerts (their own object, so that a component can delete it)',
  );
  t.ok(crd, 'the CRD fixture exists');
  for (const rule of rules) {
    t.same(checkAgainstCrd(jsCompatible(crd ?? {}), rule), [], 'accepted by the PrometheusRule CRD schema');
    t.doesNotThrow(() => new PrometheusRule(ofKind(rule, 'PrometheusRule')).validate(), 'valid for @kubernetes-models/prometheus-operator');
  }
  t.not(
    checkAgainstCrd(jsCompatible(crd ?? {}), {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: {},
      spec: { groups: [{ name: 'g', rules: [{ alert: 'A', for: '5 minutes', expr: 'up' }] }] },
    }).length,
    0,
    'the schema check can fail',
  );
});

t.test('the PromQL checker finds syntax errors', async (t) => {
  t.same(promqlErrors('sum by (job) (rate(up[5m])) > 0'), []);
  t.not(promqlErrors('sum by (job (rate(up[5m])) > 0').length, 0, 'an unbalanced parenthesis');
  t.not(promqlErrors('rate(up[5m]) >').length, 0, 'a missing operand');
  t.not(promqlErrors('up{job="a"').length, 0, 'an open selector');
});

t.test('every rule is an alert with valid PromQL, a duration, a severity and a summary and description', async (t) => {
  t.ok(allRules.length >= 5, `${allRules.length} rules`);
  const names = allRules.map((r) => r.alert);
  t.same(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    'alert names are unique',
  );
  for (const rule of allRules) {
    const name = rule.alert ?? '(no name)';
    t.type(rule.expr, 'string', `${name}: expr is text`);
    t.same(promqlErrors(String(rule.expr)), [], `${name}: the expression parses`);
    t.match(rule.for ?? '', /^[0-9]+[smh]$/, `${name}: fires after a while, not on one bad scrape`);
    t.ok(['critical', 'warning'].includes(rule.labels?.['severity'] ?? ''), `${name}: a severity`);
    t.ok((rule.annotations?.['summary'] ?? '') !== '' && (rule.annotations?.['description'] ?? '') !== '', `${name}: summary and description`);
  }
  t.same(
    [...new Set(allRules.map((r) => r.alert))].sort(),
    [
      'BaremetalDriveCritical',
      'BaremetalDriveFailurePredicted',
      'BaremetalDriveWarning',
      'BaremetalFanCritical',
      'BaremetalFanWarning',
      'BaremetalPowerCritical',
      'BaremetalPowerWarning',
      'BaremetalTemperatureCritical',
      'BaremetalTemperatureWarning',
      'IronicDatabaseBackupsFailing',
      'IronicDown',
      'IronicExporterDown',
      'IronicHookServerErrors',
      'IronicHookSlow',
      'IronicHooksDown',
      'IronicSensorDataStale',
    ],
    'Ironic down, exporter errors, hook 5xx, hook latency, hook server down, hardware health, stale sensor data and failing database backups',
  );
});

t.test('the backup alert selects the backup CronJob of every IronicDatabase name, and no other CronJob', async (t) => {
  const expr = String(allRules.find((r) => r.alert === 'IronicDatabaseBackupsFailing')?.expr ?? '');
  const pattern = /owner_name=~"([^"]+)"/.exec(expr)?.[1] ?? '';
  // Prometheus anchors label regular expressions.
  const selects = (name: string): boolean => new RegExp(`^(?:${pattern})$`).test(name);
  for (const name of ['ironic-db', 'a', 'x'.repeat(43), 'db.v1']) {
    const cronJob = databaseNames(name).backupCronJob;
    t.ok(selects(cronJob) && cronJob.length <= 52, `${cronJob} (IronicDatabase ${name})`);
  }
  for (const other of ['ironic-db-database', 'nightly-report', 'ironic-db-database-backup-x']) t.notOk(selects(other), `not ${other}`);
});

t.test("the age of a node's sensor data only silences its old status; the conductor's own metrics say data is stale", async (t) => {
  // Ironic sends sensor data only for deployed nodes, and the exporter keeps serving the last payload of every
  // node it ever saw: a node's data ages whenever it is not deployed, which says nothing about the conductor.
  const reading = (metric: string): Rule[] => allRules.filter((r) => metricNames(String(r.expr)).includes(metric));
  for (const rule of reading('baremetal_last_payload_timestamp_seconds')) {
    t.match(
      String(rule.expr),
      /^baremetal_[a-z]+_status(\{[^}]*\})?( == [12])?\s+unless on \(job, instance, node_uuid\) \(time\(\) - baremetal_last_payload_timestamp_seconds > 3600\)$/,
      `${rule.alert ?? ''}: a sensor status, unless the node's data is over an hour old`,
    );
  }
  t.equal(reading('baremetal_last_payload_timestamp_seconds').length, 9, 'every status alert has the guard');
  t.same(
    reading('conductor_service_last_payload_timestamp_seconds').map((r) => r.alert),
    ['IronicSensorDataStale'],
    'the conductor sends its metrics at every collection, deployed nodes or not',
  );
});

t.test('the rules read metrics that exist', async (t) => {
  const metrics = hookMetrics();
  metrics.observe({ hook: 'sync', kind: 'Ironic' }, 500, 0.01);
  const exposed = new Set([...(await metrics.scrape()).body.matchAll(/^([a-z_:][a-z0-9_:]*)(?:\{| )/gm)].map((m) => m[1]));
  /** Metrics of other programs, as they name them. */
  const external = new Set([
    // Prometheus itself, for every target.
    'up',
    // kube-state-metrics.
    'kube_pod_container_status_ready',
    // ironic-prometheus-exporter (parsers/redfish.py and parsers/header.py).
    'baremetal_temperature_status',
    'baremetal_power_status',
    'baremetal_fan_status',
    'baremetal_drive_status',
    'baremetal_last_payload_timestamp_seconds',
    'conductor_service_last_payload_timestamp_seconds',
    'kube_job_status_start_time',
    'kube_job_owner',
    'kube_job_failed',
    'kube_cronjob_status_last_successful_time',
    'kube_cronjob_created',
  ]);
  const read = [...new Set(allRules.flatMap((r) => metricNames(String(r.expr))))].sort();
  t.ok(read.includes('ironic_hook_errors_total') && read.includes('ironic_hook_call_duration_seconds_bucket'), `the hook metrics are read: ${read.join(', ')}`);
  for (const name of read) t.ok(exposed.has(name) || external.has(name), `${name} is a metric of the hook server or a known one`);
  t.ok(exposed.has('ironic_hook_calls_total'), 'the scrape is parsed');
});
