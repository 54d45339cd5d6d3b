/**
 * The real control plane for tests, as Kubernetes projects use envtest: etcd, kube-apiserver,
 * kube-controller-manager and Metacontroller v4.17.2 on 127.0.0.1 (started by the control-plane kit's
 * `control-plane.sh up`), real cert-manager and real mariadb-operator beside them, and the hook server of
 * this checkout listening on a free port, which Metacontroller calls by `webhook.url` (it runs outside the
 * cluster). The CRDs and admission policies go in as `kubectl apply -k deploy/...` puts them; the
 * CompositeControllers are those of deploy/base with the mariadb-operator and cert-manager components,
 * built by the real kustomize.
 *
 * There is no kubelet and no scheduler: `FakeKubelet` does what they would for the objects our hooks make
 * (a Node that keeps its lease, pods Running and Ready, Job pods Succeeded, deleted pods gone).
 *
 * One cluster per test process (`realCluster()`), stopped when the process exits.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import tap from 'tap';
import { stringify } from 'yaml';
import { buildServer } from '../../src/server.js';
import { testConfig } from '../helpers/hooks.js';
import { tcpAddress } from '../helpers/net.js';
import { kustomizeBuild } from '../deploy/kustomize.js';
import { hookEnvironment } from './controllers.js';
import { isObj, valueAt, type Obj } from './paths.js';
import { FakeKubelet, sqlObjectsCreated } from './fake-kubelet.js';
import { KubeApi, run, waitFor } from './kube-api.js';
import { freePort, stopProcess } from './processes.js';

export { run, waitFor } from './kube-api.js';

const REPO = resolve(fileURLToPath(new URL('../../', import.meta.url)));

/**
 * Seconds between Metacontroller's resyncs of every parent in the tests (deploy/ says 300). Not less: the
 * kit's Metacontroller writes at 5 requests a second (client-go's default), and with a resync of every parent
 * every 2 seconds its queue fell behind by more than a minute (it now runs at 50 a second, see startMetacontroller).
 */
export const RESYNC_SECONDS = 4;

/** Where the kit is looked for, in order, for the message of a skipped suite. */
const WHERE = 'CONTROL_PLANE_DIR when it is set, else ../shared/control-plane beside this checkout, then beside the repository it was cloned from';

/**
 * Why the suite is skipped, and how to provide what it needs. The kit's script starts the programs
 * (`control-plane.sh up DIR`, `cert-manager DIR`, `mariadb-operator DIR`) from the binaries beside it.
 */
const howToProvide = (why: string): string =>
  [
    `the tests against a real control plane are skipped: ${why}.`,
    'They need the control-plane kit: control-plane.sh with the binaries beside it (etcd and kube-apiserver, which',
    "controller-runtime's envtest takes from KUBEBUILDER_ASSETS, kube-controller-manager v1.32, Metacontroller v4.17.2,",
    `cert-manager v1.20.3, mariadb-operator v26.6.0 and crdcheck). It is looked for in ${WHERE};`,
    'set CONTROL_PLANE_DIR to its directory. The kit needs openssl, curl, python3, xz and kubectl',
    '(Debian: openssl curl python3 xz-utils kubernetes-client).',
  ].join('\n');

/** The origin of this clone when it is a directory on this machine (a CI run clones the working repository). */
const originDirectory = (): string | undefined => {
  try {
    const url = execFileSync('git', ['-C', REPO, 'config', '--get', 'remote.origin.url'], { encoding: 'utf8' })
      .trim()
      .replace(/^file:\/\//, '');
    const dir = resolve(REPO, url);
    return url !== '' && existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
};

/** The kit's script, or why the suite cannot run here (with how to provide what it needs). */
export const findControlPlane = (): { readonly script: string } | { readonly skip: string } => {
  const given = process.env['CONTROL_PLANE_DIR'];
  const origin = originDirectory();
  // A directory given is the only place looked at: it is how a user points at a kit, or away from one.
  const candidates =
    given !== undefined && given !== ''
      ? [given]
      : [join(REPO, '..', 'shared', 'control-plane'), ...(origin !== undefined ? [join(origin, '..', 'shared', 'control-plane')] : [])];
  const script = candidates.map((dir) => resolve(dir, 'control-plane.sh')).find((file) => existsSync(file));
  if (script === undefined) return { skip: howToProvide(`no control-plane.sh in ${candidates.join(' or ')}`) };
  const missing = ['openssl', 'curl', 'python3', 'xz', 'kubectl'].filter((program) => !onPath(program));
  if (missing.length > 0) return { skip: howToProvide(`${missing.join(', ')} not found on PATH`) };
  return { script };
};

const onPath = (program: string): boolean => (process.env['PATH'] ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, program)));

/** A control plane with the project installed, the hook server answering it and a fake kubelet. */
export type RealCluster = {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly api: KubeApi;
  readonly kubelet: FakeKubelet;
  /** kubectl with this cluster's kubeconfig. */
  readonly kubectl: (args: readonly string[], input?: string) => ReturnType<typeof run>;
  /** Metacontroller's log lines (JSON) written from `from` (a length of the log). */
  readonly metacontrollerLog: (from?: number) => { readonly length: number; readonly lines: readonly Obj[] };
};

/** The kustomization the tests install: deploy/base with the components of the operators that run beside it. */
const installKustomization = (dir: string): string => {
  const root = join(dir, 'install');
  const at = (path: string): string => relative(root, join(REPO, path));
  execFileSync('mkdir', ['-p', root]);
  writeFileSync(
    join(root, 'kustomization.yaml'),
    stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [at('deploy/base')],
      components: [at('deploy/components/mariadb-operator'), at('deploy/components/cert-manager')],
    }),
  );
  return root;
};

/** The CompositeControllers of the build, each hook called at `url` instead of the in-cluster Service, resynced often. */
const controllersAt = (objects: readonly Obj[], url: string): Obj[] =>
  objects
    .filter((o) => o['kind'] === 'CompositeController')
    .map((o) => {
      const copy = structuredClone(o);
      const spec = valueAt(copy, 'spec');
      const hooks = valueAt(spec, 'hooks');
      if (!isObj(spec) || !isObj(hooks)) throw new Error('a CompositeController without hooks');
      spec['resyncPeriodSeconds'] = RESYNC_SECONDS;
      for (const hook of Object.values(hooks)) {
        const webhook = valueAt(hook, 'webhook');
        if (!isObj(hook) || !isObj(webhook)) continue;
        hook['webhook'] = { url: `${url}${String(webhook['path'])}`, timeout: webhook['timeout'] };
      }
      return copy;
    });

const must = async (what: string, result: Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>): Promise<string> => {
  const { code, stdout, stderr } = await result;
  if (code !== 0) throw new Error(`${what} failed (${code}): ${stderr.trim() || stdout.trim()}`);
  return stdout;
};

/**
 * Starts an operator of the kit, again when it fails: its `kubectl wait --for condition=Established` on a CRD
 * it has just applied fails at once when the API server has not written the CRD's conditions yet. The
 * script starts only what is not running, so a second run finishes the first.
 */
const startOperator = async (script: string, operator: 'cert-manager' | 'mariadb-operator', dir: string): Promise<void> => {
  for (let attempt = 1; ; attempt += 1) {
    const result = await run(script, [operator, dir], { timeoutMs: 120_000 });
    if (result.code === 0) return;
    if (attempt === 3) throw new Error(`control-plane.sh ${operator} failed (${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
  }
};

const readPorts = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(join(dir, 'ports'), 'utf8')
      .split('\n')
      .flatMap((line) => {
        const [key, value] = line.split('=');
        return key !== undefined && value !== undefined ? [[key, value]] : [];
      }),
  );

/** Metacontroller's client rate in the tests: its default (5 a second) made the examples wait a minute for their writes. */
const METACONTROLLER_QPS = 50;

/**
 * Starts Metacontroller from the kit's binary as the kit would (its CRDs, out of cluster with the admin
 * kubeconfig, debug log), but with a client rate of METACONTROLLER_QPS: a dozen parents at once queue their
 * writes behind the default rate of 5 a second. Its log goes where the kit's would.
 */
const startMetacontroller = async (script: string, dir: string, kubeconfig: string, api: KubeApi): Promise<ChildProcess> => {
  const bin = (await must('control-plane.sh bin', run(script, ['bin']))).trim();
  await must(
    "Metacontroller's CRDs",
    run('kubectl', ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', join(dirname(script), 'manifests', 'metacontroller-crds-v1.yaml')]),
  );
  await waitFor('the CompositeController CRD served', async () =>
    (await api.request('GET', '/apis/metacontroller.k8s.io/v1alpha1/compositecontrollers')).status === 200 ? true : undefined,
  );
  const [metrics, health] = [await freePort(), await freePort()];
  const log = openSync(join(dir, 'log', 'metacontroller.log'), 'a');
  const args = ['--kubeconfig', kubeconfig, '--zap-log-level=4', '--discovery-interval', '5s'];
  const addresses = ['--metrics-address', `127.0.0.1:${metrics}`, '--health-probe-bind-address', `127.0.0.1:${health}`];
  const rate = ['--client-go-qps', String(METACONTROLLER_QPS), '--client-go-burst', String(METACONTROLLER_QPS * 2)];
  const child = spawn(join(bin, 'metacontroller'), [...args, ...addresses, ...rate], { stdio: ['ignore', log, log] });
  closeSync(log);
  return child;
};

const start = async (script: string): Promise<RealCluster & { readonly stop: () => Promise<void> }> => {
  const dir = mkdtempSync(join(tmpdir(), 'real-cluster-'));
  const kubeconfig = join(dir, 'admin.kubeconfig');
  const kubectl = (args: readonly string[], input?: string): ReturnType<typeof run> =>
    run('kubectl', ['--kubeconfig', kubeconfig, ...args], input === undefined ? {} : { input });
  let app: FastifyInstance | undefined;
  let kubelet: FakeKubelet | undefined;
  let metacontroller: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    await kubelet?.stop();
    if (metacontroller !== undefined) await stopProcess(metacontroller);
    await run(script, ['down', dir]);
    await app?.close();
    if (process.env['KEEP_REAL_CLUSTER'] === undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await must('control-plane.sh up', run(script, ['up', dir, '--no-metacontroller'], { timeoutMs: 180_000 }));
    // The operators beside it; each applies its own CRDs and webhooks.
    // Both to their end before a failure stops the cluster under them.
    const operators = await Promise.allSettled([startOperator(script, 'cert-manager', dir), startOperator(script, 'mariadb-operator', dir)]);
    for (const outcome of operators) if (outcome.status === 'rejected') throw outcome.reason;
    const api = new KubeApi(dir, Number(readPorts(dir)['API_PORT']));
    metacontroller = await startMetacontroller(script, dir, kubeconfig, api);
    const objects = kustomizeBuild(installKustomization(dir));
    app = buildServer(testConfig(hookEnvironment(objects)), { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${tcpAddress(app.server).port}`;
    await must('kubectl apply -k deploy/crds', kubectl(['apply', '-k', join(REPO, 'deploy/crds')]));
    await must('kubectl apply -k deploy/admission', kubectl(['apply', '-k', join(REPO, 'deploy/admission')]));
    // Served (the API answers a list) rather than `kubectl wait`: that fails at once on a CRD whose conditions are not written yet.
    await waitFor('the three CRDs served', async () => {
      const lists = ['ironics', 'ironicdatabases', 'ironicimagecaches'].map((plural) => api.request('GET', `/apis/ironic.metal3.io/v1alpha1/${plural}`));
      return (await Promise.all(lists)).every((answer) => answer.status === 200) ? true : undefined;
    });
    await must(
      'kubectl apply the CompositeControllers',
      kubectl(
        ['apply', '-f', '-'],
        controllersAt(objects, url)
          .map((o) => stringify(o))
          .join('---\n'),
      ),
    );
    kubelet = new FakeKubelet(api, [sqlObjectsCreated]);
    await kubelet.start();
    const log = join(dir, 'log', 'metacontroller.log');
    const metacontrollerLog = (from = 0): { length: number; lines: Obj[] } => {
      const text = readFileSync(log, 'utf8');
      const lines = text
        .slice(from)
        .split('\n')
        .flatMap((line) => {
          try {
            const parsed: unknown = JSON.parse(line);
            return isObj(parsed) ? [parsed] : [];
          } catch {
            return [];
          }
        });
      return { length: text.length, lines };
    };
    return { dir, kubeconfig, api, kubelet, kubectl, metacontrollerLog, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};

let started: Promise<RealCluster & { readonly stop: () => Promise<void> }> | undefined;

/**
 * The real cluster of this test process, started on first use and stopped when the process's last test
 * has ended (a teardown of tap's root test): the files of a suite share one.
 */
export const realCluster = (script: string): Promise<RealCluster & { readonly stop: () => Promise<void> }> => {
  if (started !== undefined) return started;
  const starting = start(script);
  started = starting;
  tap.teardown(async () => {
    const cluster = await starting.catch(() => undefined);
    await cluster?.stop();
  });
  return starting;
};
