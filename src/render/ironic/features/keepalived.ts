/**
 * keepalived's VRRP settings. The image (metal3-io/utility-images keepalived/) starts with
 * manage-keepalived.sh, which copies /etc/keepalived/keepalived.conf to /conf/keepalived/keepalived.conf and
 * replaces INTERFACE and CHANGEIP in the copy; its own file has `virtual_router_id 1` and no authentication.
 * With a router ID or a password, our file is mounted in its place: the image's VRRP instance with them,
 * the same two placeholders for the script. It holds the password, so it is a Secret, named by a hash of its
 * content keyed with the uid of the password's Secret (a new password is a new Secret and a rolling restart,
 * and the name tells nothing about the password).
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { VRRP } from '../../../api/shared/constants.js';
import { CONTENT_COMPONENTS, LABELS } from '../../names.js';
import { base64, contentHash, ironicSecretLabels, keyedContentHash } from '../../meta.js';
import { withCapabilities } from '../../security.js';
import { env, optionalEnv, resourcesOf } from '../facts.js';
import type { ContainerContext, IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';

/** The user of the keepalived image. */
const KEEPALIVED_UID = 65532;

/** Where the image's start script reads its template. */
const TEMPLATE_PATH = '/etc/keepalived/keepalived.conf';
const KEY = 'keepalived.conf';
const VOLUME = 'keepalived-config';

/** The configuration template, when the spec sets a router ID or a password; undefined keeps the image's. */
export const keepalivedTemplate = (input: IronicRenderInput): string | undefined => {
  const keepalived = input.model.networking.keepalived;
  if (keepalived === undefined) return undefined;
  const password = input.references.keepalivedPassword?.password;
  if (keepalived.vrid === undefined && password === undefined) return undefined;
  return [
    // NOTE: no placeholder word in comments: the script replaces them everywhere, and several VIPs span lines.
    "! keepalived.conf of the Ironic operator: the image's VRRP instance with the router ID and password of the spec.",
    '! The start script of the image fills in the interface and the virtual addresses.',
    'vrrp_instance VI_1 {',
    '    state MASTER',
    '    interface INTERFACE',
    `    virtual_router_id ${keepalived.vrid ?? VRRP.defaultRouterID}`,
    '    priority 101',
    '    advert_int 1',
    ...(password !== undefined ? ['    authentication {', '        auth_type PASS', `        auth_pass ${password}`, '    }'] : []),
    '    virtual_ipaddress {',
    '        CHANGEIP',
    '    }',
    '}',
    '',
  ].join('\n');
};

/**
 * The name of the Secret with the template, when there is one: it changes with the template (a new password
 * rolls the pod). With a password, the hash is keyed with the uid of the user's Secret: the name is in the
 * pod spec, and a plain hash of a template whose only unknown is a password of at most 8 characters could be
 * reversed by trying passwords.
 */
const secretName = (input: IronicRenderInput, template: string): string => {
  const password = input.references.keepalivedPassword;
  return input.names.keepalivedConfig(password === undefined ? contentHash(template) : keyedContentHash(password.uid, template));
};

/** `<name>-keepalived-<hash>`: the template, immutable and named by its content. */
export const renderKeepalivedSecret = (input: IronicRenderInput): ISecret | undefined => {
  const template = keepalivedTemplate(input);
  if (template === undefined) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName(input, template),
      namespace: input.namespace,
      labels: { ...ironicSecretLabels(input.name), [LABELS.component]: CONTENT_COMPONENTS.keepalived },
    },
    type: 'Opaque',
    immutable: true,
    data: { [KEY]: base64(template) },
  };
};

/** The template over the image's file (a single-file mount: the rest of /etc/keepalived stays). */
const keepalivedMounts = (input: IronicRenderInput): IVolumeMount[] =>
  keepalivedTemplate(input) !== undefined ? [{ name: VOLUME, mountPath: TEMPLATE_PATH, subPath: KEY, readOnly: true }] : [];

const keepalivedVolumes = (input: IronicRenderInput): IVolume[] => {
  const template = keepalivedTemplate(input);
  return template !== undefined ? [{ name: VOLUME, secret: { secretName: secretName(input, template), items: [{ key: KEY, path: KEY }] } }] : [];
};

/** keepalived: the VIP list (new mode), or the provisioning IP and interface (legacy ipAddressManager). */
export const buildKeepalivedEnv = (input: IronicRenderInput): IEnvVar[] => {
  const n = input.model.networking;
  if (n.keepalived?.mode !== 'vips') {
    return [...optionalEnv('PROVISIONING_IP', n.ipAddress), ...optionalEnv('PROVISIONING_INTERFACE', n.interface)];
  }
  // NOTE: the main VIP takes the prefix of the DHCP network, or dnsmasq sees a /32 and hands out no lease.
  const prefix = n.dhcp?.mainNetwork?.prefixLength;
  const main = `${n.ipAddress ?? ''},${n.interface ?? ''}${prefix !== undefined ? `,${prefix}` : ''}`;
  const extra = n.keepalived.additionalVIPs.map((v) => `${v.ipAddress},${v.interface}${v.prefix !== undefined ? `,${v.prefix}` : ''}`);
  return [env('KEEPALIVED_VIRTUAL_IPS', [main, ...extra].join(' '))];
};

const buildKeepalivedContainer = (input: IronicRenderInput, { images }: ContainerContext): IContainer => ({
  name: 'keepalived',
  image: images.keepalived,
  env: buildKeepalivedEnv(input),
  ...(keepalivedMounts(input).length > 0 && { volumeMounts: keepalivedMounts(input) }),
  ...resourcesOf(input, 'keepalived'),
  securityContext: withCapabilities(KEEPALIVED_UID, KEEPALIVED_UID, ['NET_ADMIN', 'NET_BROADCAST', 'NET_RAW']),
});

export const KEEPALIVED: IronicFeature = {
  name: 'keepalived',
  applies: (model) => model.networking.keepalived !== undefined,
  containers: [{ name: 'keepalived', build: buildKeepalivedContainer }],
  volumes: keepalivedVolumes,
  children: (input) => [renderKeepalivedSecret(input)],
  ownsSecret: (names, secret) => secret.startsWith(names.keepalivedConfigPrefix),
};
