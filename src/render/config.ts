/** Operator-wide settings passed to renderers (read once from the environment, never inside src/render). */

/** Images the hook server uses when a spec does not name one. */
export type ImageDefaults = {
  readonly ironicRepository: string;
  readonly downloader: string;
  readonly keepalived: string;
  readonly mariadb: string;
  /** The iPXE builder (tls.ipxe); DEFAULT_IPXE_BUILDER_IMAGE when absent. */
  readonly ipxeBuilder?: string;
};

export type RenderConfig = {
  readonly images: ImageDefaults;
  /** Extra environment of the IPA downloader: IPA_BASEURI, IPA_FLAVOR, IPA_ARCH, HTTP(S)_PROXY, NO_PROXY. */
  readonly downloaderEnv: Readonly<Record<string, string>>;
  /** Cluster DNS domain, for fully qualified service names. */
  readonly clusterDomain: string;
  /** The hook server's own image: HA pods run its certificate issuer as an init container. */
  readonly hookImage?: string;
  /** Pull secrets (in each Ironic's namespace) added to the pods that run the hook image (HOOK_IMAGE_PULL_SECRETS). */
  readonly hookImagePullSecrets?: readonly string[];
  /** Whether the cluster has the Prometheus Operator CRDs (and the CompositeController declares ServiceMonitors). */
  readonly serviceMonitors?: boolean;
  /** Whether the cluster has cert-manager (and the CompositeController declares Certificates). */
  readonly certManager?: boolean;
  /** Whether the cluster has mariadb-operator (and the IronicDatabase CompositeController declares its kinds). */
  readonly mariadbOperator?: boolean;
  /** The iPXE release (a tag of github.com/ipxe/ipxe) the builder builds for tls.ipxe; DEFAULT_IPXE_RELEASE when absent. */
  readonly ipxeRelease?: string;
};

/**
 * The iPXE builder of metal3-io/utility-images. NOTE: that image has no release tags (only `main`,
 * `latest` and `main_<build date>_<commit>`); pin it by digest with IPXE_BUILDER_IMAGE or spec.images.ipxeBuilder.
 */
export const DEFAULT_IPXE_BUILDER_IMAGE = 'quay.io/metal3-io/ipxe-builder:latest';

/**
 * The iPXE release the firmware of tls.ipxe is built from, pinned (IPXE_RELEASE overrides it). Not the
 * builder's default, v1.21.1: that release has RSA only, so a certificate of an ECDSA CA (cert-manager's
 * usual choice, and that of examples/cert-manager) could never be verified. 2.0.0 is the first release with
 * ECDSA and ECDHE (src/crypto/ecdsa.c, CRYPTO_PUBKEY_ECDSA in config/crypto.h), and keeps RSA.
 */
export const DEFAULT_IPXE_RELEASE = 'v2.0.0';
