/**
 * The Ironic hooks: adapters from the Metacontroller wire format to the pure plan (src/render/ironic/plan.ts),
 * plus the one impure step, materializing credentials and the JSON-RPC CA.
 */
import type { CustomizeRequest, CustomizeResponse, SyncRequest, SyncResponse } from '../api/shared/hook.js';
import { ironicSpecReferences } from '../api/ironic/references.js';
import { pathOf, textOf } from '../render/observed.js';
import { countChildren } from '../render/parent.js';
import { computeIronicStatus } from '../render/ironic/status.js';
import { finishIronic, keepIronic, prepareIronic, referenceOutcome } from '../render/ironic/plan.js';
import { ironicReferences, wantedIronicChildren } from '../render/ironic/children.js';
import type { IronicFeature } from '../render/ironic/feature.js';
import { IRONIC_FEATURES } from './ironic-features.js';
import { parseIronic } from '../api/ironic/parse.js';
import { ironicNames } from '../render/names.js';
import { materializeCredentials, materializeGeneratedTLS, materializeRpcCA } from './materialize.js';
import { viewOf } from './parent.js';
import { wire } from './wire.js';
import { referenceRules, withWanted } from './related.js';
import type { HookContext } from './context.js';

export type { HookContext } from './context.js';

/**
 * customize: the objects the spec names (as the parser records them) and those the features derive from
 * the parent's name, asked for by name only, plus the names of the children we would create, to see
 * whether another object already holds one. Depends on the parent's spec (and namespace) only, as
 * Metacontroller caches the answer per generation. An invalid spec still gets the references it names, so
 * the status can say what else is wrong.
 */
export const customizeIronic = (request: CustomizeRequest, features: readonly IronicFeature[] = IRONIC_FEATURES): CustomizeResponse => {
  const namespace = request.parent.metadata.namespace ?? '';
  const spec = request.parent['spec'];
  const names = ironicNames(request.parent.metadata.name);
  const parsed = parseIronic(spec);
  const references = parsed.ok ? ironicReferences(parsed.model, names, features) : ironicSpecReferences(spec);
  const wanted = parsed.ok ? wantedIronicChildren(parsed.model, names, features) : [];
  return { relatedResources: withWanted(referenceRules(references, namespace), wanted, namespace) };
};

/** sync: the plan, with credentials (and in HA the CA) materialized in between. */
export const syncIronic = async (request: SyncRequest, ctx: HookContext, features: readonly IronicFeature[] = IRONIC_FEATURES): Promise<SyncResponse> => {
  const view = viewOf(request, ctx.now());
  const prepared = prepareIronic(view, ctx.config, features);
  if (prepared.kind === 'keep') return wire(prepared.result);
  const { model, names } = prepared;
  const lookup = { related: view.related, namespace: view.namespace };
  const credentials = await materializeCredentials({
    name: view.name,
    names,
    lookup,
    plan: prepared.credentials,
    children: view.children,
    inUse: prepared.htpasswdInUse,
    secrets: ctx.secrets,
  });
  if (!credentials.ok) return wire(keepIronic(view, referenceOutcome([credentials.problem]), model.version));
  // What both certificate authorities are made from: the parent, what it has, the time and the key generator.
  const authority = { name: view.name, names, namespace: view.namespace, children: view.children, now: new Date(view.now), secrets: ctx.secrets };
  const rpcCA = model.highAvailability ? await materializeRpcCA({ ...authority, rollout: prepared.rollout }) : undefined;
  const generated = model.tls.generate ? await materializeGeneratedTLS({ ...authority, rollout: prepared.tlsRollout }) : undefined;
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
      outcome: { kind: 'deleting', message },
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
