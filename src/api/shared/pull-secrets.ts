/**
 * spec.imagePullSecrets of every kind: Secrets of the object's namespace that the kubelet uses to pull the
 * images of every pod the object makes (workloads and Jobs), as in a pod spec.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DNS_SUBDOMAIN_PATTERN } from './constants.js';
import { describeValue, problem, type Problem } from './problems.js';
import { repeatedValues } from './fields.js';

/** How many pull secrets a spec may name (a pod spec has no limit; this keeps objects small). */
export const MAX_IMAGE_PULL_SECRETS = 16;

export const ImagePullSecrets = Type.Array(
  Type.Object({
    name: Type.String({
      description: 'Name of a Secret of type kubernetes.io/dockerconfigjson in the same namespace.',
      minLength: 1,
      maxLength: 253,
      pattern: DNS_SUBDOMAIN_PATTERN,
    }),
  }),
  {
    description:
      'Secrets (of this namespace) with the credentials of private registries, added to every pod this object makes, in this order (pod spec imagePullSecrets). Each name may appear once.',
    maxItems: MAX_IMAGE_PULL_SECRETS,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  },
);
export type ImagePullSecrets = Static<typeof ImagePullSecrets>;

/** The names, in order (validation refused repeated and empty ones). */
export const pullSecretNames = (list: ImagePullSecrets | undefined): string[] => (list ?? []).map((s) => s.name);

/** A name given twice: the API server refuses it (a list map keyed by name), so the hook does too. */
export const imagePullSecretsProblems = (list: ImagePullSecrets | undefined): Problem[] => {
  const names = pullSecretNames(list);
  const repeated = repeatedValues(names);
  return repeated.length > 0
    ? [
        problem(
          'spec.imagePullSecrets',
          `each Secret may appear only once, but ${repeated.map(describeValue).join(', ')} appears more than once: remove the repeated entries`,
        ),
      ]
    : [];
};
