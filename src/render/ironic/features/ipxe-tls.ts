/**
 * iPXE over TLS (spec.tls.ipxe), as ironic-image expects it: the serving certificate at /certs/ipxe in
 * every container that decides on it (httpd serves the iPXE vhost on IPXE_TLS_PORT and copies the
 * firmware; ironic renders ipxe_config.template with https URLs; dnsmasq stops sending the plain-HTTP
 * boot.ipxe URL), and custom firmware in /shared/custom_ipxe_firmware, which runhttpd requires and
 * rundnsmasq hands out over TFTP instead of the image's own.
 *
 * The firmware comes from the init container `ipxe-builder` (metal3-io/utility-images buildipxe.sh),
 * run after the certificate exists. Its command clones a pinned iPXE release (the pod needs to reach GitHub,
 * through spec.proxy if set) which buildipxe.sh builds as its cache; buildipxe.sh embeds a script that
 * chains to https://<ipAddress>:<port>/boot.ipxe and builds with CERT= and TRUST= set to IPXE_CERT_FILE. NOTE (design): that file is the CA bundle when there
 * is one (its first certificate, the signing CA, is the one iPXE trusts: the build fingerprints only the
 * first certificate of the file), so a renewed leaf stays trusted; a Secret without ca.crt gives its
 * certificate itself. Every pod start rebuilds, so a new CA or certificate (which rolls the pods) always
 * ends up in the firmware.
 */
import type { IAffinity } from 'kubernetes-models/v1/Affinity';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { NODE_ARCH_LABEL } from '../../../api/shared/constants.js';
import { DEFAULT_IPXE_RELEASE, type FeatureImage } from '../../config.js';
import { IRONIC_GID, IRONIC_UID, restricted } from '../../security.js';
import { proxyEnv } from '../common-env.js';
import { env, imageOf, resourcesOf } from '../facts.js';
import type { IronicFeature } from '../feature.js';
import type { IronicRenderInput } from '../input.js';
import { MOUNTS, VOLUMES, ipxeMounts, scratchMounts, sharedMount } from '../volumes.js';

/** Where ironic-image (and the builder) look for custom firmware: IPXE_CUSTOM_FIRMWARE_DIR's default. */
export const IPXE_FIRMWARE_DIR = `${MOUNTS.shared}/custom_ipxe_firmware`;

/** Where the wrapper clones the iPXE source for the builder (which copies it to /tmp/ipxe-source and builds there). */
export const IPXE_SOURCE_DIR = '/data/ipxe-source';

/**
 * The builder's script, around it. The source is cloned here rather than by buildipxe.sh (which then builds
 * from it as from a cache) so that HTTPS is switched on for BIOS too: since iPXE 2.0 config/general.h
 * `#undef`s DOWNLOAD_PROTO_HTTPS for PLATFORM_pcbios after the lines buildipxe.sh edits, and its undionly.kpxe
 * would have neither HTTP nor HTTPS. config/local/general.h is included after that block.
 *
 * The builder names its EFI binary `snponly.efi`, while ironic-image copies `$SNP_BASENAME-x86_64.efi` and
 * `$SNP_BASENAME-arm64.efi` (SNP_BASENAME `snponly`) and skips the others: the binary is renamed after the
 * build. bash's HOSTTYPE is `uname -m` (x86_64 or aarch64), and ironic-image calls aarch64 `arm64`.
 * A restarted init container finds the emptyDir of its last attempt: both copies of the source are removed.
 */
export const IPXE_BUILD_SCRIPT = [
  'set -euo pipefail',
  'rm -rf "$IPXE_SHARED_FIRMWARE_SOURCE" /tmp/ipxe-source',
  'git clone --depth 1 --branch "$IPXE_RELEASE_BRANCH" https://github.com/ipxe/ipxe.git "$IPXE_SHARED_FIRMWARE_SOURCE"',
  'echo "#define DOWNLOAD_PROTO_HTTPS" >> "$IPXE_SHARED_FIRMWARE_SOURCE/src/config/local/general.h"',
  '/bin/buildipxe.sh',
  'arch="${HOSTTYPE/aarch64/arm64}"',
  'mv -f "$IPXE_CUSTOM_FIRMWARE_DIR/snponly.efi" "$IPXE_CUSTOM_FIRMWARE_DIR/snponly-$arch.efi"',
].join('\n');

/** The file of the TLS volume the firmware trusts: the CA bundle when the certificate comes with one, else the certificate. */
const trustedKey = (input: IronicRenderInput): 'ca.crt' | 'tls.crt' =>
  input.generatedTLS !== undefined || input.references.tls?.hasCA === true ? 'ca.crt' : 'tls.crt';

/**
 * The builder sees that one file and nothing else of the TLS volume (a sub-path mount, which works for the
 * user's or cert-manager's Secret and for the generated certificate's emptyDir alike): it runs a Makefile of
 * a freshly cloned source, and the serving private key (tls.key) must not be within its reach.
 */
const trustedMount = (input: IronicRenderInput): IVolumeMount => {
  const key = trustedKey(input);
  return { name: VOLUMES.tls, mountPath: `${MOUNTS.ipxe}/${key}`, subPath: key, readOnly: true };
};

/**
 * With iPXE TLS the pod runs on amd64 nodes only: buildipxe.sh always builds bin/undionly.kpxe (i386 BIOS,
 * gcc -m32), which an aarch64 toolchain cannot build, so on an arm64 node the builder fails and the pod never
 * starts. A required node affinity (added to the pod's nodeSelector and tolerations, which still apply).
 */
const amd64Only: IAffinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: NODE_ARCH_LABEL, operator: 'In', values: ['amd64'] }] }],
    },
  },
};

/** dnsmasq's mounts with iPXE TLS: the firmware (on /shared) and the certificate that switches it to TLS. */
const dnsmasqMounts = (input: IronicRenderInput): IVolumeMount[] => [sharedMount, ...ipxeMounts(input)];

/** The init container that builds the firmware into /shared/custom_ipxe_firmware. */
/**
 * The iPXE builder of metal3-io/utility-images. NOTE: that image has no release tags (only `main`,
 * `latest` and `main_<build date>_<commit>`); pin it by digest with IPXE_BUILDER_IMAGE or spec.images.ipxeBuilder.
 */
const IPXE_BUILDER_IMAGE: FeatureImage = {
  field: 'ipxeBuilder',
  setting: 'IPXE_BUILDER_IMAGE',
  default: 'quay.io/metal3-io/ipxe-builder:latest',
  container: 'ipxe-builder',
};

const buildIPXEBuilderContainer = (input: IronicRenderInput): IContainer => ({
  name: 'ipxe-builder',
  image: imageOf(input, IPXE_BUILDER_IMAGE),
  command: ['/bin/bash', '-c', IPXE_BUILD_SCRIPT],
  env: [
    env('IPXE_ENABLE_TLS', 'true'),
    // The source: the script's shallow clone of the pinned release, which buildipxe.sh builds as its cache.
    env('IPXE_RELEASE_BRANCH', input.config.ipxeRelease ?? DEFAULT_IPXE_RELEASE),
    env('IPXE_BUILD_FROM_CACHE', 'true'),
    env('IPXE_BUILD_FROM_REPO', 'false'),
    env('IPXE_SHARED_FIRMWARE_SOURCE', IPXE_SOURCE_DIR),
    env('IPXE_CERT_FILE', `${MOUNTS.ipxe}/${trustedKey(input)}`),
    env('IPXE_CHAIN_HOST', input.model.networking.ipAddress ?? ''),
    env('IPXE_TLS_PORT', String(input.model.networking.ipxeTLSPort)),
    env('IPXE_CUSTOM_FIRMWARE_DIR', IPXE_FIRMWARE_DIR),
    // Its default, /bin/embed.ipxe, is not writable for the ironic user on a read-only root filesystem.
    env('IPXE_EMBED_SCRIPT', '/tmp/embed.ipxe'),
    ...proxyEnv(input),
  ],
  volumeMounts: [sharedMount, trustedMount(input), ...scratchMounts('ipxe-builder')],
  ...resourcesOf(input, 'ipxe-builder'),
  securityContext: restricted(IRONIC_UID, IRONIC_GID),
});

export const IPXE_TLS: IronicFeature = {
  name: 'ipxe-tls',
  // After the init containers that write certificates (json-rpc, generated-tls, cert-manager): the firmware it builds trusts the CA.
  order: 120,
  applies: (model) => model.tls.ipxe,
  initContainers: [{ name: 'ipxe-builder', build: buildIPXEBuilderContainer }],
  images: [IPXE_BUILDER_IMAGE],
  mounts: (input) => ({ dnsmasq: dnsmasqMounts(input) }),
  podSpec: () => ({ affinity: amd64Only }),
};
