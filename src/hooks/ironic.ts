/**
 * The Ironic hooks: thin adapters from the Metacontroller wire format to the pure renderers.
 */
import type { CustomizeRequest, CustomizeResponse, KubeObject, ObjectMap, SyncRequest, SyncResponse } from '../api/hook.js';
import { GROUP_KEYS } from '../api/hook.js';
import { GROUP_VERSION } from '../api/common.js';
import { withDefaults } from '../api/defaults.js';
import type { IronicSpec } from '../api/ironic.js';
import { validateIronic } from '../api/validate.js';
import { validateOverrides } from '../api/validate-overrides.js';
import { keepObserved, keepObservedChildren, type KubeChild } from '../render/child.js';
import { findObject, isRecord, objectsOf, pathOf, textOf } from '../render/observed.js';
import { ironicNames } from '../render/names.js';
import { combineReadiness, daemonSetReadiness, deploymentReadiness, jobReadiness, progressing, serviceReadiness, type Readiness } from '../render/status.js';
import { renderIronicChildren } from '../render/ironic/index.js';
import { resolveIronicReferences, type ReferenceProblem } from '../render/ironic/references.js';
import { resolveDatabase } from '../render/ironic/database.js';
import { computeIronicStatus, type IronicOutcome } from '../render/ironic/status.js';
import { downgradeRefusal, renderUpgradeJob, transitionFrom } from '../render/ironic/upgrade.js';
import type { IronicRenderInput } from '../render/ironic/input.js';
import { materializeCredentials, materializeRpcCA } from './materialize.js';
import { describeProblems } from './problems.js';
import { countChildren, parentOf, type Parent } from './parent.js';
import { namesRule } from './related.js';
import type { HookContext } from './context.js';

export type { HookContext } from './context.js';


/** A CA reference by kind: `{name, kind}` objects, or the deprecated name fields with their fixed kinds. */
const caNames = (tls: Record<string, unknown>, kind: 'Secret' | 'ConfigMap'): (string | undefined)[] => {
  const ref = (field: string, legacy: string, legacyKind: 'Secret' | 'ConfigMap'): string | undefined => {
    const object = tls[field];
    if (isRecord(object)) return object['kind'] === kind ? textOf(object['name']) : undefined;
    return legacyKind === kind ? textOf(tls[legacy]) : undefined;
  };
  return [ref('bmcCA', 'bmcCAName', 'Secret'), ref('trustedCA', 'trustedCAName', 'ConfigMap')];
};

/** The switch Secrets named by an enabled networking service (the default ones are our children). */
const switchNames = (spec: Record<string, unknown>): (string | undefined)[] => {
  const service = isRecord(spec['networkingService']) ? spec['networkingService'] : {};
  return service['enabled'] === true ? [textOf(service['switchConfigSecretName']), textOf(service['switchCredentialsSecretName'])] : [];
};

/**
 * customize: the objects the spec names, asked for by name only. Depends on the parent's spec (and
 * namespace) only, as Metacontroller caches the answer per generation.
 */
export const customizeIronic = (request: CustomizeRequest): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const spec = isRecord(request.parent['spec']) ? request.parent['spec'] : {};
  const tls = isRecord(spec['tls']) ? spec['tls'] : {};
  return {
    relatedResources: [
      ...namesRule('v1', 'secrets', namespace, [textOf(spec['apiCredentialsName']), textOf(tls['certificateName']), ...caNames(tls, 'Secret'), ...switchNames(spec)]),
      ...namesRule('v1', 'configmaps', namespace, caNames(tls, 'ConfigMap')),
      ...namesRule(GROUP_VERSION, 'ironicdatabases', namespace, [textOf(spec['databaseName'])]),
    ],
  };
};

const referenceOutcome = (problems: readonly ReferenceProblem[]): IronicOutcome => ({
  kind: problems.some((p) => p.kind === 'missing') ? 'missingReference' : 'invalidReference',
  message: problems.map((p) => p.message).join('; '),
});


/** A response that keeps every observed child as it is and explains why in the status. */
const keep = (request: SyncRequest, parent: Parent, ctx: HookContext, outcome: IronicOutcome, targetVersion?: string): SyncResponse => ({
  status: computeIronicStatus({ outcome, targetVersion, previousStatus: parent.status, generation: parent.generation, credentialsName: undefined, now: ctx.now() }),
  children: keepObservedChildren(request.children),
});

const observedReadiness = (children: ObjectMap | null | undefined, parent: Parent, version: string, highAvailability: boolean, networking = false) => {
  const names = ironicNames(parent.name);
  return combineReadiness(
    [
      ...(networking ? [deploymentReadiness(findObject(children, GROUP_KEYS.deployment, parent.namespace, names.networking), version, 'the ironic-networking deployment')] : []),
      highAvailability
        ? daemonSetReadiness(findObject(children, GROUP_KEYS.daemonSet, parent.namespace, names.workload), version)
        : deploymentReadiness(findObject(children, GROUP_KEYS.deployment, parent.namespace, names.workload), version),
      serviceReadiness(findObject(children, GROUP_KEYS.service, parent.namespace, names.service)),
    ],
    'all resources are available',
  );
};

/** sync: the complete desired children and the status, as pure functions of the request (plus reused secrets). */
export const syncIronic = async (request: SyncRequest, ctx: HookContext): Promise<SyncResponse> => {
  const parent = parentOf(request);
  const problems = [...validateIronic(parent.spec), ...validateOverrides(parent.spec)];
  if (problems.length > 0) return keep(request, parent, ctx, { kind: 'invalidSpec', message: describeProblems(problems) });
  const spec = withDefaults(parent.spec as IronicSpec);
  const references = resolveIronicReferences(spec, request.related, parent.namespace, request.children, parent.name);
  if (!references.ok) return keep(request, parent, ctx, referenceOutcome(references.problems), spec.version);
  const database = resolveDatabase(spec, request.related, parent.namespace);
  if (!database.ok) return keep(request, parent, ctx, { kind: database.kind === 'missing' ? 'missingReference' : 'waiting', message: database.message }, spec.version);
  const lagging = secretsNotObservedYet(request, parent, ctx);
  if (lagging) {
    return {
      ...keep(request, parent, ctx, { kind: 'waiting', message: 'waiting for the Secrets of this Ironic to be observed before reusing them' }, spec.version),
      resyncAfterSeconds: 5,
    };
  }
  const credentials = await materializeCredentials({
    name: parent.name,
    namespace: parent.namespace,
    apiCredentialsName: spec.apiCredentialsName,
    related: request.related,
    children: request.children,
    secrets: ctx.secrets,
  });
  if (!credentials.ok) return keep(request, parent, ctx, referenceOutcome([credentials.problem]), spec.version);
  const rpcCA =
    spec.highAvailability === true
      ? await materializeRpcCA({
          name: parent.name,
          namespace: parent.namespace,
          children: request.children,
          now: new Date(ctx.now()),
          secrets: ctx.secrets,
          rollout: caRollout(request, parent, spec.version),
        })
      : undefined;
  const input: IronicRenderInput = {
    name: parent.name,
    namespace: parent.namespace,
    spec,
    references: { ...references.references, ...(database.database && { database: database.database }) },
    credentials: credentials.credentials,
    ...(rpcCA && { rpcCA }),
    config: ctx.config,
  };
  const installed = textOf(pathOf(parent.status, 'installedVersion'));
  const refusal = input.references.database !== undefined ? downgradeRefusal(installed, spec.version) : undefined;
  if (refusal !== undefined) return keep(request, parent, ctx, { kind: 'refused', message: refusal });
  const planned = planChildren(request, parent, input, installed);
  return {
    status: computeIronicStatus({
      outcome: { kind: 'rendered', readiness: planned.readiness },
      targetVersion: spec.version,
      previousStatus: parent.status,
      generation: parent.generation,
      credentialsName: credentials.credentials.secretName,
      now: ctx.now(),
    }),
    children: [...planned.children, ...(rpcCA !== undefined ? previousCASecrets(request, parent, spec.version, rpcCA.secretName) : [])],
  };
};

/** The CA Secret the observed DaemonSet was rolled out with (from its annotation), and whether it is ready. */
const caRollout = (request: SyncRequest, parent: Parent, version: string): { secretName: string; ready: boolean } | undefined => {
  const names = ironicNames(parent.name);
  const daemonSet = findObject(request.children, GROUP_KEYS.daemonSet, parent.namespace, names.workload);
  const annotation = pathOf(daemonSet, 'spec', 'template', 'metadata', 'annotations', 'ironic.metal3.io/rpc-ca-version');
  if (daemonSet === undefined || typeof annotation !== 'string') return undefined;
  return { secretName: `${names.rpcCA}-${annotation.slice(0, 10)}`, ready: daemonSetReadiness(daemonSet, version).state === 'ready' };
};

/**
 * CA Secrets that running replicas may still use: every observed one besides the current, until the
 * DaemonSet has rolled out completely with the current one (its template alone says nothing about the
 * pods). They stay in the response, since a child left out is deleted.
 */
const previousCASecrets = (request: SyncRequest, parent: Parent, version: string, current: string): KubeChild[] => {
  const rollout = caRollout(request, parent, version);
  if (rollout !== undefined && rollout.ready && rollout.secretName === current) return [];
  const names = ironicNames(parent.name);
  return objectsOf(request.children, GROUP_KEYS.secret)
    .filter((s) => s.metadata.name.startsWith(`${names.rpcCA}-`) && s.metadata.name !== current && s.metadata.deletionTimestamp === undefined)
    .map(keepObserved);
};

/** How long after the workload was created a missing Secret is taken as deleted rather than not yet seen. */
const CACHE_GRACE_SECONDS = 120;

/** The observed Deployment and/or DaemonSet `<name>-service`. */
const observedWorkloads = (request: SyncRequest, parent: Parent): KubeObject[] => {
  const name = ironicNames(parent.name).workload;
  return [GROUP_KEYS.deployment, GROUP_KEYS.daemonSet]
    .map((group) => findObject(request.children, group, parent.namespace, name))
    .filter((o) => o !== undefined);
};

/**
 * True when the workload is observed but a Secret of ours that it uses is not: Metacontroller's Secret
 * cache is behind its workload cache. Generating credentials or a CA now would roll the pods to values
 * that the next sync reverts, so the sync waits instead (for a young workload only: after that, the Secret
 * was deleted).
 */
const secretsNotObservedYet = (request: SyncRequest, parent: Parent, ctx: HookContext): boolean => {
  const names = ironicNames(parent.name);
  const [workload] = observedWorkloads(request, parent);
  if (workload === undefined) return false;
  const observed = new Set(objectsOf(request.children, GROUP_KEYS.secret).map((s) => s.metadata.name));
  // Only the Secrets we render count (a database's credentials, for one, belong to someone else).
  const ours = (secret: string): boolean =>
    secret === names.apiCredentials ||
    secret.startsWith(names.htpasswd('')) ||
    secret.startsWith(`${names.rpcCA}-`) ||
    secret === names.switchConfig ||
    secret === names.switchCredentials;
  const missing = referencedSecrets(workload).filter((name) => ours(name) && !observed.has(name));
  if (missing.length === 0) return false;
  const created = Date.parse(String(pathOf(workload, 'metadata', 'creationTimestamp') ?? ''));
  return !Number.isNaN(created) && Date.parse(ctx.now()) - created < CACHE_GRACE_SECONDS * 1000;
};

/** Names of the Secrets a workload's pod template uses (volumes, projected sources, env). */
const referencedSecrets = (workload: KubeObject): string[] => {
  const spec = pathOf(workload, 'spec', 'template', 'spec');
  const volumes = (pathOf(spec, 'volumes') as unknown[] | undefined) ?? [];
  const containers = [...((pathOf(spec, 'containers') as unknown[] | undefined) ?? []), ...((pathOf(spec, 'initContainers') as unknown[] | undefined) ?? [])];
  const names = [
    ...volumes.map((v) => pathOf(v, 'secret', 'secretName')),
    ...volumes.flatMap((v) => ((pathOf(v, 'projected', 'sources') as unknown[] | undefined) ?? []).map((s) => pathOf(s, 'secret', 'name'))),
    ...containers.flatMap((c) => ((pathOf(c, 'env') as unknown[] | undefined) ?? []).map((e) => pathOf(e, 'valueFrom', 'secretKeyRef', 'name'))),
  ];
  return [...new Set(names.filter((n): n is string => typeof n === 'string'))];
};

const isWorkload = (child: KubeChild, name: string): boolean =>
  (child.kind === 'Deployment' || child.kind === 'DaemonSet') && child.metadata.name === ironicNames(name).workload;

/** The observed workload, unchanged: it must not move to the new version before the schema upgrade. */
const keptWorkload = (request: SyncRequest, parent: Parent): KubeChild[] => observedWorkloads(request, parent).map(keepObserved);

/**
 * The children and readiness of a sync: everything rendered when no upgrade is due; otherwise the steps
 * of the version transition, driven by the observed Jobs and workload.
 */
const planChildren = (request: SyncRequest, parent: Parent, input: IronicRenderInput, installed: string | undefined): { children: KubeChild[]; readiness: Readiness } => {
  const children = renderIronicChildren(input);
  // Switching between a Deployment and a DaemonSet: the old one goes first, so two Ironic architectures
  // never run side by side (the new one is created once the old one is no longer observed).
  const ha = input.spec.highAvailability === true;
  const previousKind = findObject(request.children, ha ? GROUP_KEYS.deployment : GROUP_KEYS.daemonSet, parent.namespace, ironicNames(parent.name).workload);
  if (previousKind !== undefined) {
    return {
      // Observed Jobs (a running schema upgrade) stay: a Job left out is deleted.
      children: [...children.filter((c) => !isWorkload(c, parent.name)), ...objectsOf(request.children, GROUP_KEYS.job).map(keepObserved)],
      readiness: progressing(`switching to ${ha ? 'high availability' : 'a single replica'}: waiting for the ${previousKind.kind} to be removed`),
    };
  }
  const workload = observedReadiness(request.children, parent, input.spec.version, ha, input.spec.networkingService?.enabled === true);
  if (input.references.database === undefined || installed === input.spec.version) return { children, readiness: workload };
  const from = transitionFrom(installed);
  const job = (phase: 'pre' | 'post'): KubeChild => renderUpgradeJob(input, phase, from) as KubeChild;
  const observedJob = (phase: 'pre' | 'post') =>
    findObject(request.children, GROUP_KEYS.job, parent.namespace, ironicNames(parent.name).upgradeJob(phase, from, input.spec.version));
  const pre = jobReadiness(observedJob('pre'), 'pre-upgrade');
  if (pre.state !== 'ready') {
    return { children: [...children.filter((c) => !isWorkload(c, parent.name)), ...keptWorkload(request, parent), job('pre')], readiness: pre };
  }
  // A Job once created stays in the response until the transition is over: one left out is deleted.
  if (workload.state !== 'ready') return { children: [...children, job('pre'), ...(observedJob('post') !== undefined ? [job('post')] : [])], readiness: workload };
  const post = jobReadiness(observedJob('post'), 'post-upgrade');
  return { children: [...children, job('pre'), job('post')], readiness: post.state === 'ready' ? workload : post };
};

/**
 * finalize: nothing outside the cluster to clean up. Children are deleted (an empty list) and the
 * finalizer is released once none is observed any more.
 */
export const finalizeIronic = (request: SyncRequest, ctx: HookContext): SyncResponse => {
  const parent = parentOf(request);
  const remaining = countChildren(request.children);
  const message = remaining === 0 ? 'Ironic has been removed' : `Ironic is being deleted: ${remaining} resources remain`;
  const previous = pathOf(parent.status, 'apiCredentialsName');
  return {
    status: computeIronicStatus({
      outcome: { kind: 'waiting', message },
      targetVersion: textOf(pathOf(parent.status, 'requestedVersion')),
      previousStatus: parent.status,
      generation: parent.generation,
      credentialsName: textOf(previous),
      now: ctx.now(),
    }),
    children: [],
    ...(remaining > 0 && { resyncAfterSeconds: 5 }),
    finalized: remaining === 0,
  };
};
