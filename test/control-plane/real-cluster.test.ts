/**
 * The project against the real programs (test/support/real-cluster.ts): the CRDs pass the API server's own
 * validation (CEL cost included), every example reaches Ready under the real Metacontroller with the real
 * cert-manager and mariadb-operator, and then stays quiet: over several resyncs no child is created,
 * updated or deleted, and Metacontroller logs no sync error.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { yamlFilesUnder } from '../support/controllers.js';
import { isObj, valueAt, type Obj } from '../support/paths.js';
import { findControlPlane, realCluster, RESYNC_SECONDS, run, type RealCluster } from '../support/real-cluster.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { DAY2_ROWS, FAILED_RESTORE, FAILED_RESTORE_ROW, failed, HA_ROW, HA_SWITCH, RESTORE_ROW, RESTORED_DATABASE } from './day2-rows.js';
import { allReady, describeParent, PARENT_PLURALS, parentsIn, settled, text, writesAndErrors } from './parents.js';
import { celParityOnRealServer, uriFormatOnRealServer } from './cel-parity.js';
import { webhookParityOnRealServer } from './webhook-parity.js';

const found = findControlPlane();

/** Every example file, with the namespace it is created in (one each). */
const EXAMPLES = yamlFilesUnder('examples')
  .filter((file) => !file.startsWith(join('examples', 'namespace')))
  .map((file) => ({ file, namespace: `ex-${basename(dirname(file)) === 'examples' ? '' : `${basename(dirname(file))}-`}${basename(file, '.yaml')}` }));

/** The documents of a YAML file, as objects. */
const documentsOf = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).flatMap((d) => {
    const value: unknown = d.toJS();
    return isObj(value) ? [value] : [];
  });

/** A namespace at the Pod Security level examples/namespace gives the examples' own. */
const namespaceObject = (name: string): Obj => {
  const [given] = documentsOf('examples/namespace/baremetal-operator-system.yaml');
  return { ...given, metadata: { name, labels: valueAt(given, 'metadata', 'labels') } };
};

/** The objects of an example, moved into `namespace`. */
const inNamespace = (file: string, namespace: string): Obj[] =>
  documentsOf(file).map((o) => ({ ...o, metadata: { ...(isObj(o['metadata']) ? o['metadata'] : {}), namespace } }));

const applyObjects = async (cluster: RealCluster, objects: readonly Obj[]): Promise<void> => {
  const result = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  if (result.code !== 0) throw new Error(`kubectl apply: ${result.stderr.slice(0, 600)}`);
};

/** The child types of the installed CompositeControllers, as `kubectl get` names them. */
const childResources = async (cluster: RealCluster): Promise<string[]> => {
  const controllers = await cluster.api.list('/apis/metacontroller.k8s.io/v1alpha1/compositecontrollers');
  const types = controllers.flatMap((c) => {
    const children = valueAt(c, 'spec', 'childResources');
    return (Array.isArray(children) ? children : []).map((child) => {
      const [group] = String(valueAt(child, 'apiVersion')).split('/').reverse().slice(1);
      return group === undefined ? String(valueAt(child, 'resource')) : `${String(valueAt(child, 'resource'))}.${group}`;
    });
  });
  return [...new Set(types)].sort();
};

/**
 * The version of every child (and parent) of the given namespaces, by kind/namespace/name: its uid and its
 * generation, or its resourceVersion where it has no generation (Secrets, ConfigMaps, Services). A status
 * that a workload controller or an operator keeps writing is theirs, not a write of the hooks.
 */
const snapshot = async (cluster: RealCluster, resources: readonly string[], namespaces: ReadonlySet<string>): Promise<Map<string, string>> => {
  const result = await cluster.kubectl(['get', [...resources, ...PARENT_PLURALS.map((p) => `${p}.ironic.metal3.io`)].join(','), '-A', '-o', 'json']);
  if (result.code !== 0) throw new Error(`kubectl get: ${result.stderr.slice(0, 600)}`);
  const items = valueAt(JSON.parse(result.stdout) as unknown, 'items');
  const entries = (Array.isArray(items) ? items : []).flatMap((o) => {
    const namespace = String(valueAt(o, 'metadata', 'namespace'));
    if (!namespaces.has(namespace)) return [];
    const key = `${String(valueAt(o, 'kind'))} ${namespace}/${String(valueAt(o, 'metadata', 'name'))}`;
    const generation = valueAt(o, 'metadata', 'generation');
    const version = typeof generation === 'number' ? `generation ${generation}` : `resourceVersion ${text(valueAt(o, 'metadata', 'resourceVersion'))}`;
    return [[key, `${text(valueAt(o, 'metadata', 'uid'))}@${version}`] as const];
  });
  return new Map(entries);
};

/** What changed between two snapshots, one line each. */
const changes = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] => [
  ...[...before].flatMap(([key, version]) => {
    const now = after.get(key);
    if (now === undefined) return [`${key} deleted`];
    if (now.split('@')[0] !== version.split('@')[0]) return [`${key} recreated`];
    return now === version ? [] : [`${key} changed`];
  }),
  ...[...after.keys()].filter((key) => !before.has(key)).map((key) => `${key} created`),
];

/** Over `resyncs` resync periods, nothing of the namespaces changes and Metacontroller writes nothing. */
const staysQuiet = async (t: Test, cluster: RealCluster, namespaces: ReadonlySet<string>, resyncs: number): Promise<void> => {
  const resources = await childResources(cluster);
  // The last steps of a change (a finished upgrade Job deleted, a previous Secret let go) may follow Ready.
  await settled(cluster, namespaces, RESYNC_SECONDS * 1000 + 2000);
  const log = cluster.metacontrollerLog().length;
  const before = await snapshot(cluster, resources, namespaces);
  await sleep(RESYNC_SECONDS * resyncs * 1000);
  const after = await snapshot(cluster, resources, namespaces);
  t.same(changes(before, after), [], `no child or parent created, changed or deleted over ${resyncs} resyncs`);
  t.same(writesAndErrors(cluster.metacontrollerLog(log).lines, namespaces), [], 'Metacontroller wrote nothing and logged no error');
};

if ('skip' in found) {
  // Said where the output of npm test shows it, and as the reason of a skipped test.
  t.comment(found.skip);
  void t.test('the project against the real control plane', { skip: found.skip }, () => undefined);
} else {
  const kit = found.script;

  t.test('the CRDs pass the API server validation of Kubernetes 1.36, CEL cost budget included (crdcheck)', async (t) => {
    const files = yamlFilesUnder('deploy/crds').filter((f) => !f.endsWith('kustomization.yaml'));
    const result = await run(kit, ['crdcheck', ...files]);
    t.equal(result.code, 0, result.stderr);
    const verdicts = result.stdout.trim().split('\n');
    t.equal(verdicts.length, PARENT_KINDS.length, result.stdout);
    for (const line of verdicts) t.match(line, /: valid$/, line);
  });

  t.test('on the real control plane', async (t) => {
    const cluster = await realCluster(kit);

    t.test('the API server created and established the three CRDs', async (t) => {
      for (const plural of PARENT_PLURALS) {
        const crd = await cluster.api.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.ironic.metal3.io`);
        t.equal(crd.status, 200, plural);
        const established = valueAt(crd.body, 'status', 'conditions');
        t.ok(
          Array.isArray(established) && established.some((c) => valueAt(c, 'type') === 'Established' && valueAt(c, 'status') === 'True'),
          `${plural} established`,
        );
      }
    });

    await t.test('the examples are created, each in a namespace of its own', async (t) => {
      // One kubectl apply: the namespaces first, as kubectl applies a list in its order.
      const all = [...EXAMPLES, HA_SWITCH];
      cluster.kubelet.failJob(FAILED_RESTORE.namespace, FAILED_RESTORE.job);
      await applyObjects(cluster, [
        ...[...all.map((e) => e.namespace), RESTORED_DATABASE.namespace, FAILED_RESTORE.namespace].map(namespaceObject),
        ...all.flatMap((e) => inNamespace(e.file, e.namespace)),
        RESTORED_DATABASE.object,
        FAILED_RESTORE.object,
      ]);
      for (const example of all) t.ok((await parentsIn(cluster, example.namespace)).length > 0, `${example.file} in ${example.namespace}`);
    });

    // The switch to high availability waits the pods' termination grace period (95 s): it starts as soon as its
    // copy of an example is ready, and goes on while the rest is checked.
    const haSwitch = allReady(cluster, HA_SWITCH.namespace).then(
      () => HA_ROW.run(cluster),
      (error: unknown) => [failed(error)],
    );

    // While they converge.
    await t.test('every CEL rule refuses and accepts on the real API server as the emulation and its TypeScript twin say', async (t) => {
      await celParityOnRealServer(t, cluster);
    });

    await t.test('the uri format refuses what the table of test/fixtures/uri-cases.ts says, and nothing else', async (t) => {
      await uriFormatOnRealServer(t, cluster);
    });

    const examples = new Set(EXAMPLES.map((e) => e.namespace));
    await t.test(
      "mariadb-operator's real webhooks admit and refuse the hooks' Galera objects and their changes as the table and the stand-in say",
      async (t) => {
        await webhookParityOnRealServer(t, cluster);
      },
    );

    await t.test('every example reaches Ready, then stays quiet over several resyncs', async (t) => {
      for (const example of EXAMPLES) {
        const parents = await allReady(cluster, example.namespace);
        t.pass(`${example.file}: ${parents.map(describeParent).join('; ')}`);
      }
      await staysQuiet(t, cluster, examples, 3);
    });

    await t.test('day 2 on the real control plane', async (t) => {
      const rows = await Promise.all(
        [...DAY2_ROWS, FAILED_RESTORE_ROW].map(async (row) => ({ name: row.name, checks: await row.run(cluster).catch((error: unknown) => [failed(error)]) })),
      );
      rows.push({ name: HA_ROW.name, checks: await haSwitch.catch((error: unknown) => [failed(error)]) });
      rows.push({ name: RESTORE_ROW.name, checks: await RESTORE_ROW.run(cluster).catch((error: unknown) => [failed(error)]) });
      for (const row of rows)
        t.test(row.name, async (t) => {
          for (const check of row.checks) t.ok(check.pass, check.name, check.diag === undefined ? {} : { diag: check.diag });
        });
      await t.test('then quiet again', async (t) => {
        await staysQuiet(t, cluster, new Set([...examples, HA_SWITCH.namespace, RESTORED_DATABASE.namespace, FAILED_RESTORE.namespace]), 2);
      });
    });
  });
}
