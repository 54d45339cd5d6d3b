/**
 * Secrets we own: the generated API credentials (only when the user gives none) and the htpasswd.
 */
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { CONTENT_COMPONENTS, ENVIRONMENT_LABEL, LABELS } from '../names.js';
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
