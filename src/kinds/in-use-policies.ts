/**
 * The admission side of the "used by Ironics" protocol (src/api/used-by.ts): for each parent kind whose
 * descriptor has `usedBy`, a ValidatingAdmissionPolicy and its binding that refuse deleting an object
 * whose status.usedBy names Ironics, with a message naming them and the Ironic field to change.
 * `npm run crds` writes them to deploy/admission; a test fails when the committed files differ.
 */
import { API_GROUP, API_VERSION } from '../api/shared/common.js';
import type { UsedBy } from '../api/used-by.js';
import { PARENT_KINDS, type ParentKind } from './index.js';
import type { JsonObject } from '../crd/structural.js';
import { toYaml } from '../crd/yaml.js';

const ADMISSION_API_VERSION = 'admissionregistration.k8s.io/v1';
const LABELS = { 'app.kubernetes.io/part-of': 'ironic-metacontroller' } as const;

/** A parent kind that Ironics use. */
export type UsedParentKind = Pick<ParentKind, 'kind' | 'plural' | 'controllerName'> & { readonly usedBy: UsedBy };

/** The parent kinds that Ironics use, in the order of PARENT_KINDS. */
export const usedParentKinds = (): UsedParentKind[] => PARENT_KINDS.flatMap((kind) => (kind.usedBy !== undefined ? [{ ...kind, usedBy: kind.usedBy }] : []));

/** `<controller>-in-use.ironic.metal3.io`: the name of the policy and of its binding. */
export const inUsePolicyName = (kind: Pick<ParentKind, 'controllerName'>): string => `${kind.controllerName}-in-use.${API_GROUP}`;

/** The file under deploy/admission that holds the policy and its binding. */
export const inUsePolicyFileName = (kind: Pick<ParentKind, 'controllerName'>): string => `${kind.controllerName}-in-use.yaml`;

/** CEL, on DELETE (the stored object is `oldObject`): nobody uses it. */
const NOT_IN_USE = '!has(oldObject.status) || !has(oldObject.status.usedBy) || size(oldObject.status.usedBy) == 0';

const remedy = (usedBy: UsedBy): string => `delete them or change their spec.${usedBy.ironicField} first`;

/** The refusal, naming the users: `IronicDatabase ironic-db is used by the Ironic objects a, b of namespace x: ...`. */
const messageExpression = (kind: UsedParentKind): string =>
  `'${kind.kind} ' + oldObject.metadata.name + ' is used by the Ironic objects ' + oldObject.status.usedBy.join(', ') + ' of namespace ' + oldObject.metadata.namespace + ': ${remedy(kind.usedBy)}'`;

/** The ValidatingAdmissionPolicy that refuses deleting an object of the kind while Ironics use it. */
export const inUsePolicy = (kind: UsedParentKind): JsonObject => ({
  apiVersion: ADMISSION_API_VERSION,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: inUsePolicyName(kind), labels: { ...LABELS } },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['DELETE'], resources: [kind.plural] }] },
    validations: [
      {
        expression: NOT_IN_USE,
        messageExpression: messageExpression(kind),
        message: `the ${kind.kind} is used by Ironic objects (status.usedBy); ${remedy(kind.usedBy)}`,
        reason: 'Forbidden',
      },
    ],
  },
});

/** Its binding: a refusal, not a warning. */
export const inUseBinding = (kind: UsedParentKind): JsonObject => ({
  apiVersion: ADMISSION_API_VERSION,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: inUsePolicyName(kind), labels: { ...LABELS } },
  spec: { policyName: inUsePolicyName(kind), validationActions: ['Deny'] },
});

/** The comment at the top of the file: what the policy is for, and how to get past it. */
const header = (kind: UsedParentKind): string =>
  [
    '# Generated from src/crd/in-use-policy.ts by `npm run crds`. Do not edit by hand.',
    `# Refuses deleting an object of kind ${kind.kind} while an Ironic still uses it: its status.usedBy,`,
    `# kept by the ${kind.controllerName} sync hook, names the Ironics whose spec.${kind.usedBy.ironicField} names it.`,
    '# The finalize hook alone cannot guarantee it: `kubectl delete --cascade=foreground` lets the garbage',
    '# collector delete the children while Metacontroller still waits on the finalizer. On DELETE the API',
    '# server gives the stored object as `oldObject` (`object` is null). To delete anyway (e.g. with',
    '# Metacontroller gone and the status stale), delete the binding below first.',
    '',
  ].join('\n');

/** The text of the policy's file: the comment, the policy, its binding. */
export const inUsePolicyFile = (kind: UsedParentKind): string => `${header(kind)}---\n${toYaml(inUsePolicy(kind))}---\n${toYaml(inUseBinding(kind))}`;

/** Every in-use policy file with its name under deploy/admission, one per kind that Ironics use. */
export const allInUsePolicies = (): readonly { readonly file: string; readonly text: string }[] =>
  usedParentKinds().map((kind) => ({ file: inUsePolicyFileName(kind), text: inUsePolicyFile(kind) }));
