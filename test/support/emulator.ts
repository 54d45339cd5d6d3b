/**
 * A Metacontroller emulator for tests: the hook server listening on 127.0.0.1, called over real HTTP in
 * the v2 wire format by an in-memory cluster (src/cli/cluster.ts) that runs the CompositeControllers of
 * deploy/ (one per parent kind of src/kinds, synced in their order). The API server part defaults and
 * prunes parents and their status to the CRDs, refuses parents the CRDs refuse, and validates children
 * with the upstream Kubernetes schemas. The test plays the workload controllers and the kubelet
 * (markDeploymentAvailable, completeJob, ...).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Cluster, type ClusterEvent, type RoundResult, type Write } from '../../src/cli/cluster.js';
import { readObjects } from '../../src/cli/documents.js';
import {
  availableDeploymentStatus,
  completeJobStatus,
  failedJobStatus,
  podsInStatus,
  readyDaemonSetStatus,
  readyStatefulSetStatus,
  scheduledNodes,
  settledStatus,
} from '../../src/cli/kubelet.js';
import { MariaDBOperatorStandIn } from '../../src/cli/mariadb-operator.js';
import { groupKeyOf, isRecord, objectKeyOf, type Json, type KubeResource } from '../../src/cli/objects.js';
import type { Secrets } from '../../src/hooks/materialize.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { BUILTIN_RESOURCES, CERTIFICATES, groupKeyOfType } from '../../src/api/shared/resource-types.js';
import { buildServer } from '../../src/server.js';
import type { ChildType, ControllerSpec } from '../../src/cli/controllers.js';
import { CertManagerStandIn } from '../../src/cli/cert-manager.js';
import { FIXED_NOW, fakeSecrets, testConfig } from '../helpers/hooks.js';
import { validateK8s } from '../helpers/k8s.js';
import { deployedControllers, overlayDeployment } from './controllers.js';
import { admissionProblems, CERT_MANAGER_CRDS, storedObject, storedStatus } from './crd-schema.js';
import { certManagerWebhookRefusals } from './cert-manager-webhook.js';
import { tcpAddress } from '../helpers/net.js';
import { readYaml } from '../helpers/json.js';
import { reconcileCronJobs } from '../../src/cli/cron-jobs.js';

export type EmulatorOptions = {
  /** Passwords and bcrypt of the hook server (default: deterministic fakes). */
  readonly secrets?: Secrets;
  /** The cluster clock starts here (default FIXED_NOW) and moves by `tickSeconds` before every round. */
  readonly start?: string;
  /** Seconds the clock moves per round (default 1): a status that embeds the time would never settle. */
  readonly tickSeconds?: number;
  /** Namespace of objects given without one (default `metal3`). */
  readonly namespace?: string;
  /**
   * Metacontroller's timing instead of a sync of every parent every round: syncs on events (a change to
   * the parent, a child or a related object), on the CompositeController's resync period (300s) and
   * resyncAfterSeconds.
   */
  readonly eventDriven?: boolean;
  /** Child groups whose cache lags a round behind the others (e.g. `Secret.v1`). */
  readonly laggingGroups?: readonly string[];
  /**
   * cert-manager installed with deploy/components/cert-manager: the hook server runs with CERT_MANAGER=true,
   * the `ironic` CompositeController declares Certificates as the component's patch does, and a cert-manager
   * stand-in fills the Secret of every Certificate (see issueCertificates).
   */
  readonly certManager?: boolean;
  /**
   * Install from a deploy overlay (e.g. `mariadb-operator`) instead of deploy/base: its CompositeControllers
   * and the hook server's environment, from the real `kubectl kustomize`.
   */
  readonly overlay?: string;
  /** More validating admission webhooks, consulted on every child write after the built-in checks (a denial line each). */
  readonly webhooks?: readonly ((child: KubeResource) => readonly string[])[];
};

/** The JSON patch of the cert-manager component that adds Certificates to the `ironic` CompositeController. */
const CertificatesPatch = Type.Array(
  Type.Object({
    value: Type.Object({
      apiVersion: Type.String(),
      resource: Type.String(),
      updateStrategy: Type.Object({ method: Type.Union([Type.Literal('OnDelete'), Type.Literal('Recreate'), Type.Literal('InPlace')]) }),
    }),
  }),
);

/** The child type the cert-manager component's patch adds to the `ironic` CompositeController. */
const certManagerChildType = (): ChildType => {
  const [patch] = readYaml('deploy/components/cert-manager/ironic-controller-certificates.yaml', CertificatesPatch);
  if (patch?.value.resource !== CERTIFICATES.resource) throw new Error('the cert-manager component no longer adds certificates');
  return { group: groupKeyOfType({ kind: CERTIFICATES.kind, apiVersion: patch.value.apiVersion }), strategy: patch.value.updateStrategy.method };
};

/** The controllers of deploy/, with the cert-manager component applied when asked. */
const controllersFor = (options: EmulatorOptions, controllers: readonly ControllerSpec[]): ControllerSpec[] =>
  controllers.map((c) => (options.certManager === true && c.name === 'ironic' ? { ...c, childTypes: [...c.childTypes, certManagerChildType()] } : c));

/** resyncPeriodSeconds of the CompositeControllers of deploy/. */
const RESYNC_PERIOD_SECONDS = 300;

export type Condition = { readonly type: string; readonly status: string; readonly reason?: string; readonly message?: string };

export type StableResult = {
  /** Rounds run, the last quiet one included. */
  readonly rounds: number;
  /**
   * Whether a round made no write before maxRounds and no sync of the run failed: a write the API server or
   * a webhook refused (or any other sync error) on the way is no convergence, even if a later round is quiet.
   */
  readonly stable: boolean;
  readonly writes: readonly Write[];
  /** Sync failures seen, as `Kind ns/name: message`. */
  readonly errors: readonly string[];
};

/** Kinds the emulator knows, by kind name: the built-in ones, cert-manager's Issuer and every parent kind. */
const GROUP_BY_KIND: ReadonlyMap<string, string> = new Map(
  [...BUILTIN_RESOURCES, { kind: 'Issuer', apiVersion: CERTIFICATES.apiVersion }, ...PARENT_KINDS].map((type) => [type.kind, groupKeyOfType(type)]),
);

/** Kinds kubernetes-models can validate (others, like ServiceMonitor, are not checked). */
const isList = (input: KubeResource | readonly KubeResource[]): input is readonly KubeResource[] => Array.isArray(input);

const VALIDATED = new Set([
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'Job',
  'Service',
  'Secret',
  'ConfigMap',
  'PersistentVolumeClaim',
  'Ingress',
  'NetworkPolicy',
  'ServiceAccount',
  // mariadb-operator's, against its published CRDs (test/fixtures/mariadb-operator).
  'MariaDB',
  'Database',
  'User',
  'Grant',
  'Backup',
]);

/**
 * Why the API server refuses a child write: the schema of its type, then (cert-manager's kinds) the
 * validating webhook cert-manager installs. Each refusal fails the sync.
 */
const childProblems = (child: KubeResource): string[] => {
  // cert-manager's published CRD (test/fixtures/cert-manager), as the API server would check it, then its webhook.
  if (CERT_MANAGER_CRDS.has(child.kind)) {
    const schema = admissionProblems(child);
    return schema.length > 0 ? [`${child.kind}.cert-manager.io "${child.metadata.name}" is invalid: ${schema.join('; ')}`] : certManagerWebhookRefusals(child);
  }
  if (!VALIDATED.has(child.kind)) return [];
  try {
    validateK8s(child);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
};

const groupOfKind = (kind: string): string => {
  const group = GROUP_BY_KIND.get(kind);
  if (group === undefined) throw new Error(`the emulator does not know kind ${kind}`);
  return group;
};

const addSeconds = (time: string, seconds: number): string => new Date(Date.parse(time) + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class Emulator {
  readonly cluster: Cluster;
  readonly history: RoundResult[] = [];
  /** mariadb-operator's stand-in (settleWorkloads runs it): its SQL accounts show what reached MariaDB. */
  readonly mariadbOperator = new MariaDBOperatorStandIn();
  readonly #app: FastifyInstance;
  readonly #tick: number;
  readonly #namespace: string;
  readonly #certManager: CertManagerStandIn | undefined;
  #now: string;

  private constructor(app: FastifyInstance, url: string, options: EmulatorOptions, controllers: ControllerSpec[], certManager?: CertManagerStandIn) {
    this.#app = app;
    this.#certManager = certManager;
    this.#now = options.start ?? FIXED_NOW;
    this.#tick = options.tickSeconds ?? 1;
    this.#namespace = options.namespace ?? 'metal3';
    this.cluster = new Cluster({
      transport: async (path, body) => {
        const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await response.text();
        const parsed: unknown = text === '' ? undefined : JSON.parse(text);
        return { statusCode: response.status, body: parsed };
      },
      controllers: controllersFor(options, controllers),
      clock: () => this.#now,
      storedStatus: (parent, status) => storedStatus(parent.kind, status),
      admitChild: (child) => {
        const problems = childProblems(child);
        return problems.length > 0 ? problems : (options.webhooks ?? []).flatMap((webhook) => webhook(child));
      },
      ...(options.eventDriven === true && { resyncPeriodSeconds: RESYNC_PERIOD_SECONDS }),
      ...(options.laggingGroups !== undefined && { laggingGroups: options.laggingGroups }),
    });
  }

  /** Starts the hook server on 127.0.0.1 (a free port) and returns an empty cluster that calls it. */
  static async start(options: EmulatorOptions = {}): Promise<Emulator> {
    let emulator: Emulator | undefined;
    const overlay = options.overlay !== undefined ? overlayDeployment(options.overlay) : undefined;
    const config = testConfig({ ...(overlay?.env ?? {}), ...(options.certManager === true && { CERT_MANAGER: 'true' }) });
    const certManager = options.certManager === true ? await CertManagerStandIn.start(options.start ?? FIXED_NOW) : undefined;
    const app = buildServer(config, { secrets: options.secrets ?? fakeSecrets(), now: () => emulator?.now ?? FIXED_NOW, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = tcpAddress(app.server);
    try {
      emulator = new Emulator(app, `http://127.0.0.1:${port}`, options, overlay?.controllers ?? deployedControllers(), certManager);
    } catch (error) {
      // E.g. a CompositeController of deploy/ it cannot model: a listening server would keep the test alive.
      await app.close();
      throw error;
    }
    return emulator;
  }

  async close(): Promise<void> {
    await this.#app.close();
  }

  /** The cluster clock (also the hook server's). */
  get now(): string {
    return this.#now;
  }

  /** Moves the cluster clock (and so the hook server's) forward, as if that much time passed without an event. */
  advance(seconds: number): void {
    this.#now = addSeconds(this.#now, seconds);
  }

  /** The SyncError events Metacontroller recorded on parents so far. */
  get events(): ClusterEvent[] {
    return [...this.cluster.events];
  }

  /** Every write of every round so far. */
  get writes(): Write[] {
    return this.history.flatMap((r) => r.writes);
  }

  /**
   * `kubectl apply` of objects or YAML: parents are defaulted and pruned to their CRD and refused
   * (thrown) when the CRD refuses them; Secret stringData becomes data.
   */
  apply(input: string | KubeResource | readonly KubeResource[]): KubeResource[] {
    const objects = typeof input === 'string' ? this.#parse(input) : isList(input) ? [...input] : [input];
    return objects.map((given) => {
      const object = given.metadata.namespace === undefined ? { ...given, metadata: { ...given.metadata, namespace: this.#namespace } } : given;
      const old = this.cluster.store.get(groupKeyOf(object), objectKeyOf(object));
      const problems = [...admissionProblems(object, old), ...certManagerWebhookRefusals(object)];
      if (problems.length > 0) throw new Error(`${object.kind} ${objectKeyOf(object)} refused: ${problems.join('; ')}`);
      return this.cluster.put(storedObject(object));
    });
  }

  /** The objects of a YAML text, in the emulator's default namespace when they name none. */
  parse(text: string): KubeResource[] {
    return this.#parse(text);
  }

  #parse(text: string): KubeResource[] {
    const result = readObjects([{ text, source: 'input' }], this.#namespace);
    if (result.errors.length > 0) throw new Error(result.errors.join('\n'));
    return [...result.objects];
  }

  /** `kubectl delete` (graceful with finalizers). */
  delete(kind: string, name: string, namespace?: string): void {
    const object = this.#find(kind, name, namespace);
    this.cluster.remove(groupKeyOf(object), object.metadata.namespace ?? '', name);
  }

  get(kind: string, name: string, namespace?: string): KubeResource | undefined {
    const group = groupOfKind(kind);
    if (namespace !== undefined) return this.cluster.store.get(group, `${namespace}/${name}`);
    const found = this.cluster.store.list(group).filter((o) => o.metadata.name === name);
    if (found.length > 1) throw new Error(`${kind} ${name} exists in several namespaces: give one`);
    return found[0];
  }

  #find(kind: string, name: string, namespace?: string): KubeResource {
    const object = this.get(kind, name, namespace);
    if (object === undefined) throw new Error(`${kind} ${namespace ?? '*'}/${name} not found`);
    return object;
  }

  /** The children a parent owns, in creation order. */
  children(kind: string, name: string, namespace?: string): KubeResource[] {
    return this.cluster.store.ownedBy(this.#find(kind, name, namespace).metadata.uid ?? '');
  }

  /**
   * Pods of a workload at the cluster's time: those its status counts while it exists, and those still
   * in their termination grace period after it was scaled down or deleted (the kubelet stand-in's).
   */
  podsOf(kind: string, name: string, namespace?: string): number {
    const workload = this.get(kind, name, namespace);
    const terminating = this.cluster.store
      .terminatingPods()
      .filter((p) => p.kind === kind && p.name === name && (namespace ?? workload?.metadata.namespace ?? p.namespace) === p.namespace);
    return (workload === undefined ? 0 : podsInStatus(workload)) + terminating.reduce((sum, p) => sum + p.pods, 0);
  }

  status(kind: string, name: string, namespace?: string): Json {
    const status = this.#find(kind, name, namespace)['status'];
    return isRecord(status) ? status : {};
  }

  /** The Ready condition of a parent, if any. */
  ready(kind: string, name: string, namespace?: string): Condition | undefined {
    const conditions = this.status(kind, name, namespace)['conditions'];
    return (Array.isArray(conditions) ? conditions : []).find((c): c is Condition => isRecord(c) && c['type'] === 'Ready');
  }

  #setStatus(kind: string, name: string, namespace: string | undefined, status: (object: KubeResource) => Json): void {
    const object = this.#find(kind, name, namespace);
    this.cluster.store.updateStatus(object, status(object));
  }

  markDeploymentAvailable(name: string, namespace?: string): void {
    this.#setStatus('Deployment', name, namespace, availableDeploymentStatus);
  }

  markStatefulSetReady(name: string, namespace?: string): void {
    this.#setStatus('StatefulSet', name, namespace, readyStatefulSetStatus);
  }

  markDaemonSetReady(name: string, options: { readonly namespace?: string; readonly nodes?: number } = {}): void {
    this.#setStatus('DaemonSet', name, options.namespace, (o) => readyDaemonSetStatus(o, options.nodes ?? scheduledNodes(o)));
  }

  completeJob(name: string, namespace?: string): void {
    this.#setStatus('Job', name, namespace, () => completeJobStatus(this.#now));
  }

  failJob(name: string, message?: string, namespace?: string): void {
    this.#setStatus('Job', name, namespace, () => failedJobStatus(this.#now, message));
  }

  /** The CronJob controller's stand-in (src/cli/cron-jobs.ts) at the cluster clock: returns how many writes it made. */
  runCronJobs(): number {
    return reconcileCronJobs(this.cluster.store, this.#now).writes;
  }

  /** The cert-manager stand-in (src/cli/cert-manager.ts), with `certManager`: returns how many Secrets it issued. */
  issueCertificates(): number {
    return this.#certManager?.reconcile(this.cluster, this.#now) ?? 0;
  }

  /**
   * Every workload ready at its generation, every unfinished Job complete, with cert-manager every Certificate
   * issued, and every mariadb-operator object Ready (a MariaDB with its Services). Returns how many changed.
   */
  settleWorkloads(): number {
    let changed = this.runCronJobs() + this.issueCertificates() + this.mariadbOperator.reconcile(this.cluster.store, this.#now);
    for (const object of this.cluster.store.list()) {
      const status = settledStatus(object, this.#now);
      if (status === undefined) continue;
      this.cluster.store.updateStatus(object, status);
      changed += 1;
    }
    return changed;
  }

  /** One resync of every parent; the clock moves first. */
  async round(): Promise<RoundResult> {
    this.#now = addSeconds(this.#now, this.#tick);
    const result = await this.cluster.round();
    this.history.push(result);
    return result;
  }

  /**
   * Rounds until one writes nothing, no sync fails and the informer cache has caught up (a lagging cache may
   * still hold news that wakes a parent), or maxRounds; `stable` only when no sync failed at
   * all. With `autoReady`, every workload becomes ready and every Job completes before each round.
   */
  async runUntilStable(options: { readonly maxRounds?: number; readonly autoReady?: boolean } = {}): Promise<StableResult> {
    const maxRounds = options.maxRounds ?? 20;
    const writes: Write[] = [];
    const errors: string[] = [];
    for (let round = 1; round <= maxRounds; round += 1) {
      if (options.autoReady === true) this.settleWorkloads();
      const result = await this.round();
      const failed = result.syncs.filter((s) => s.error !== undefined).map((s) => `${s.parent}: ${s.error ?? ''}`);
      writes.push(...result.writes);
      errors.push(...failed);
      if (result.writes.length === 0 && failed.length === 0 && result.cacheCurrent) return { rounds: round, stable: errors.length === 0, writes, errors };
    }
    return { rounds: maxRounds, stable: false, writes, errors };
  }
}

/** Starts an emulator (see Emulator.start). */
export const startEmulator = (options: EmulatorOptions = {}): Promise<Emulator> => Emulator.start(options);
