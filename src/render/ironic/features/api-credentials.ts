/**
 * The API credentials: the generated Secret (only when the user gives none) and the htpasswd Ironic and httpd
 * read; a new password rolls the pods.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { GROUP_KEYS } from '../../../api/shared/hook.js';
import { CONTENT_COMPONENTS, ENVIRONMENT_LABEL, LABELS, versionAnnotation } from '../../names.js';
import { base64, ironicSecretLabels } from '../../meta.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';

/**
 * `<name>-api-credentials`, when spec.apiCredentialsName is empty. NOTE: the CompositeController applies
 * generated Secrets with the OnDelete strategy, so a sync that missed the live object can never
 * overwrite a password clients already use.
 */
export const renderApiCredentialsSecret = (input: IronicRenderInput): ISecret | undefined => {
  if (!input.credentials.generated) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: input.credentials.secretName,
      namespace: input.namespace,
      labels: { ...ironicSecretLabels(input.name), [ENVIRONMENT_LABEL]: 'true' },
    },
    type: 'kubernetes.io/basic-auth',
    data: { username: base64(input.credentials.username), password: base64(input.credentials.password) },
  };
};

/**
 * `<name>-htpasswd-<hash>`: the bcrypt line Ironic and httpd read, immutable and named by its content.
 * Re-hashed only when the credentials change.
 */
export const renderHtpasswdSecret = (input: IronicRenderInput): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: input.credentials.htpasswdSecretName,
    namespace: input.namespace,
    labels: { ...ironicSecretLabels(input.name), [LABELS.component]: CONTENT_COMPONENTS.htpasswd },
  },
  type: 'Opaque',
  immutable: true,
  data: { htpasswd: base64(input.credentials.htpasswd) },
});

export const API_CREDENTIALS: IronicFeature = {
  name: 'api-credentials',
  order: 10,
  applies: () => true,
  // The same hash the credentials carry (and the networking pod uses): it changes with the htpasswd.
  annotations: (input) => ({ [versionAnnotation('api-secret')]: input.credentials.hash }),
  children: (input) => [renderApiCredentialsSecret(input), renderHtpasswdSecret(input)],
  wanted: (model, names) => (model.apiCredentialsName === undefined ? [{ group: GROUP_KEYS.secret, name: names.apiCredentials }] : []),
  ownsSecret: (names, secret) => secret === names.apiCredentials || secret.startsWith(names.htpasswdPrefix),
};
