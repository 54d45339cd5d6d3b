/** Operator-wide settings passed to renderers (read once from the environment, never inside src/render). */

/** Images the hook server uses when a spec does not name one. */
export type ImageDefaults = {
  readonly ironicRepository: string;
  readonly mariadb: string;
  /**
   * The images the hook server's environment names (its `*_IMAGE` variables), by variable: each feature image
   * (a FeatureImage) reads its own, and falls back to its own default.
   */
  readonly settings: Readonly<Record<string, string>>;
};

/**
 * An image a part of the operator runs besides Ironic's, declared where it is run: the field of spec.images
 * that overrides it, the hook server's variable that sets its default, and that default.
 */
export type FeatureImage = {
  /** The field of the parent's spec.images. */
  readonly field: string;
  /** The hook server's environment variable (`*_IMAGE`). */
  readonly setting: string;
  readonly default: string;
  /** The container that runs it, for the README's configuration table. */
  readonly container: string;
};

/** The image to run without one named in the spec: the hook server's setting, else the image's own default. */
export const defaultImage = (config: RenderConfig, image: FeatureImage): string => config.images.settings[image.setting] ?? image.default;

export type RenderConfig = {
  readonly images: ImageDefaults;
  /** The hook server's IPA settings, for the pods that download IPA: IPA_BASEURI, IPA_FLAVOR, IPA_ARCH, HTTP(S)_PROXY, NO_PROXY. */
  readonly ipaSettings: Readonly<Record<string, string>>;
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
 * The iPXE release the firmware of tls.ipxe is built from, pinned (IPXE_RELEASE overrides it). Not the
 * builder's default, v1.21.1: that release has RSA only, so a certificate of an ECDSA CA (cert-manager's
 * usual choice, and that of examples/cert-manager) could never be verified. 2.0.0 is the first release with
 * ECDSA and ECDHE (src/crypto/ecdsa.c, CRYPTO_PUBKEY_ECDSA in config/crypto.h), and keeps RSA.
 */
export const DEFAULT_IPXE_RELEASE = 'v2.0.0';
