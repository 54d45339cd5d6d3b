/**
 * Secrets we own: the generated API credentials (only when the user gives none) and the htpasswd.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { ENVIRONMENT_LABEL, LABELS, ironicNames } from '../names.js';
import { base64, ironicSecretLabels } from '../meta.js';
import type { IronicRenderInput } from './input.js';

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

/** Value of the component label of the htpasswd Secret, by which an observed one is found again. */
export const HTPASSWD_COMPONENT = 'htpasswd';

/**
 * `<name>-htpasswd-<hash>`: the bcrypt line Ironic and httpd read, immutable and named by its content.
 * Re-hashed only when the credentials change.
 */
export const renderHtpasswdSecret = (input: IronicRenderInput): ISecret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: ironicNames(input.name).htpasswd(input.credentials.hash),
    namespace: input.namespace,
    labels: { ...ironicSecretLabels(input.name), [LABELS.component]: HTPASSWD_COMPONENT },
  },
  type: 'Opaque',
  immutable: true,
  data: { htpasswd: base64(input.credentials.htpasswd) },
});
