/**
 * The decisions of an Ironic sync, as pure functions of the observed objects and the model: which
 * children exist (upgrade Jobs, a switch between Deployment and DaemonSet, CA Secrets still in use), how
 * ready they are, and when a sync must keep everything as it is. The hook only adds what needs randomness
 * (credentials, a CA) between `prepareIronic` and `finishIronic`.
 */
import { GROUP_KEYS, type KubeObject } from '../../api/shared/hook.js';
import { MIN_SENSOR_INTERVAL } from '../../api/shared/constants.js';
import type { IronicModel } from '../../api/ironic/model.js';
import { parseIronic } from '../../api/ironic/parse.js';
import { keptIn } from '../../api/shared/memo.js';
import type { IronicStatus } from '../../api/ironic/schema.js';
import { keepObserved, keepObservedChildren, toChild, type KubeChild } from '../child.js';
import type { RenderConfig } from '../config.js';
import { ironicNames, RPC_CA_ANNOTATION, TLS_CA_ANNOTATION, type IronicNames } from '../names.js';
import { findObject, objectsOf, pathOf, sameSecretData, textOf } from '../observed.js';
import type { ParentView } from '../parent.js';
import type { ReferenceProblem } from '../references.js';
import {
  combineReadiness,
  daemonSetReadiness,
  deploymentReadiness,
  jobReadiness,
  readinessAfterApply,
  serviceReadiness,
  ready,
  type Readiness,
} from '../status.js';
import { describeProblems } from '../problems.js';
import { conflictMessage, objectsInTheWay, ownedBy } from '../ownership.js';
import { conductorBudgetHint, resolveDatabase, singlePodDatabaseHint } from './database.js';
import { resolveImageCache, workloadUsesImages, type ImageCacheResult } from './image-cache.js';
import { isOwnSecret, isTakenSecret, renderDecision, secretReads, wantedIronicChildren, type ChildrenDecision } from './children.js';
import { MAX_LISTED_IPV6_ADDRESSES, unlistedIPv6Ranges } from './common-env.js';
import { featuresOf, type IronicFeature } from './feature.js';
import { retireWorkload } from './retire.js';
import type { ApiCredentials, GeneratedTLS, IronicReferences, IronicRenderInput, RpcCAReference } from './input.js';
import { resolveIronicReferences, userCredentialsProblems } from './references.js';
import { computeIronicStatus, type IronicOutcome } from './status.js';
import { downgradeRefusal, transitionFrom, upgradeBackupGate, type Phase } from './upgrade.js';

/** A sync's answer before it is put on the wire. */
export type IronicSyncResult = { readonly status: IronicStatus; readonly children: KubeChild[]; readonly resyncAfterSeconds?: number };

/**
 * Where the API credentials come from: the user's Secret, or ours (generated once, then reused from the
 * observed child). `observed` is our Secret as last seen, if any.
 */
export type CredentialsPlan =
  { readonly kind: 'user'; readonly secretName: string } | { readonly kind: 'generated'; readonly secretName: string; readonly observed?: KubeObject };

/**
 * The credentials rule. Without spec.apiCredentialsName they are ours. With exactly `<name>-api-credentials`
 * (the name upstream writes into the spec, and the one baremetal-operator reads) they are ours while no
 * Secret of that name exists or while the one that exists is ours; a Secret of that name that we do not
 * own is the user's, used and never replaced.
 */
export const credentialsPlan = (view: ParentView, model: IronicModel, names: IronicNames): CredentialsPlan => {
  const own = names.apiCredentials;
  const given = model.apiCredentialsName;
  const observed = findObject(view.children, GROUP_KEYS.secret, view.namespace, own);
  const existing = findObject(view.related, GROUP_KEYS.secret, view.namespace, own);
  const ours = observed ?? (existing !== undefined && ownedBy(existing, view.uid) ? existing : undefined);
  if (given !== undefined && (given !== own || (existing !== undefined && ours === undefined))) return { kind: 'user', secretName: given };
  return { kind: 'generated', secretName: own, ...(ours && { observed: ours }) };
};

/** Where a sync stands before the impure step: keep everything (and why), or render with these inputs. */
export type Prepared =
  | { readonly kind: 'keep'; readonly result: IronicSyncResult }
  | {
      readonly kind: 'render';
      readonly model: IronicModel;
      readonly names: IronicNames;
      readonly references: IronicReferences;
      readonly credentials: CredentialsPlan;
      /** The features the sync renders with. */
      readonly features: readonly IronicFeature[];
      /** The htpasswd Secret the observed workload mounts, which is reused first when it still matches. */
      readonly htpasswdInUse?: string;
      /** The CA Secret the running replicas were started with (HA only), which the CA rotation waits for. */
      readonly rollout?: CARollout;
      /** The same for the CA of generated API certificates (tls.generateCertificate). */
      readonly tlsRollout?: CARollout;
    };

/** The CA Secret an observed DaemonSet was rolled out with (from its annotation), and whether it is ready. */
export type CARollout = { readonly secretName: string; readonly ready: boolean };

/** Why an Ironic with spec.tls.issuerRef cannot be rendered by this hook server, if it cannot. */
const CERT_MANAGER_MISSING =
  'spec.tls.issuerRef: this hook server does not render cert-manager Certificates: install it with deploy/components/cert-manager (which sets CERT_MANAGER=true and declares certificates.cert-manager.io in the CompositeController), or use tls.generateCertificate';

/** How long after the workload was created a missing Secret is taken as deleted rather than not yet seen. */
const CACHE_GRACE_SECONDS = 120;

/** How soon to look again while Metacontroller's Secret cache catches up. */
const CACHE_RESYNC_SECONDS = 5;

/** The outcome of unusable references: missing ones may appear later, invalid ones need a change. */
export const referenceOutcome = (problems: readonly ReferenceProblem[]): IronicOutcome => ({
  kind: problems.some((p) => p.kind === 'missing') ? 'missingReference' : 'invalidReference',
  message: problems.map((p) => p.message).join('; '),
});

/** Every observed child kept as it is, and the status says why. */
export const keepIronic = (view: ParentView, outcome: IronicOutcome, targetVersion?: string): IronicSyncResult => ({
  status: computeIronicStatus({ outcome, targetVersion, previousStatus: view.status, generation: view.generation, credentialsName: undefined, now: view.now }),
  children: keepObservedChildren(view.children),
});

/** The observed Deployment and/or DaemonSet `<name>-service`. */
const observedWorkloads = (view: ParentView, names: IronicNames): KubeObject[] =>
  [GROUP_KEYS.deployment, GROUP_KEYS.daemonSet].map((group) => findObject(view.children, group, view.namespace, names.workload)).filter((o) => o !== undefined);

/** The Secrets of each observed workload object, read once per object (a sync asks twice: to wait, and for the htpasswd in use). */
const secretsOfWorkload = new WeakMap<KubeObject, readonly string[]>();

/** Names of the Secrets a workload's pod template uses (volumes, projected sources, env). */
export const referencedSecrets = (workload: KubeObject): readonly string[] => keptIn(secretsOfWorkload, workload, () => Object.freeze(secretNamesOf(workload)));

const secretNamesOf = (workload: KubeObject): string[] => {
  const spec = pathOf(workload, 'spec', 'template', 'spec');
  const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
  const volumes = list(pathOf(spec, 'volumes'));
  // Each name once, where it first appears: volumes, then projected sources, then variables of the containers and init containers.
  const names = new Set<string>();
  const add = (name: unknown): void => {
    if (typeof name === 'string') names.add(name);
  };
  for (const v of volumes) add(pathOf(v, 'secret', 'secretName'));
  for (const v of volumes) for (const source of list(pathOf(v, 'projected', 'sources'))) add(pathOf(source, 'secret', 'name'));
  for (const field of ['containers', 'initContainers'])
    for (const c of list(pathOf(spec, field))) for (const e of list(pathOf(c, 'env'))) add(pathOf(e, 'valueFrom', 'secretKeyRef', 'name'));
  return [...names];
};

/**
 * True when the workload is observed but a Secret of ours that it uses is not: Metacontroller's Secret
 * cache is behind its workload cache. Generating credentials or a CA now would roll the pods to values
 * that the next sync reverts, so the sync waits instead (for a young workload only: after that, the Secret
 * was deleted).
 */
export const secretsNotObservedYet = (view: ParentView, names: IronicNames, features: readonly IronicFeature[]): boolean => {
  const [workload] = observedWorkloads(view, names);
  if (workload === undefined) return false;
  const observed = new Set(objectsOf(view.children, GROUP_KEYS.secret).map((s) => s.metadata.name));
  const missing = referencedSecrets(workload).filter((name) => isOwnSecret(names, name, features) && !observed.has(name));
  if (missing.length === 0) return false;
  const created = Date.parse(textOf(pathOf(workload, 'metadata', 'creationTimestamp')) ?? '');
  return !Number.isNaN(created) && Date.parse(view.now) - created < CACHE_GRACE_SECONDS * 1000;
};

/** The htpasswd Secret the observed workload (either kind) mounts, if any. */
export const htpasswdInUse = (view: ParentView, names: IronicNames): string | undefined =>
  observedWorkloads(view, names)
    .flatMap(referencedSecrets)
    .find((name) => name.startsWith(names.htpasswdPrefix));

/** Whether this Ironic or one of its observed children was created within the cache grace period. */
const youngParentOrChild = (view: ParentView): boolean => {
  const children = Object.values(view.children ?? {}).flatMap((group) => Object.values(group ?? {}));
  const times = [view.created, ...children.map((c) => textOf(pathOf(c, 'metadata', 'creationTimestamp')))].map((t) => Date.parse(t ?? ''));
  return times.some((created) => !Number.isNaN(created) && Date.parse(view.now) - created < CACHE_GRACE_SECONDS * 1000);
};

/**
 * True when our generated credentials Secret is seen neither as a child nor as a related object although an
 * earlier sync returned it (the status names it), while this Ironic or one of its observed children is young:
 * Metacontroller's Secret cache, which serves children and related objects alike, has not caught up with the
 * Secret's creation. Generating credentials now would hash an htpasswd for a password that the Secret does
 * not hold (its create is refused as AlreadyExists, and it is never updated) and roll the pods to it, so the
 * sync waits instead. Past the grace period the Secret was deleted, and new credentials are generated.
 */
export const credentialsNotObservedYet = (view: ParentView, names: IronicNames, plan: CredentialsPlan): boolean =>
  plan.kind === 'generated' &&
  plan.observed === undefined &&
  textOf(pathOf(view.status, 'apiCredentialsName')) === names.apiCredentials &&
  youngParentOrChild(view);

/** The CA Secret the observed DaemonSet was rolled out with, and whether that rollout is complete. */
export const caRollout = (view: ParentView, names: IronicNames, version: string): CARollout | undefined => {
  const daemonSet = findObject(view.children, GROUP_KEYS.daemonSet, view.namespace, names.workload);
  const annotation = pathOf(daemonSet, 'spec', 'template', 'metadata', 'annotations', RPC_CA_ANNOTATION);
  if (daemonSet === undefined || typeof annotation !== 'string') return undefined;
  return { secretName: names.rpcCA(annotation), ready: daemonSetReadiness(daemonSet, version).state === 'ready' };
};

/** The observed workload of the current kind (a DaemonSet with high availability, else a Deployment), and whether it has rolled out. */
const currentWorkload = (
  view: ParentView,
  names: IronicNames,
  model: IronicModel,
): { readonly workload: KubeObject; readonly rolledOut: boolean } | undefined => {
  const workload = findObject(view.children, model.highAvailability ? GROUP_KEYS.daemonSet : GROUP_KEYS.deployment, view.namespace, names.workload);
  if (workload === undefined) return undefined;
  const readiness = model.highAvailability ? daemonSetReadiness(workload, model.version) : deploymentReadiness(workload, model.version);
  return { workload, rolledOut: readiness.state === 'ready' };
};

/** The CA Secret of generated certificates the observed workload (of the current kind) was rolled out with. */
export const tlsCARollout = (view: ParentView, names: IronicNames, model: IronicModel): CARollout | undefined => {
  const current = currentWorkload(view, names, model);
  const annotation = pathOf(current?.workload, 'spec', 'template', 'metadata', 'annotations', TLS_CA_ANNOTATION);
  if (current === undefined || typeof annotation !== 'string') return undefined;
  return { secretName: names.tlsCA(annotation), ready: current.rolledOut };
};

/** Every observed Secret whose name starts with `prefix` besides `current`, kept as it is (a child left out is deleted). */
const otherSecrets = (view: ParentView, prefix: string, current: string): KubeChild[] =>
  objectsOf(view.children, GROUP_KEYS.secret)
    .filter((s) => s.metadata.name.startsWith(prefix) && s.metadata.name !== current && s.metadata.deletionTimestamp === undefined)
    .map(keepObserved);

/**
 * CA Secrets (of the kind whose names start with `prefix`) that running pods may still use: every observed
 * one besides the current, until the workload has rolled out completely with the current one (its template
 * alone says nothing about the pods). They stay in the response, since a child left out is deleted.
 */
export const retainedCASecrets = (view: ParentView, prefix: string, rollout: CARollout | undefined, current: string): KubeChild[] =>
  rollout !== undefined && rollout.ready && rollout.secretName === current ? [] : otherSecrets(view, prefix, current);

/**
 * htpasswd Secrets that running pods may still use after the credentials changed: every observed one besides the
 * current, until the workload (of the current kind) runs the current one and has rolled out completely. A pod of
 * the old template that restarts meanwhile still finds its Secret (its environment names it).
 */
export const retainedHtpasswd = (view: ParentView, names: IronicNames, model: IronicModel, current: string): KubeChild[] => {
  const workload = currentWorkload(view, names, model);
  if (workload === undefined) return [];
  const inUse = referencedSecrets(workload.workload).filter((n) => n.startsWith(names.htpasswdPrefix));
  return workload.rolledOut && inUse.every((n) => n === current) ? [] : otherSecrets(view, names.htpasswdPrefix, current);
};

/**
 * A cache that refreshes (a new download after a spec change or a certificate renewal) holds back only the
 * Ironics that would get new URLs from it: one whose workload already runs with the URLs the cache lists
 * keeps rendering, so its own changes are not frozen by the cache's.
 */
const keptCacheImages = (result: ImageCacheResult, view: ParentView, names: IronicNames): ImageCacheResult => {
  if (result.ok || result.published === undefined) return result;
  const { published } = result;
  return observedWorkloads(view, names).some((w) => workloadUsesImages(w, published)) ? { ok: true, images: published } : result;
};

/**
 * Everything a sync can decide before credentials and a CA are materialized: the spec parses, its
 * references and database resolve, and Metacontroller's Secret cache has caught up. Otherwise the result
 * keeps every observed child.
 */
export const prepareIronic = (view: ParentView, config: Pick<RenderConfig, 'certManager'>, features: readonly IronicFeature[]): Prepared => {
  const parsed = parseIronic(view.spec);
  if (!parsed.ok) return { kind: 'keep', result: keepIronic(view, { kind: 'invalidSpec', message: describeProblems(parsed.problems) }) };
  const { model } = parsed;
  if (model.tls.issuerRef !== undefined && config.certManager !== true)
    return { kind: 'keep', result: keepIronic(view, { kind: 'invalidSpec', message: CERT_MANAGER_MISSING }, model.version) };
  const names = ironicNames(view.name);
  const inTheWay = objectsInTheWay(view, wantedIronicChildren(model, names, features));
  if (inTheWay.length > 0)
    return {
      kind: 'keep',
      result: keepIronic(
        view,
        {
          kind: 'conflict',
          message: conflictMessage(inTheWay, view.namespace, 'Ironic', {
            secretName: names.apiCredentials,
            field: 'spec.apiCredentialsName',
            what: 'API credentials',
          }),
        },
        model.version,
      ),
    };
  const lookup = { related: view.related, namespace: view.namespace };
  const references = resolveIronicReferences({
    model,
    names,
    lookup,
    children: view.children,
    now: view.now,
    reads: secretReads(model, features),
    taken: (secret) => isTakenSecret(names, secret, features),
  });
  const database = resolveDatabase(model.database, view.related, view.namespace);
  const imageCache = keptCacheImages(resolveImageCache(model.ramdisk.imageCacheName, view.related, view.namespace), view, names);
  const credentials = credentialsPlan(view, model, names);
  // Every missing or broken reference at once, so that one sync says all there is to fix.
  const broken: ReferenceProblem[] = [
    ...(references.ok ? [] : references.problems),
    ...(!database.ok && database.kind === 'missing' ? [{ kind: 'missing' as const, path: 'spec.databaseName', message: database.message }] : []),
    ...(!imageCache.ok && imageCache.kind === 'missing' ? [{ kind: 'missing' as const, path: 'spec.imageCacheName', message: imageCache.message }] : []),
    ...userCredentialsProblems(lookup, credentials.kind === 'user' ? credentials.secretName : undefined),
  ];
  if (!references.ok || broken.length > 0) return { kind: 'keep', result: keepIronic(view, referenceOutcome(broken), model.version) };
  if (!database.ok)
    return {
      kind: 'keep',
      result: keepIronic(view, { kind: database.kind === 'missing' ? 'missingReference' : 'waiting', message: database.message }, model.version),
    };
  if (!imageCache.ok)
    return {
      kind: 'keep',
      result: keepIronic(view, { kind: imageCache.kind === 'missing' ? 'missingReference' : 'waiting', message: imageCache.message }, model.version),
    };
  if (secretsNotObservedYet(view, names, features) || credentialsNotObservedYet(view, names, credentials)) {
    const waiting = keepIronic(view, { kind: 'waiting', message: 'waiting for the Secrets of this Ironic to be observed before reusing them' }, model.version);
    return { kind: 'keep', result: { ...waiting, resyncAfterSeconds: CACHE_RESYNC_SECONDS } };
  }
  const rollout = model.highAvailability ? caRollout(view, names, model.version) : undefined;
  const tlsRollout = model.tls.generate ? tlsCARollout(view, names, model) : undefined;
  const inUse = htpasswdInUse(view, names);
  return {
    kind: 'render',
    model,
    names,
    references: {
      ...references.references,
      ...(database.database && { database: database.database }),
      ...(imageCache.images && { imageCache: imageCache.images }),
    },
    credentials,
    features,
    ...(inUse !== undefined && { htpasswdInUse: inUse }),
    ...(rollout && { rollout }),
    ...(tlsRollout && { tlsRollout }),
  };
};

/** Readiness of the observed workload, its Service and the networking Deployment. */
const observedReadiness = (view: ParentView, input: IronicRenderInput): Readiness => {
  const { names, model } = input;
  const find = (group: string, name: string): KubeObject | undefined => findObject(view.children, group, view.namespace, name);
  return combineReadiness(
    [
      ...(model.networkingService !== undefined
        ? [deploymentReadiness(find(GROUP_KEYS.deployment, names.networking), model.version, 'the ironic-networking deployment')]
        : []),
      model.highAvailability
        ? daemonSetReadiness(find(GROUP_KEYS.daemonSet, names.workload), model.version)
        : deploymentReadiness(find(GROUP_KEYS.deployment, names.workload), model.version),
      serviceReadiness(find(GROUP_KEYS.service, names.service)),
    ],
    'all resources are available',
  );
};

/** The plan with the hints appended to a Ready message (the status stays Ready=True). */
const withHints = <P extends { readonly readiness: Readiness }>(planned: P, hints: readonly (string | undefined)[]): P => {
  const notes = hints.filter((h) => h !== undefined);
  return notes.length > 0 && planned.readiness.state === 'ready' ? { ...planned, readiness: ready([planned.readiness.message, ...notes].join('; ')) } : planned;
};

/** A note for the Ready message when IPv6 DHCP ranges are too large to list in NO_PROXY (see common-env.ts). */
export const ipv6NoProxyHint = (model: IronicModel): string | undefined => {
  const ranges = unlistedIPv6Ranges(model);
  return ranges.length === 0
    ? undefined
    : `note: spec.proxy: Ironic calls the agents with Python requests, which ignores IPv6 networks in NO_PROXY, and the IPv6 DHCP range ${ranges.join(', ')} has more than ${MAX_LISTED_IPV6_ADDRESSES} addresses to list one by one, so calls to agents there go through the proxy: narrow the range, or let the proxy reach the provisioning network`;
};

/** The conductors this Ironic runs: one, or with high availability the pods its observed DaemonSet schedules. */
const conductorCount = (view: ParentView, input: IronicRenderInput): number => {
  if (!input.model.highAvailability) return 1;
  const scheduled = pathOf(findObject(view.children, GROUP_KEYS.daemonSet, view.namespace, input.names.workload), 'status', 'desiredNumberScheduled');
  return typeof scheduled === 'number' ? scheduled : 0;
};

/** A short note for the Ready message when the spec's sensor interval was raised to the minimum. */
export const sensorIntervalHint = (model: IronicModel): string | undefined => {
  const from = model.exporter?.sensorCollectionIntervalRaisedFrom;
  return from === undefined
    ? undefined
    : `note: prometheusExporter.sensorCollectionInterval ${from} is below the minimum, ${MIN_SENSOR_INTERVAL} s is used; set it to ${MIN_SENSOR_INTERVAL} or more, or remove it`;
};

/**
 * Which children a sync returns, decided from the observed objects: everything rendered when no upgrade is
 * due; otherwise the steps of the version transition, driven by the observed Jobs and workload.
 */
export const decideIronicChildren = (view: ParentView, input: IronicRenderInput, installed: string | undefined): ChildrenDecision => {
  const { names, model } = input;
  // Switching between a Deployment and a DaemonSet: the old one goes first, so two Ironic architectures
  // never run side by side (the new one is created once the old one is no longer observed).
  const previousKind = findObject(view.children, model.highAvailability ? GROUP_KEYS.deployment : GROUP_KEYS.daemonSet, view.namespace, names.workload);
  if (previousKind !== undefined) {
    const retirement = retireWorkload(previousKind, view.now, `switching to ${model.highAvailability ? 'high availability' : 'a single replica'}`);
    return {
      workload: 'omit',
      jobs: [],
      // Observed Jobs (a running schema upgrade) stay: a Job left out is deleted.
      kept: [...(retirement.child ? [retirement.child] : []), ...objectsOf(view.children, GROUP_KEYS.job).map(keepObserved)],
      readiness: retirement.readiness,
      ...(retirement.resyncAfterSeconds !== undefined && { resyncAfterSeconds: retirement.resyncAfterSeconds }),
    };
  }
  const workload = observedReadiness(view, input);
  if (input.references.database === undefined || installed === model.version) return { workload: 'render', jobs: [], kept: [], readiness: workload };
  const from = transitionFrom(installed);
  const observedJob = (phase: Phase): KubeObject | undefined =>
    findObject(view.children, GROUP_KEYS.job, view.namespace, names.upgradeJob(phase, from, model.version));
  const gate = upgradeBackupGate({
    input,
    installed,
    observed: (group, name) => findObject(view.children, group, view.namespace, name),
    previousStatus: view.status,
  });
  // The backup stays in the response until the transition is over, like the upgrade Jobs.
  const backup = gate.kind === 'none' ? {} : { ...(gate.child !== undefined && { backup: gate.child }), upgradeBackup: gate.status };
  const running = observedWorkloads(view, names).map(keepObserved);
  if (gate.kind === 'wait') return { workload: 'keep', jobs: [], kept: running, readiness: gate.readiness, ...backup };
  const pre = jobReadiness(observedJob('pre'), 'pre-upgrade');
  if (pre.state !== 'ready') return { workload: 'keep', jobs: ['pre'], kept: running, readiness: pre, ...backup };
  // A Job once created stays in the response until the transition is over: one left out is deleted.
  if (workload.state !== 'ready')
    return { workload: 'render', jobs: ['pre', ...(observedJob('post') !== undefined ? ['post' as const] : [])], kept: [], readiness: workload, ...backup };
  const post = jobReadiness(observedJob('post'), 'post-upgrade');
  return { workload: 'render', jobs: ['pre', 'post'], kept: [], readiness: post.state === 'ready' ? workload : post, ...backup };
};

/**
 * Secrets are applied with the OnDelete strategy (a sync that missed the live object must never overwrite
 * a password in use), so one whose content must change is left out for one sync (and so deleted), then
 * created anew. Only for Secrets that nothing mounts for good: the clouds hand-off and the published CA.
 * Content is compared as the API server holds it (sameSecretData): the observed Secret comes with Go's key
 * order, never the renderer's, and a text comparison would replace it on every sync.
 */
const replacingChanged = (view: ParentView, children: KubeChild[], name: string): KubeChild[] => {
  const observed = findObject(view.children, GROUP_KEYS.secret, view.namespace, name);
  if (observed === undefined) return children;
  return children.filter((c) => !(c.kind === 'Secret' && c.metadata.name === name && !sameSecretData(c, observed)));
};

/**
 * What the impure step materialized: the API credentials, in HA the JSON-RPC CA, and with generated
 * certificates their CA and renewal period (and when the next renewal step is due).
 */
export type Materials = {
  readonly credentials: ApiCredentials;
  readonly rpcCA?: RpcCAReference;
  readonly generatedTLS?: GeneratedTLS;
  readonly tlsResyncAfterSeconds?: number;
};

/** The sooner of two optional resync delays. */
const sooner = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/**
 * A feature waiting for something outside the hooks (cert-manager issuing a certificate): the observed children
 * stay as they are (a workload keeps its current certificate), and the feature's own children are rendered.
 */
const waitingFeature = (view: ParentView, input: IronicRenderInput, features: readonly IronicFeature[]): IronicSyncResult | undefined => {
  const observed = (group: string, name: string): KubeObject | undefined => findObject(view.children, group, view.namespace, name);
  const wait = featuresOf(features, input.model)
    .map((f) => f.waitFor?.(input, observed))
    .find((w) => w !== undefined);
  if (wait === undefined) return undefined;
  const kept = keepIronic(view, { kind: 'waiting', message: wait.message }, input.model.version);
  return {
    ...kept,
    children: [...kept.children.filter((c) => !wait.kinds.includes(c.kind)), ...wait.children.map(toChild)],
    resyncAfterSeconds: wait.resyncAfterSeconds,
  };
};

/** status.access, from the first feature that tells it. */
const accessOf = (features: readonly IronicFeature[], input: IronicRenderInput): { access?: ReturnType<NonNullable<IronicFeature['access']>> } => {
  const access = features.map((f) => f.access?.(input)).find((a) => a !== undefined);
  return access !== undefined ? { access } : {};
};

/** The rest of a sync once credentials (and a CA) exist: a refused downgrade, or the children and status. */
export const finishIronic = (
  view: ParentView,
  prepared: Extract<Prepared, { kind: 'render' }>,
  materials: Materials,
  config: RenderConfig,
): IronicSyncResult => {
  const { model, names, references } = prepared;
  const installed = textOf(pathOf(view.status, 'installedVersion'));
  const refusal = references.database !== undefined ? downgradeRefusal(installed, model.version) : undefined;
  if (refusal !== undefined) return keepIronic(view, { kind: 'refused', message: refusal });
  const input: IronicRenderInput = {
    name: view.name,
    namespace: view.namespace,
    names,
    model,
    references,
    credentials: materials.credentials,
    ...(materials.rpcCA && { rpcCA: materials.rpcCA }),
    ...(materials.generatedTLS && { generatedTLS: materials.generatedTLS }),
    config,
  };
  const waiting = waitingFeature(view, input, prepared.features);
  if (waiting !== undefined) return waiting;
  const planned = withHints(decideIronicChildren(view, input, installed), [
    singlePodDatabaseHint(model.highAvailability, input.references.database),
    conductorBudgetHint(conductorCount(view, input), model.database.kind === 'managed' ? model.database.name : undefined, input.references.database),
    sensorIntervalHint(model),
    ipv6NoProxyHint(model),
  ]);
  const rendered = renderDecision(input, planned, transitionFrom(installed), prepared.features);
  const applying = featuresOf(prepared.features, model);
  const children = applying.flatMap((f) => f.replacedOnChange?.(model, names) ?? []).reduce((kept, name) => replacingChanged(view, kept, name), rendered);
  const retained = [
    ...(materials.rpcCA !== undefined ? retainedCASecrets(view, names.rpcCAPrefix, prepared.rollout, materials.rpcCA.secretName) : []),
    ...(materials.generatedTLS !== undefined ? retainedCASecrets(view, names.tlsCAPrefix, prepared.tlsRollout, materials.generatedTLS.ca.secretName) : []),
    ...retainedHtpasswd(view, names, model, input.credentials.htpasswdSecretName),
  ];
  const resyncAfterSeconds = sooner(planned.resyncAfterSeconds, materials.tlsResyncAfterSeconds);
  return {
    status: computeIronicStatus({
      outcome: { kind: 'rendered', readiness: readinessAfterApply(planned.readiness, children, view.children) },
      targetVersion: model.version,
      previousStatus: view.status,
      generation: view.generation,
      credentialsName: materials.credentials.secretName,
      ...accessOf(applying, input),
      ...(planned.upgradeBackup !== undefined && { upgradeBackup: planned.upgradeBackup }),
      now: view.now,
    }),
    children: [...children, ...retained],
    ...(resyncAfterSeconds !== undefined && { resyncAfterSeconds }),
  };
};
