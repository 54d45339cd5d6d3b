/**
 * The Ironic hooks: adapters from the Metacontroller wire format to the pure plan (src/render/ironic/plan.ts),
 * plus the one impure step, materializing credentials and the JSON-RPC CA.
 */
import type { CustomizeRequest, CustomizeResponse, SyncRequest, SyncResponse } from '../api/hook.js';
import { GROUP_VERSION } from '../api/common.js';
import { CA_FIELDS } from '../api/constants.js';
import { isRecord, pathOf, textOf } from '../render/observed.js';
import { countChildren } from '../render/parent.js';
import { computeIronicStatus } from '../render/ironic/status.js';
import { finishIronic, keepIronic, prepareIronic, referenceOutcome, wantedIronicChildren } from '../render/ironic/plan.js';
import { parseIronic } from '../api/parse-ironic.js';
import { ironicNames } from '../render/names.js';
import { materializeCredentials, materializeGeneratedTLS, materializeRpcCA } from './materialize.js';
import { viewOf } from './parent.js';
import { wire } from './wire.js';
import { namesRule, withWanted } from './related.js';
import type { HookContext } from './context.js';

export type { HookContext } from './context.js';

/** A CA reference by kind: `{name, kind}` objects, or the deprecated name fields with their fixed kinds. */
const caNames = (tls: Record<string, unknown>, kind: 'Secret' | 'ConfigMap'): (string | undefined)[] =>
  CA_FIELDS.map(({ ref, legacy, legacyKind }) => {
    const object = tls[ref];
    if (isRecord(object)) return object['kind'] === kind ? textOf(object['name']) : undefined;
    return legacyKind === kind ? textOf(tls[legacy]) : undefined;
  });

/** The switch Secrets named by an enabled networking service (the default ones are our children). */
const switchNames = (spec: Record<string, unknown>): (string | undefined)[] => {
  const service = isRecord(spec['networkingService']) ? spec['networkingService'] : {};
  return service['enabled'] === true ? [textOf(service['switchConfigSecretName']), textOf(service['switchCredentialsSecretName'])] : [];
};

/** The VRRP password Secret of an enabled keepalived. */
const keepalivedPasswordName = (spec: Record<string, unknown>): string | undefined => {
  const networking = isRecord(spec['networking']) ? spec['networking'] : {};
  const keepalived = isRecord(networking['keepalived']) ? networking['keepalived'] : {};
  const ref = isRecord(keepalived['passwordRef']) ? keepalived['passwordRef'] : {};
  return keepalived['enabled'] === true ? textOf(ref['name']) : undefined;
};

/**
 * customize: the objects the spec names, asked for by name only. Depends on the parent's spec (and
 * namespace) only, as Metacontroller caches the answer per generation. It reads the raw spec: an invalid
 * spec still gets its references, so the status can say what else is wrong.
 */
export const customizeIronic = (request: CustomizeRequest): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const spec = isRecord(request.parent['spec']) ? request.parent['spec'] : {};
  const tls = isRecord(spec['tls']) ? spec['tls'] : {};
  // The Secret cert-manager fills for spec.tls.issuerRef: not our child, read like a user's Secret.
  const issued = isRecord(tls['issuerRef']) ? ironicNames(request.parent.metadata.name).certificateSecret : undefined;
  const referenced = [
    ...namesRule('v1', 'secrets', namespace, [textOf(spec['apiCredentialsName']), textOf(tls['certificateName']), issued, ...caNames(tls, 'Secret'), ...switchNames(spec), keepalivedPasswordName(spec)]),
    ...namesRule('v1', 'configmaps', namespace, caNames(tls, 'ConfigMap')),
    ...namesRule(GROUP_VERSION, 'ironicdatabases', namespace, [textOf(spec['databaseName'])]),
    ...namesRule(GROUP_VERSION, 'ironicimagecaches', namespace, [textOf(spec['imageCacheName'])]),
  ];
  // The names of the children we would create, to see whether another object already holds one.
  const parsed = parseIronic(spec);
  const wanted = parsed.ok ? wantedIronicChildren(parsed.model, ironicNames(request.parent.metadata.name)) : [];
  return { relatedResources: withWanted(referenced, wanted, namespace) };
};


/** sync: the plan, with credentials (and in HA the CA) materialized in between. */
export const syncIronic = async (request: SyncRequest, ctx: HookContext): Promise<SyncResponse> => {
  const view = viewOf(request, ctx.now());
  const prepared = prepareIronic(view, ctx.config);
  if (prepared.kind === 'keep') return wire(prepared.result);
  const { model, names } = prepared;
  const lookup = { related: view.related, namespace: view.namespace };
  const credentials = await materializeCredentials({ name: view.name, names, lookup, plan: prepared.credentials, children: view.children, secrets: ctx.secrets });
  if (!credentials.ok) return wire(keepIronic(view, referenceOutcome([credentials.problem]), model.version));
  const rpcCA = model.highAvailability
    ? await materializeRpcCA({ name: view.name, names, namespace: view.namespace, children: view.children, now: new Date(view.now), secrets: ctx.secrets, rollout: prepared.rollout })
    : undefined;
  const generated = model.tls.generate
    ? await materializeGeneratedTLS({ name: view.name, names, namespace: view.namespace, children: view.children, now: new Date(view.now), secrets: ctx.secrets, rollout: prepared.tlsRollout })
    : undefined;
  const materials = {
    credentials: credentials.credentials,
    ...(rpcCA && { rpcCA }),
    ...(generated && { generatedTLS: generated.tls, tlsResyncAfterSeconds: generated.resyncAfterSeconds }),
  };
  return wire(finishIronic(view, prepared, materials, ctx.config));
};

/**
 * finalize: nothing outside the cluster to clean up. Children are deleted (an empty list) and the
 * finalizer is released once none is observed any more.
 */
export const finalizeIronic = (request: SyncRequest, ctx: HookContext): SyncResponse => {
  const view = viewOf(request, ctx.now());
  const remaining = countChildren(view.children);
  const message = remaining === 0 ? 'Ironic has been removed' : `Ironic is being deleted: ${remaining} resources remain`;
  return {
    status: computeIronicStatus({
      outcome: { kind: 'waiting', message },
      targetVersion: textOf(pathOf(view.status, 'requestedVersion')),
      previousStatus: view.status,
      generation: view.generation,
      credentialsName: textOf(pathOf(view.status, 'apiCredentialsName')),
      now: view.now,
    }),
    children: [],
    ...(remaining > 0 && { resyncAfterSeconds: 5 }),
    finalized: remaining === 0,
  };
};
