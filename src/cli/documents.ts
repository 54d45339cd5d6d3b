/**
 * Reading Kubernetes objects from multi-document YAML as kubectl does: YAML 1.1 (so `yes`, `on` and
 * friends are booleans, as in Go), `kind: List` flattened, empty documents skipped, a default namespace
 * for objects without one.
 */
import { parseAllDocuments } from 'yaml';
import { API_GROUP, GROUP_VERSION } from '../api/shared/common.js';
import { PARENT_KINDS, wordList } from '../kinds/index.js';
import { CONFIG_MAPS, SECRETS } from '../api/shared/resource-types.js';
import { closestName } from './closest.js';
import { isProposalObject } from './migrate-spec.js';
import { isRecord, isResource, objectKeyOf, type KubeResource } from './objects.js';

/** The kinds the render reads (every parent kind, and the Secrets and ConfigMaps they refer to); everything else is ignored with a warning. */
export const SUPPORTED_KINDS: readonly { readonly apiVersion: string; readonly kind: string }[] = [...PARENT_KINDS, SECRETS, CONFIG_MAPS].map(
  ({ apiVersion, kind }) => ({ apiVersion, kind }),
);

/** `Ironic, IronicDatabase, Secret and ConfigMap`, for the warning about other kinds. */
const SUPPORTED_NAMES = wordList(SUPPORTED_KINDS.map((k) => k.kind));

export type ReadResult = {
  readonly objects: readonly KubeResource[];
  /** Problems that make the input unusable (YAML errors, documents that are not objects). */
  readonly errors: readonly string[];
  /** Documents ignored or replaced. */
  readonly warnings: readonly string[];
  /** Objects of this API's group that the API server would refuse: a kind or version it does not serve. */
  readonly refused: readonly string[];
  /** Objects of ironic-standalone-operator's `metal3.io/v1alpha1` API (ignored): `Ironic ns/name`, and the file (`-` for standard input). */
  readonly proposal: readonly { readonly object: string; readonly file: string }[];
};

/** How the README converts objects of ironic-standalone-operator: `npm run --silent render -- migrate -f FILE > new.yaml`. */
export const migrateCommand = (files: readonly string[]): string =>
  `npm run --silent render -- migrate ${[...new Set(files)].map((f) => `-f ${f}`).join(' ')} > new.yaml`;

/** One text to read: `source` names it in messages, `file` is how the command line gave it (`-` for standard input). */
export type Input = { readonly text: string; readonly source: string; readonly file?: string };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const isNamespaceName = (value: string): boolean => value.length <= 63 && DNS_LABEL.test(value);

const isStringMap = (value: unknown): boolean => value === undefined || (isRecord(value) && Object.values(value).every((v) => typeof v === 'string'));

/** The fields every object needs, as text: those of a mapping that are missing or not text. */
const missingFields = (value: Record<string, unknown>): string[] => {
  const metadata = value['metadata'];
  const fields = { apiVersion: value['apiVersion'], kind: value['kind'], 'metadata.name': isRecord(metadata) ? metadata['name'] : undefined };
  return Object.entries(fields)
    .filter(([, field]) => typeof field !== 'string' || field === '')
    .map(([name]) => name);
};

/** Why a document is not a usable object, or undefined. */
const shapeProblem = (value: unknown): string | undefined => {
  if (!isRecord(value)) return 'is not a Kubernetes object (a mapping with apiVersion, kind and metadata.name)';
  if (!isResource(value)) return `has no ${wordList(missingFields(value))} (every object needs apiVersion, kind and metadata.name, as text)`;
  const { namespace, labels, annotations } = value.metadata;
  if (namespace !== undefined && (typeof namespace !== 'string' || !isNamespaceName(namespace)))
    return `has an invalid metadata.namespace ${JSON.stringify(namespace)}`;
  if (!isStringMap(labels) || !isStringMap(annotations)) return 'has labels or annotations that are not strings (quote them)';
  return undefined;
};

const OWN_KINDS = PARENT_KINDS.map((k) => k.kind);

/** Why the API server refuses an object of this API's group that is not one of its kinds, as `kubectl apply` would. */
const ownGroupRefusal = (object: KubeResource): string => {
  const known = OWN_KINDS.some((k) => k === object.kind);
  const closest = closestName(object.kind, OWN_KINDS) ?? '';
  const kinds = `the kinds of ${GROUP_VERSION} are ${wordList(OWN_KINDS)}`;
  const fix = known ? `write apiVersion: ${GROUP_VERSION}` : `${kinds}; the closest is ${closest}`;
  return `no kind "${object.kind}" in version "${object.apiVersion}": ${fix}`;
};

const inOwnGroup = (object: KubeResource): boolean => object.apiVersion.split('/')[0] === API_GROUP;

/** The kinds of Kubernetes and of the operators around this one that have no namespace, as `group/Kind` (core: `/Kind`). */
const CLUSTER_SCOPED = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/VolumeAttachment',
  'scheduling.k8s.io/PriorityClass',
  'networking.k8s.io/IngressClass',
  'node.k8s.io/RuntimeClass',
  'metacontroller.k8s.io/CompositeController',
  'metacontroller.k8s.io/DecoratorController',
  'cert-manager.io/ClusterIssuer',
]);

/** True for an object of a kind without a namespace: `Namespace baremetal-operator-system`, not `default/...`. */
const isClusterScoped = (object: KubeResource): boolean => {
  const slash = object.apiVersion.lastIndexOf('/');
  return CLUSTER_SCOPED.has(`${slash < 0 ? '' : object.apiVersion.slice(0, slash)}/${object.kind}`);
};

const supported = (object: KubeResource): boolean => SUPPORTED_KINDS.some((k) => k.apiVersion === object.apiVersion && k.kind === object.kind);

/**
 * A YAML error as the parser words it, whole: the problem and where (`... at line 6, column 1:`), then the lines
 * there with a caret under the place, indented.
 */
const yamlError = (message: string): string => {
  const [problem = '', ...context] = message.trimEnd().split('\n');
  const lines = context.filter((line, i) => i > 0 || line !== '');
  return [problem, ...lines.map((line) => `    ${line}`)].join('\n');
};

/** The values of the documents of one file: List items flattened, empty documents skipped. */
export const valuesOf = (text: string, source: string, errors: string[]): { value: unknown; where: string }[] => {
  const out: { value: unknown; where: string }[] = [];
  parseAllDocuments(text, { version: '1.1' }).forEach((document, index) => {
    const where = `${source}, document ${index + 1}`;
    if (document.errors.length > 0) {
      errors.push(...document.errors.map((e) => `${where}: ${yamlError(e.message)}`));
      return;
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    if (isRecord(value) && value['kind'] === 'List' && Array.isArray(value['items']))
      value['items'].forEach((item, i) => out.push({ value: item, where: `${where}, item ${i + 1}` }));
    else out.push({ value, where });
  });
  return out;
};

/**
 * Reads the objects of several YAML texts in order. Objects without a namespace get `namespace` (but those of
 * a kind without one, such as a Namespace); a later object with the same kind, namespace and name replaces an
 * earlier one.
 */
export const readObjects = (inputs: readonly Input[], namespace: string): ReadResult => {
  const errors: string[] = [];
  const warnings: string[] = [];
  const proposal: { object: string; file: string }[] = [];
  const refused: string[] = [];
  const byKey = new Map<string, KubeResource>();
  for (const { text, source, file = source } of inputs) {
    for (const { value, where } of valuesOf(text, source, errors)) {
      const problem = shapeProblem(value);
      if (problem !== undefined) {
        errors.push(`${where} ${problem}`);
        continue;
      }
      const given = value as KubeResource;
      const object = given.metadata.namespace === undefined && !isClusterScoped(given) ? { ...given, metadata: { ...given.metadata, namespace } } : given;
      const key = `${object.apiVersion} ${object.kind} ${objectKeyOf(object)}`;
      if (isProposalObject(object)) {
        proposal.push({ object: `${object.kind} ${objectKeyOf(object)}`, file });
        warnings.push(
          `${where}: ignoring ${object.kind} ${objectKeyOf(object)} (${object.apiVersion}): it is of ironic-standalone-operator; convert it with ${migrateCommand([file])}`,
        );
      } else if (!supported(object) && inOwnGroup(object)) refused.push(`${where}: ${object.kind} ${objectKeyOf(object)}: ${ownGroupRefusal(object)}`);
      else if (!supported(object))
        warnings.push(`${where}: ignoring ${object.kind} ${objectKeyOf(object)} (${object.apiVersion}): only ${SUPPORTED_NAMES} objects are read`);
      else if (byKey.has(key)) warnings.push(`${where}: ${object.kind} ${objectKeyOf(object)} appears again; the later one is used`);
      if (supported(object)) byKey.set(key, object);
    }
  }
  return { objects: [...byKey.values()], errors, warnings, refused, proposal };
};
