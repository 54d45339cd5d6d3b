/**
 * The parsed, fully defaulted model of an Ironic. `parseIronic` is its only producer; renderers read nothing else of
 * a spec. Every default, every parsed network and every derived switch ("is TLS on?", "does the pod use the host
 * network?") is computed once, there.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { ObjectReference } from '../shared/references.js';
import type { DeployLogs } from '../shared/constants.js';
import type { IPFamily } from '../shared/net.js';
import type { TLSProfile } from '../shared/tls-profile.js';
import type { IronicContainerName, IronicSpec } from './schema.js';

export type { IronicContainerName } from './schema.js';

/** A DHCP pool with its network parsed: the mask is in dnsmasq's form (dotted for IPv4, a prefix length for IPv6). */
export type DHCPPool = {
  readonly begin: string;
  readonly end: string;
  readonly family: IPFamily;
  readonly prefixLength: number;
  readonly mask: string;
};

/** An extra pool, with the router it announces (if any). */
export type ExtraDHCPPool = DHCPPool & { readonly gatewayAddress?: string };

export type DHCPModel = {
  /** The main network (networkCIDR), parsed. */
  readonly mainNetwork?: { readonly family: IPFamily; readonly prefixLength: number };
  /** The main pool (networkCIDR, rangeBegin, rangeEnd), when set. */
  readonly main?: DHCPPool;
  readonly extraRanges: readonly ExtraDHCPPool[];
  /** Address families of every pool. */
  readonly families: ReadonlySet<IPFamily>;
  readonly gatewayAddress?: string;
  readonly dnsAddress?: string;
  readonly serveDNS: boolean;
  readonly hosts: readonly string[];
  readonly ignore: readonly string[];
};

export type IngressModel = {
  /** The host name, when set (it also turns on the Ingress TLS section and the external URLs). */
  readonly host?: string;
  readonly className?: string;
  /** Sorted. */
  readonly annotations: Readonly<Record<string, string>>;
};

export type NetworkingModel = {
  readonly apiPort: number;
  readonly imageServerPort: number;
  readonly imageServerTLSPort: number;
  readonly rpcPort: number;
  readonly prometheusExporterPort: number;
  readonly ipxeTLSPort: number;
  /** Whether the pod shares the node's network (the default). */
  readonly hostNetwork: boolean;
  readonly bindInterface: boolean;
  readonly ipAddress?: string;
  readonly interface?: string;
  readonly macAddresses: readonly string[];
  readonly externalIP?: string;
  readonly externalCallbackURL?: string;
  readonly imageServerExternalURL?: string;
  readonly ingress?: IngressModel;
  readonly dhcp?: DHCPModel;
};

/** A CA bundle reference, with the deprecated name-only fields already mapped to their kinds. */
export type CAReference = { readonly name: string; readonly kind: 'Secret' | 'ConfigMap'; readonly path: string };

/** A cert-manager issuer. */
export type IssuerReference = { readonly name: string; readonly kind: string; readonly group: string };

export type TLSModel = {
  /** The API (and virtual media) is served over TLS: a certificate is named or generated. */
  readonly enabled: boolean;
  /** The user's Secret with the API (and virtual media) certificate. */
  readonly certificateName?: string;
  /**
   * With generated or cert-manager certificates, spec.tls.certificateName names the Secret the operator
   * publishes the CA into (`tls.crt`, `ca.crt`), for clients that read only the spec (baremetal-operator).
   */
  readonly trustSecretName?: string;
  /** Certificates issued from a private CA the operator keeps (spec.tls.generateCertificate). */
  readonly generate: boolean;
  /** Certificates issued by cert-manager (spec.tls.issuerRef), with the defaults filled in. */
  readonly issuerRef?: IssuerReference;
  /** Virtual media served over TLS: TLS on, and disableVirtualMediaTLS not set. */
  readonly virtualMedia: boolean;
  readonly insecureRPC: boolean;
  /** iPXE over TLS: firmware built with the CA, scripts and images over HTTPS (validation ensures a certificate). */
  readonly ipxe: boolean;
  /** spec.tls.profile as given: without it, the image's own TLS defaults. */
  readonly profile?: TLSProfile;
  readonly bmcCA?: CAReference;
  readonly trustedCA?: CAReference & { readonly key?: string };
};

/** No database (SQLite), an external MariaDB, or a managed IronicDatabase of the same namespace. */
export type DatabaseModel =
  | { readonly kind: 'none' }
  | { readonly kind: 'external'; readonly host: string; readonly name: string; readonly credentialsName: string; readonly tlsCertificateName?: string }
  | { readonly kind: 'managed'; readonly name: string };

export type AgentImage = { readonly kernel: string; readonly initramfs: string };

export type RamdiskModel = {
  /** Whether the IPA downloader init container runs (never with an image cache). */
  readonly downloader: boolean;
  /** The IronicImageCache of the same namespace that serves IPA, when one is named. */
  readonly imageCacheName?: string;
  readonly branch?: string;
  readonly extraKernelParams?: string;
  readonly sshKey?: string;
  /** Agent images without an architecture. */
  readonly defaultImages?: AgentImage;
  /** Agent images per architecture, in spec order. */
  readonly imagesByArch: readonly (AgentImage & { readonly architecture: string })[];
  /** Whether any agent image replaces the downloaded ramdisk. */
  readonly customImages: boolean;
  /** Whether the pod's httpd serves the IPA kernel: downloaded into /shared, and not replaced by agent images. */
  readonly servesKernel: boolean;
};

/** One ironic.conf option (entries without a name or a value are dropped; an empty group is DEFAULT). */
export type ConfigOption = { readonly group: string; readonly name: string; readonly value: string };

export type ExporterModel = {
  readonly bindAddress: string;
  /** Seconds between sensor data collections, never below MIN_SENSOR_INTERVAL. */
  readonly sensorCollectionInterval: number;
  /** The interval of the spec when it was below the minimum and raised to it (for the Ready message). */
  readonly sensorCollectionIntervalRaisedFrom?: number;
  readonly serviceMonitor: boolean;
};

export type ProviderNetworkModel = {
  readonly type: string;
  readonly mode: 'access' | 'trunk' | 'hybrid';
  readonly nativeVLAN: number;
  readonly allowedVLANs: readonly string[];
  readonly mtu?: number;
};

export type NetworkingServiceModel = {
  readonly providerNetworks: readonly ProviderNetworkModel[];
  readonly switchConfigSecretName?: string;
  readonly switchCredentialsSecretName?: string;
};

/** The user's pod overrides, checked against the Kubernetes schemas and typed. */
export type PodOverrides = {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly containers: readonly IContainer[];
  readonly initContainers: readonly IContainer[];
  readonly volumes: readonly IVolume[];
  readonly httpdLivenessProbe?: IProbe;
  readonly httpdReadinessProbe?: IProbe;
};

export type SchedulingModel = {
  /** Sorted. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly IToleration[];
  readonly priorityClassName?: string;
  /** spec.imagePullSecrets, in order: every pod of the Ironic gets them. */
  readonly imagePullSecrets: readonly string[];
};

/**
 * The images spec.images names (non-empty), by field (`ironic`, `ipxeBuilder`, ...); the operator's
 * defaults fill the rest. spec.images.deployRamdiskBranch is a branch, not an image: the ramdisk model has it.
 */
export type ImageOverrides = Readonly<Record<string, string>>;

/** The compute resources of every container an Ironic runs: the defaults with spec.resources applied, canonical. */
export type ContainerResourcesModel = Readonly<Record<IronicContainerName, IResourceRequirements>>;

/** spec.proxy, with noProxy split into entries (trimmed, without empty ones). */
export type ProxyModel = { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy: readonly string[] };

/** Conductor liveness and shutdown, in seconds (spec.conductor, defaulted). */
export type ConductorModel = { readonly heartbeatInterval: number; readonly heartbeatTimeout: number; readonly shutdownTimeout: number };

/** spec.logging, defaulted. */
export type LoggingModel = { readonly debug: boolean; readonly deployLogs: DeployLogs };

export type IronicModel = {
  /**
   * The spec as validated. A field only one feature reads (a sidecar's switch, the Secret it reads) is read
   * here, typed by the schema, by that feature; what several parts read has its own field below.
   */
  readonly spec: IronicSpec;
  readonly version: string;
  /** Every object the spec names (customize asks for these). */
  readonly references: readonly ObjectReference[];
  readonly highAvailability: boolean;
  readonly networking: NetworkingModel;
  readonly tls: TLSModel;
  readonly database: DatabaseModel;
  /** The user's credentials Secret; undefined means generated. */
  readonly apiCredentialsName?: string;
  readonly images: ImageOverrides;
  readonly ramdisk: RamdiskModel;
  readonly inspection: { readonly collectors: readonly string[]; readonly vlanInterfaces: readonly string[] };
  readonly extraConfig: readonly ConfigOption[];
  readonly conductor: ConductorModel;
  readonly logging: LoggingModel;
  readonly exporter?: ExporterModel;
  readonly networkingService?: NetworkingServiceModel;
  readonly scheduling: SchedulingModel;
  readonly overrides: PodOverrides;
  readonly resources: ContainerResourcesModel;
  /** Only when spec.proxy sets anything. */
  readonly proxy?: ProxyModel;
};
