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
import { given } from '../../../api/shared/fields.js';
import { LABELS } from '../../names.js';
import { base64, contentHash, ironicSecretLabels, keyedContentHash } from '../../meta.js';
import { withCapabilities } from '../../security.js';
import type { FeatureImage } from '../../config.js';
import { env, imageOf, optionalEnv, resourcesOf } from '../facts.js';
import type { IronicFeature } from '../feature.js';
import type { IronicModel } from '../../../api/ironic/model.js';
import type { IronicRenderInput, SecretRead, SecretValue } from '../input.js';

type Networking = NonNullable<IronicModel['spec']['networking']>;
type VIP = NonNullable<NonNullable<Networking['keepalived']>['additionalVIPs']>[number];

/**
 * What the spec asks of keepalived, read here as only this feature reads it: `vips` (keepalived.enabled: the
 * provisioning IP with the DHCP prefix, plus additional VIPs) or `legacy` (the deprecated ipAddressManager:
 * the image reads PROVISIONING_IP and PROVISIONING_INTERFACE).
 */
export type KeepalivedSettings = {
  readonly mode: 'vips' | 'legacy';
  readonly additionalVIPs: readonly VIP[];
  /** The VRRP virtual router ID, when not the image's (keepalived.vrid, or upstream's keepalivedVRID). */
  readonly vrid?: number;
  /** The Secret with the VRRP password (key `password`), and the spec field that names it. */
  readonly password?: { readonly secretName: string; readonly path: string };
};

/** The password Secret under this API's name (keepalived.passwordRef) or upstream's (keepalivedPasswordRef). */
const passwordField = (n: Networking): KeepalivedSettings['password'] => {
  const ours = given(n.keepalived?.passwordRef?.name);
  const theirs = given(n.keepalivedPasswordRef?.name);
  if (ours !== undefined) return { secretName: ours, path: 'spec.networking.keepalived.passwordRef.name' };
  return theirs !== undefined ? { secretName: theirs, path: 'spec.networking.keepalivedPasswordRef.name' } : undefined;
};

/**
 * keepalived's settings, or undefined when it does not run. The VRRP settings may be given under either
 * name: validation allows both only with the same value.
 */
export const keepalivedSettings = (model: IronicModel): KeepalivedSettings | undefined => {
  const n = model.spec.networking ?? {};
  const mode = n.keepalived?.enabled === true ? 'vips' : n.ipAddressManager === 'keepalived' ? 'legacy' : undefined;
  if (mode === undefined) return undefined;
  const vrid = n.keepalived?.vrid ?? n.keepalivedVRID;
  const password = passwordField(n);
  return {
    mode,
    additionalVIPs: mode === 'vips' ? (n.keepalived?.additionalVIPs ?? []) : [],
    ...(vrid !== undefined && { vrid }),
    ...(password !== undefined && { password }),
  };
};

/** The image (metal3-io/utility-images keepalived), spec.images.keepalived or the hook server's KEEPALIVED_IMAGE. */
const IMAGE: FeatureImage = { field: 'keepalived', setting: 'KEEPALIVED_IMAGE', default: 'quay.io/metal3-io/keepalived:latest', container: 'keepalived' };

/** The user of the keepalived image. */
const KEEPALIVED_UID = 65532;

/** Where the image's start script reads its template. */
const TEMPLATE_PATH = '/etc/keepalived/keepalived.conf';
const KEY = 'keepalived.conf';
/** `<name>-keepalived-<hash>`, labelled with this component (it holds the VRRP password, so it is a Secret). */
const SUFFIX = '-keepalived';
const COMPONENT = 'keepalived';
const VOLUME = 'keepalived-config';

/** Characters keepalived.conf takes in an unquoted word: printable ASCII without quotes, comments, braces or escapes. */
const VRRP_PASSWORD = /^[!-~]+$/;
const VRRP_FORBIDDEN = /["'#!{}\\]/;
/** The word the image's start script replaces in its configuration (manage-keepalived.sh). */
const IMAGE_PLACEHOLDER = 'CHANGEIP';

/** Why a VRRP password cannot be used, or undefined. */
const vrrpPasswordProblem = (password: string): string | undefined => {
  if (password === '') return 'is empty: set a password of 1 to 8 characters';
  if (password.length > VRRP.maxPasswordLength) {
    return `has ${password.length} characters, but VRRP PASS authentication keeps only ${VRRP.maxPasswordLength} (keepalived would silently cut it): use at most ${VRRP.maxPasswordLength}`;
  }
  if (!VRRP_PASSWORD.test(password) || VRRP_FORBIDDEN.test(password))
    return 'may only contain printable ASCII characters other than spaces, quotes, #, !, braces and backslashes';
  return password === IMAGE_PLACEHOLDER
    ? `cannot be ${IMAGE_PLACEHOLDER}, a word the keepalived image replaces in its configuration: choose another`
    : undefined;
};

/** The VRRP password: the `password` key of the Secret networking.keepalived.passwordRef names (or upstream's field). */
const passwordRead = (model: IronicModel): SecretRead[] => {
  const password = keepalivedSettings(model)?.password;
  if (password === undefined) return [];
  return [
    {
      name: password.secretName,
      path: password.path,
      key: 'password',
      fix: 'create it with the VRRP password under the key password, or fix the name',
      problem: vrrpPasswordProblem,
    },
  ];
};

/** The password read, with the uid of its Secret (the key of the hash that names our configuration Secret). */
const passwordOf = (input: IronicRenderInput): SecretValue | undefined => {
  const path = keepalivedSettings(input.model)?.password?.path;
  return path !== undefined ? input.references.secretValues?.[path] : undefined;
};

/** The configuration template, when the spec sets a router ID or a password; undefined keeps the image's. */
export const keepalivedTemplate = (input: IronicRenderInput): string | undefined => {
  const keepalived = keepalivedSettings(input.model);
  if (keepalived === undefined) return undefined;
  const password = passwordOf(input)?.value;
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
  const password = passwordOf(input);
  return input.names.contentNamed(SUFFIX).name(password === undefined ? contentHash(template) : keyedContentHash(password.uid, template));
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
      labels: { ...ironicSecretLabels(input.name), [LABELS.component]: COMPONENT },
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
  const keepalived = keepalivedSettings(input.model);
  if (keepalived?.mode !== 'vips') {
    return [...optionalEnv('PROVISIONING_IP', n.ipAddress), ...optionalEnv('PROVISIONING_INTERFACE', n.interface)];
  }
  // NOTE: the main VIP takes the prefix of the DHCP network, or dnsmasq sees a /32 and hands out no lease.
  const prefix = n.dhcp?.mainNetwork?.prefixLength;
  const main = `${n.ipAddress ?? ''},${n.interface ?? ''}${prefix !== undefined ? `,${prefix}` : ''}`;
  const extra = keepalived.additionalVIPs.map((v) => `${v.ipAddress},${v.interface}${v.prefix !== undefined ? `,${v.prefix}` : ''}`);
  return [env('KEEPALIVED_VIRTUAL_IPS', [main, ...extra].join(' '))];
};

const buildKeepalivedContainer = (input: IronicRenderInput): IContainer => ({
  name: 'keepalived',
  image: imageOf(input, IMAGE),
  env: buildKeepalivedEnv(input),
  ...(keepalivedMounts(input).length > 0 && { volumeMounts: keepalivedMounts(input) }),
  ...resourcesOf(input, 'keepalived'),
  securityContext: withCapabilities(KEEPALIVED_UID, KEEPALIVED_UID, ['NET_ADMIN', 'NET_BROADCAST', 'NET_RAW']),
});

export const KEEPALIVED: IronicFeature = {
  name: 'keepalived',
  order: 150,
  applies: (model) => keepalivedSettings(model) !== undefined,
  containers: [{ name: 'keepalived', build: buildKeepalivedContainer }],
  images: [IMAGE],
  volumes: keepalivedVolumes,
  readsSecrets: passwordRead,
  children: (input) => [renderKeepalivedSecret(input)],
  ownsSecret: (names, secret) => secret.startsWith(names.contentNamed(SUFFIX).prefix),
};
