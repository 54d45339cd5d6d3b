/**
 * Migration from ironic-standalone-operator: its `Ironic` and `IronicDatabase` objects (any release, and
 * the design proposal's earliest API under `metal3.io/v1alpha1`), as `kubectl get -o yaml` prints them,
 * become objects of this API with the same meaning. Renamed fields are mapped, the Secret names kept, server
 * fields dropped; a field with no equivalent is refused with its path, never dropped silently. Pure.
 */
import { GROUP_VERSION } from '../api/shared/common.js';
import { MIN_SENSOR_INTERVAL, SENSOR_INTERVAL_REASON } from '../api/shared/constants.js';
import { IronicSpec } from '../api/ironic/schema.js';
import { IronicDatabaseSpec } from '../api/ironic-database/schema.js';
import { unknownFields } from './emulation/strict.js';
import { validateIronic } from '../api/ironic/validate.js';
import { validateIronicDatabase } from '../api/ironic-database/validate.js';
import { isRecord } from '../api/shared/problems.js';
import { SERVER_METADATA } from './objects.js';

type Json = Record<string, unknown>;

/**
 * The objects to apply (the migrated ones and the others passed through, in the order given), how many were
 * migrated, or why one cannot be migrated.
 */
export type Migrated = {
  readonly objects: readonly Json[];
  readonly migrated: number;
  readonly problems: readonly string[];
  readonly notes: readonly string[];
};

/** The API version of the design proposal's objects, which only ironic-standalone-operator knows. */
export const PROPOSAL_API_VERSION = 'metal3.io/v1alpha1';

/** The API versions of upstream's objects: its CRD's, and the design proposal's. */
const SOURCE_VERSIONS = new Set([GROUP_VERSION, PROPOSAL_API_VERSION]);

const isObject: (value: unknown) => value is Json = isRecord;

/** Metadata the user wrote; what the API server or a controller wrote goes (uid, finalizers, owners, ...). */
const KEPT_METADATA = ['name', 'namespace', 'labels', 'annotations'] as const;
const DROPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

const cleanMetadata = (metadata: Json): Json => {
  const kept: Json = {};
  for (const key of KEPT_METADATA) {
    const value = metadata[key];
    if (key !== 'annotations') {
      if (value !== undefined) kept[key] = value;
      continue;
    }
    const annotations = isObject(value) ? Object.entries(value).filter(([k]) => !DROPPED_ANNOTATIONS.has(k)) : [];
    if (annotations.length > 0) kept[key] = Object.fromEntries(annotations);
  }
  return kept;
};

/** A name from a LocalObjectReference (`{name}`), or a problem. */
const referenceName = (value: unknown, path: string, problems: string[]): string | undefined => {
  if (isObject(value) && typeof value['name'] === 'string' && value['name'] !== '') return value['name'];
  problems.push(`${path} must be a reference with a name ({name: ...})`);
  return undefined;
};

type Rename = {
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly read: (value: unknown, path: string, problems: string[]) => unknown;
};

const asIs = (value: unknown): unknown => value;

/** Fields of earlier upstream APIs (back to the design proposal's) and where they live now. */
const IRONIC_RENAMES: readonly Rename[] = [
  { from: ['credentialsRef'], to: ['apiCredentialsName'], read: referenceName },
  { from: ['tlsRef'], to: ['tls', 'certificateName'], read: referenceName },
  { from: ['databaseRef'], to: ['databaseName'], read: referenceName },
  { from: ['disableVirtualMediaTLS'], to: ['tls', 'disableVirtualMediaTLS'], read: asIs },
  { from: ['ramdiskSSHKey'], to: ['deployRamdisk', 'sshKey'], read: asIs },
  { from: ['ramdiskExtraKernelParams'], to: ['deployRamdisk', 'extraKernelParams'], read: asIs },
  { from: ['distributed'], to: ['highAvailability'], read: asIs },
  { from: ['images', 'agentBranch'], to: ['images', 'deployRamdiskBranch'], read: asIs },
  { from: ['images', 'ramdiskDownloader'], to: ['images', 'deployRamdiskDownloader'], read: asIs },
];

const DATABASE_RENAMES: readonly Rename[] = [
  { from: ['credentialsRef'], to: ['credentialsName'], read: referenceName },
  { from: ['tlsRef'], to: ['tlsCertificateName'], read: referenceName },
];

/** Fields upstream removed whose meaning cannot be carried over as such. */
const IRONIC_REMOVED: readonly { readonly path: readonly string[]; readonly why: string }[] = [
  { path: ['disableRPCHostValidation'], why: 'it was removed upstream; set tls.insecureRPC to true to stop verifying JSON-RPC certificates between replicas' },
  {
    path: ['images', 'agentDownloadURL'],
    why: 'the IPA download location is a setting of the hook server here (IPA_BASEURI of its downloader settings), or use overrides.agentImages',
  },
];

const setAt = (target: Json, path: readonly string[], value: unknown, where: string, problems: string[]): void => {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === undefined) node[key] = {};
    const child = node[key];
    if (!isObject(child)) {
      problems.push(`${where}: spec.${path.join('.')} cannot be set because spec.${key} is not an object`);
      return;
    }
    node = child;
  }
  const last = path[path.length - 1] ?? '';
  const existing = node[last];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(value)) {
    problems.push(`${where}: spec.${path.join('.')} is set twice with different values (once through an older field): keep one`);
    return;
  }
  node[last] = value;
};

/** The value at a path, and a function that removes it (and an emptied parent object). */
const take = (root: Json, path: readonly string[]): { found: boolean; value: unknown; remove: () => void } => {
  const parents: Json[] = [root];
  for (const key of path.slice(0, -1)) {
    const next = parents[parents.length - 1]?.[key];
    if (!isObject(next)) return { found: false, value: undefined, remove: () => undefined };
    parents.push(next);
  }
  const parent = parents[parents.length - 1] ?? {};
  const last = path[path.length - 1] ?? '';
  return {
    found: last in parent,
    value: parent[last],
    remove: () => {
      Reflect.deleteProperty(parent, last);
      for (let i = parents.length - 1; i > 0; i -= 1) {
        const key = path[i - 1] ?? '';
        const node = parents[i];
        const above = parents[i - 1];
        if (node !== undefined && above !== undefined && Object.keys(node).length === 0) Reflect.deleteProperty(above, key);
      }
    },
  };
};

const renamed =
  (renames: readonly Rename[], removed: typeof IRONIC_REMOVED) =>
  (spec: Json, where: string, problems: string[]): Json => {
    const out: Json = structuredClone(spec);
    for (const field of removed) {
      if (take(out, field.path).found) problems.push(`${where}: spec.${field.path.join('.')} has no equivalent: ${field.why}`);
    }
    for (const rename of renames) {
      const old = take(out, rename.from);
      if (!old.found) continue;
      old.remove();
      const value = rename.read(old.value, `${where}: spec.${rename.from.join('.')}`, problems);
      if (value !== undefined) setAt(out, rename.to, value, where, problems);
    }
    for (const field of removed) take(out, field.path).remove();
    return out;
  };

/**
 * Upstream allows sensor collection every 60 s; this API follows ironic-image's minimum (constants.ts). A
 * lower interval is raised to the minimum with a note rather than refused: the only change is fewer BMC calls.
 */
const raiseSensorInterval = (spec: Json, where: string, notes: string[]): Json => {
  const exporter = spec['prometheusExporter'];
  if (!isObject(exporter)) return spec;
  const interval = exporter['sensorCollectionInterval'];
  if (typeof interval !== 'number' || interval >= MIN_SENSOR_INTERVAL) return spec;
  notes.push(`${where}: spec.prometheusExporter.sensorCollectionInterval raised from ${interval} to ${MIN_SENSOR_INTERVAL} s: ${SENSOR_INTERVAL_REASON}`);
  return { ...spec, prometheusExporter: { ...exporter, sensorCollectionInterval: MIN_SENSOR_INTERVAL } };
};

/** A Secret reference of upstream (`{name, kind: Secret}`) as this API's `{name}`, or a problem. */
const secretReference = (value: unknown, path: string, problems: string[]): Json | undefined => {
  if (isObject(value) && value['kind'] !== undefined && value['kind'] !== 'Secret') {
    problems.push(`${path} must name a Secret (kind Secret), not a ${JSON.stringify(value['kind'])}`);
    return undefined;
  }
  const name = referenceName(value, path, problems);
  return name !== undefined ? { name } : undefined;
};

/**
 * The VRRP settings under the names upstream's pull request 686 proposes (networking.keepalivedVRID and
 * keepalivedPasswordRef) move to keepalived.vrid and passwordRef when there is a keepalived object. With the
 * deprecated ipAddressManager there is none (and making one would change how the VIP is configured), so they
 * stay under upstream's names, which this API also accepts.
 */
const UPSTREAM_VRRP = [
  { from: 'keepalivedVRID', to: 'vrid', read: asIs },
  { from: 'keepalivedPasswordRef', to: 'passwordRef', read: secretReference },
] as const;

const moveUpstreamVRRP = (spec: Json, where: string, problems: string[], notes: string[]): Json => {
  const networking = spec['networking'];
  if (!isObject(networking) || !UPSTREAM_VRRP.some((f) => f.from in networking)) return spec;
  if (!isObject(networking['keepalived'])) {
    notes.push(
      `${where}: spec.networking.${UPSTREAM_VRRP.filter((f) => f.from in networking)
        .map((f) => f.from)
        .join(' and ')} kept under upstream's names: without a keepalived object (ipAddressManager) they have no other place`,
    );
    return spec;
  }
  const out: Json = structuredClone(spec);
  for (const field of UPSTREAM_VRRP) {
    const old = take(out, ['networking', field.from]);
    if (!old.found) continue;
    old.remove();
    const value = field.read(old.value, `${where}: spec.networking.${field.from}`, problems);
    if (value !== undefined) setAt(out, ['networking', 'keepalived', field.to], value, where, problems);
  }
  return out;
};

const migrateIronic = (spec: Json, where: string, problems: string[], notes: string[]): Json =>
  moveUpstreamVRRP(raiseSensorInterval(renamed(IRONIC_RENAMES, IRONIC_REMOVED)(spec, where, problems), where, notes), where, problems, notes);

const KINDS = {
  Ironic: { schema: IronicSpec, migrate: migrateIronic, validate: (spec: unknown) => validateIronic(spec) },
  IronicDatabase: { schema: IronicDatabaseSpec, migrate: renamed(DATABASE_RENAMES, []), validate: validateIronicDatabase },
} as const;

const isKind = (kind: unknown): kind is keyof typeof KINDS => kind === 'Ironic' || kind === 'IronicDatabase';

/** An object only ironic-standalone-operator's `metal3.io/v1alpha1` API has: `migrate` converts it. */
export const isProposalObject = (object: { readonly apiVersion?: unknown; readonly kind?: unknown }): boolean =>
  object.apiVersion === PROPOSAL_API_VERSION && isKind(object.kind);

const describe = (object: Json): string => {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '(no name)';
  const namespace = typeof metadata['namespace'] === 'string' ? `${metadata['namespace']}/` : '';
  return `${String(object['kind'])} ${namespace}${name}`;
};

const isUpstream = (object: Json): boolean => SOURCE_VERSIONS.has(String(object['apiVersion'])) && isKind(object['kind']);

/**
 * An object of another kind (a Secret the Ironic names, ...), as it was: only what the API server wrote is
 * dropped, and an owner reference to an upstream Ironic or IronicDatabase, whose deletion (or absence) would
 * otherwise hand the object to the garbage collector.
 */
const passThrough = (object: Json, notes: string[]): Json => {
  const metadata: Json = isObject(object['metadata']) ? { ...object['metadata'] } : {};
  for (const key of SERVER_METADATA) Reflect.deleteProperty(metadata, key);
  const owners = Array.isArray(metadata['ownerReferences']) ? metadata['ownerReferences'] : [];
  const kept = owners.filter((owner) => !(isObject(owner) && isUpstream(owner)));
  if (kept.length < owners.length) {
    const dropped = owners
      .filter((owner) => !kept.includes(owner))
      .map((owner) => (isObject(owner) ? `${String(owner['kind'])} ${String(owner['name'])}` : ''));
    notes.push(`${describe(object)}: passed through without its owner reference to ${dropped.join(', ')}, so that deleting the old object keeps it`);
  }
  if (kept.length > 0) metadata['ownerReferences'] = kept;
  else Reflect.deleteProperty(metadata, 'ownerReferences');
  return { ...object, metadata };
};

/** One upstream object: the migrated object, or problems (at least one). */
const migrateObject = (object: Json, problems: string[], notes: string[]): Json | undefined => {
  const where = describe(object);
  if (!isUpstream(object) || !isKind(object['kind'])) {
    problems.push(`${where} (${String(object['apiVersion'])}): only Ironic and IronicDatabase objects of ironic-standalone-operator are migrated`);
    return undefined;
  }
  const kind = KINDS[object['kind']];
  const before = problems.length;
  const spec = kind.migrate(isObject(object['spec']) ? object['spec'] : {}, where, problems, notes);
  for (const path of unknownFields(kind.schema, spec, 'spec'))
    problems.push(`${where}: ${path} has no equivalent in ${GROUP_VERSION}: remove it, or tell us what it is for`);
  if (problems.length > before) return undefined;
  for (const problem of kind.validate(spec))
    problems.push(`${where}: ${problem.message.startsWith(problem.path) ? problem.message : `${problem.path}: ${problem.message}`}`);
  if (problems.length > before) return undefined;
  if (object['kind'] === 'IronicDatabase')
    notes.push(`${where}: the data is not copied; the new database keeps its data on a volume (storage.ephemeral: true for the old behaviour)`);
  return { apiVersion: GROUP_VERSION, kind: object['kind'], metadata: cleanMetadata(isObject(object['metadata']) ? object['metadata'] : {}), spec };
};

/** The objects of a document: itself, or the items of a `List` (`kubectl get -o yaml` prints one). */
const itemsOf = (document: unknown): unknown[] => {
  if (isObject(document) && document['kind'] === 'List' && Array.isArray(document['items'])) return document['items'];
  return document === null || document === undefined ? [] : [document];
};

/** A kind this API's group does not have (a typo of Ironic, ...): refused by migrateObject rather than passed through. */
const inOwnGroup = (object: Json): boolean => String(object['apiVersion']).split('/')[0] === GROUP_VERSION.split('/')[0];

/**
 * Migrates every Ironic and IronicDatabase of the documents and passes the other objects through (a `kubectl
 * get ironic,secret -o yaml` List); any problem means nothing should be applied.
 */
export const migrateDocuments = (documents: readonly unknown[]): Migrated => {
  const problems: string[] = [];
  const notes: string[] = [];
  const objects: Json[] = [];
  let migrated = 0;
  for (const item of documents.flatMap(itemsOf)) {
    if (!isObject(item)) {
      problems.push('a document is not an object');
      continue;
    }
    if (!isUpstream(item) && !inOwnGroup(item)) {
      objects.push(passThrough(item, notes));
      continue;
    }
    const object = migrateObject(item, problems, notes);
    if (object === undefined) continue;
    objects.push(object);
    migrated += 1;
  }
  return { objects, migrated, problems, notes };
};
