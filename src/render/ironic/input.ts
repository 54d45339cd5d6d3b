/**
 * Everything an Ironic renderer may read. Assembled by the sync hook; nothing else reaches a renderer.
 */
import type { DefaultedIronicSpec } from '../../api/defaults.js';

/** Images the hook server uses when a spec does not name one. Read once from the environment. */
export type ImageDefaults = {
  readonly ironicRepository: string;
  readonly downloader: string;
  readonly keepalived: string;
  readonly mariadb: string;
};

/** Operator-wide settings passed to renderers (never read from the environment inside src/render). */
export type RenderConfig = {
  readonly images: ImageDefaults;
  /** Extra environment of the IPA downloader: IPA_BASEURI, IPA_FLAVOR, IPA_ARCH, HTTP(S)_PROXY, NO_PROXY. */
  readonly downloaderEnv: Readonly<Record<string, string>>;
  /** Cluster DNS domain, for fully qualified service names. */
  readonly clusterDomain: string;
  /** The hook server's own image: HA pods run its certificate issuer as an init container. */
  readonly hookImage?: string;
  /** Whether the cluster has the Prometheus Operator CRDs (and the CompositeController declares ServiceMonitors). */
  readonly serviceMonitors?: boolean;
};

/** The JSON-RPC CA of an HA Ironic: the Secret that holds it and a hash of its certificate. */
export type RpcCAReference = {
  readonly secretName: string;
  readonly hash: string;
  /** The signing CA. */
  readonly certPem: string;
  readonly keyPem: string;
  /** Every CA replicas trust (the signing one, and during a rotation the other). */
  readonly bundlePem: string;
  /** The staged next CA, during a rotation. */
  readonly next?: { readonly certPem: string; readonly keyPem: string };
};

/** A referenced Secret or ConfigMap, resolved: how to mount it and a hash of its content. */
export type MountedReference = {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly name: string;
  readonly hash: string;
};

/** The trusted CA bundle, with the key that holds it. */
export type TrustedCAReference = MountedReference & { readonly key: string };

/** The TLS Secret of the API and virtual media. */
export type TLSReference = MountedReference & { readonly hasCA: boolean };

/** Connection facts of the database Ironic uses (external or managed). */
export type DatabaseConnection = {
  readonly host: string;
  readonly name: string;
  readonly credentialsName: string;
  readonly tlsCertificateName?: string;
  /** The key of tlsCertificateName that holds the CA (the image reads tls.crt). */
  readonly tlsCAKey?: string;
  /** Hash of the credentials Secret when it was read, so a rotation rolls the pods. */
  readonly credentialsHash?: string;
};

/** The switch Secrets of the networking service: the user's (related) or our placeholders (children). */
export type SwitchSecrets = {
  readonly config: { readonly name: string; readonly generated: boolean; readonly hash: string };
  readonly credentials: { readonly name: string; readonly generated: boolean; readonly hash: string };
};

/** Resolved references of an Ironic spec. */
export type IronicReferences = {
  readonly switches?: SwitchSecrets;
  readonly tls?: TLSReference;
  readonly bmcCA?: MountedReference;
  readonly trustedCA?: TrustedCAReference;
  readonly database?: DatabaseConnection;
};

/** The API credentials and the bcrypt htpasswd derived from them. */
export type ApiCredentials = {
  /** The Secret clients read: the user's, or the generated one. */
  readonly secretName: string;
  readonly username: string;
  readonly password: string;
  /** True when the Secret is generated (and so rendered) by us. */
  readonly generated: boolean;
  /** `username:bcrypt-hash`, re-used while it still matches. */
  readonly htpasswd: string;
  /** Hash of the credentials, for the restart annotation. */
  readonly hash: string;
};

export type IronicRenderInput = {
  readonly name: string;
  readonly namespace: string;
  readonly spec: DefaultedIronicSpec;
  readonly references: IronicReferences;
  readonly credentials: ApiCredentials;
  /** Only with highAvailability. */
  readonly rpcCA?: RpcCAReference;
  readonly config: RenderConfig;
};
