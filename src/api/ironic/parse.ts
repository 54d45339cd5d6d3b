/**
 * `parseIronic`: an Ironic spec in, every problem or the typed, fully defaulted model out. Validation
 * (validate-ironic.ts, validate-overrides.ts) decides what is refused; this module only builds the model
 * of a spec that passed, so nothing downstream re-defaults or re-parses.
 */
import { jsonMemo, type JsonMemo } from '../shared/memo.js';
import { pullSecretNames } from '../shared/pull-secrets.js';
import { Container } from 'kubernetes-models/v1/Container';
import { Probe } from 'kubernetes-models/v1/Probe';
import { Toleration } from 'kubernetes-models/v1/Toleration';
import { Volume } from 'kubernetes-models/v1/Volume';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { canonical, canonicalResources, given, listEntries, optionalFields, positiveOr, resourcesOverDefaults, sortedMap } from '../shared/fields.js';
import {
  CA_FIELDS,
  DEFAULT_PROVIDER_NETWORK_MODE,
  DEFAULT_EXPORTER_BIND_ADDRESS,
  DEFAULT_PORTS,
  DEFAULT_SENSOR_INTERVAL,
  DEFAULT_DEPLOY_LOGS,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_SHUTDOWN_TIMEOUT,
  MIN_SENSOR_INTERVAL,
} from '../shared/constants.js';
import { DEFAULT_CONTAINER_REQUESTS, IRONIC_CONTAINER_NAMES, IronicSpec, type DHCP } from './schema.js';
import type {
  CAReference,
  ContainerResourcesModel,
  DHCPModel,
  DHCPPool,
  ExporterModel,
  ExtraDHCPPool,
  ImageOverrides,
  IronicModel,
  NetworkingModel,
  PodOverrides,
  ProxyModel,
  RamdiskModel,
  TLSModel,
} from './model.js';
import type { Parsed } from '../shared/model.js';
import { parseCIDR, prefixToNetmask, type IPFamily } from '../shared/net.js';
import { compiledCheck } from '../shared/problems.js';
import { ironicSpecReferences } from './references.js';
import { validateIronic } from './validate.js';
import { validateOverrides } from './validate-overrides.js';
import { DEFAULT_VERSION } from '../shared/version.js';

/** A pool's network in dnsmasq's terms; undefined when the CIDR does not parse (validation reports it). */
const pool = (cidr: string, begin: string, end: string): DHCPPool | undefined => {
  const parsed = parseCIDR(cidr);
  if (parsed === undefined) return undefined;
  const mask = parsed.family === 'ipv4' ? prefixToNetmask(parsed.prefixLength, 'ipv4') : String(parsed.prefixLength);
  return mask === undefined ? undefined : { begin, end, family: parsed.family, prefixLength: parsed.prefixLength, mask };
};

const mainPool = (dhcp: DHCP): DHCPPool | undefined =>
  dhcp.networkCIDR !== undefined && dhcp.rangeBegin !== undefined && dhcp.rangeEnd !== undefined
    ? pool(dhcp.networkCIDR, dhcp.rangeBegin, dhcp.rangeEnd)
    : undefined;

const dhcpModel = (dhcp: DHCP): DHCPModel => {
  const main = mainPool(dhcp);
  const extraRanges = (dhcp.extraRanges ?? []).flatMap((r): ExtraDHCPPool[] => {
    const parsed = pool(r.networkCIDR, r.rangeBegin, r.rangeEnd);
    const gateway = given(r.gatewayAddress);
    return parsed === undefined ? [] : [{ ...parsed, ...(gateway !== undefined && { gatewayAddress: gateway }) }];
  });
  // The main network counts even without a complete range (validation requires one).
  const network = main ?? (dhcp.networkCIDR !== undefined ? parseCIDR(dhcp.networkCIDR) : undefined);
  const mainNetwork = network !== undefined ? { family: network.family, prefixLength: network.prefixLength } : undefined;
  const families = new Set<IPFamily>([...(mainNetwork !== undefined ? [mainNetwork.family] : []), ...extraRanges.map((r) => r.family)]);
  const gatewayAddress = given(dhcp.gatewayAddress);
  const dnsAddress = dhcp.dnsAddress;
  return {
    ...(mainNetwork && { mainNetwork }),
    ...(main && { main }),
    extraRanges,
    families,
    ...(gatewayAddress !== undefined && { gatewayAddress }),
    ...(dnsAddress !== undefined && { dnsAddress }),
    serveDNS: dhcp.serveDNS === true,
    hosts: dhcp.hosts ?? [],
    ignore: dhcp.ignore ?? [],
  };
};

const networkingModel = (spec: IronicSpec): NetworkingModel => {
  const n = spec.networking ?? {};
  const ingress = n.ingress;
  const host = given(ingress?.host);
  const className = given(ingress?.ingressClassName);
  return {
    apiPort: positiveOr(n.apiPort, DEFAULT_PORTS.apiPort),
    imageServerPort: positiveOr(n.imageServerPort, DEFAULT_PORTS.imageServerPort),
    imageServerTLSPort: positiveOr(n.imageServerTLSPort, DEFAULT_PORTS.imageServerTLSPort),
    rpcPort: positiveOr(n.rpcPort, DEFAULT_PORTS.rpcPort),
    prometheusExporterPort: positiveOr(n.prometheusExporterPort, DEFAULT_PORTS.prometheusExporterPort),
    ipxeTLSPort: positiveOr(n.ipxeTLSPort, DEFAULT_PORTS.ipxeTLSPort),
    hostNetwork: n.disableHostNetwork !== true,
    bindInterface: n.bindInterface === true,
    macAddresses: n.macAddresses ?? [],
    ...optionalFields({
      ipAddress: n.ipAddress,
      interface: n.interface,
      externalIP: n.externalIP,
      externalCallbackURL: n.externalCallbackURL,
      imageServerExternalURL: n.imageServerExternalURL,
    }),
    ...(ingress && {
      ingress: { ...(host !== undefined && { host }), ...(className !== undefined && { className }), annotations: sortedMap(ingress.annotations) },
    }),
    ...(n.dhcp && { dhcp: dhcpModel(n.dhcp) }),
  };
};

/** A CA reference: the `{name, kind}` field, or the deprecated name field with its fixed kind. */
const caReference = (spec: IronicSpec, which: 'bmcCA' | 'trustedCA'): CAReference | undefined => {
  const field = CA_FIELDS.find((f) => f.ref === which);
  const tls = spec.tls;
  const reference = tls?.[which];
  if (reference !== undefined) return { name: reference.name, kind: reference.kind, path: `spec.tls.${which}` };
  const legacy = field !== undefined ? given(tls?.[field.legacy]) : undefined;
  return field !== undefined && legacy !== undefined ? { name: legacy, kind: field.legacyKind, path: `spec.tls.${field.legacy}` } : undefined;
};

const tlsModel = (spec: IronicSpec): TLSModel => {
  const named = given(spec.tls?.certificateName);
  const bmcCA = caReference(spec, 'bmcCA');
  const trusted = caReference(spec, 'trustedCA');
  const key = spec.tls?.trustedCA !== undefined ? given(spec.tls.trustedCA.key) : undefined;
  const generate = spec.tls?.generateCertificate === true;
  const issuer = spec.tls?.issuerRef;
  const issuerRef =
    issuer !== undefined ? { name: issuer.name, kind: given(issuer.kind) ?? 'Issuer', group: given(issuer.group) ?? 'cert-manager.io' } : undefined;
  // With a certificate source of the operator's, the name is where it publishes the CA, not a certificate.
  const published = generate || issuerRef !== undefined;
  const certificateName = published ? undefined : named;
  const trustSecretName = published ? named : undefined;
  const enabled = certificateName !== undefined || published;
  return {
    enabled,
    ...(certificateName !== undefined && { certificateName }),
    ...(trustSecretName !== undefined && { trustSecretName }),
    generate,
    ...(issuerRef && { issuerRef }),
    virtualMedia: enabled && spec.tls?.disableVirtualMediaTLS !== true,
    insecureRPC: spec.tls?.insecureRPC === true,
    ipxe: enabled && spec.tls?.ipxe === true,
    ...(spec.tls?.profile !== undefined && { profile: spec.tls.profile }),
    ...(bmcCA && { bmcCA }),
    ...(trusted && { trustedCA: { ...trusted, ...(key !== undefined && { key }) } }),
  };
};

const databaseModel = (spec: IronicSpec): IronicModel['database'] => {
  const external = spec.database;
  if (external !== undefined) {
    const tls = given(external.tlsCertificateName);
    return {
      kind: 'external',
      host: external.host,
      name: external.name,
      credentialsName: external.credentialsName,
      ...(tls !== undefined && { tlsCertificateName: tls }),
    };
  }
  const managed = given(spec.databaseName);
  return managed !== undefined ? { kind: 'managed', name: managed } : { kind: 'none' };
};

const ramdiskModel = (spec: IronicSpec): RamdiskModel => {
  const images = spec.overrides?.agentImages ?? [];
  const byDefault = images.find((i) => (i.architecture ?? '') === '');
  const imageCacheName = given(spec.imageCacheName);
  const downloader = spec.deployRamdisk?.disableDownloader !== true && imageCacheName === undefined;
  return {
    downloader,
    ...optionalFields({
      imageCacheName,
      branch: spec.images?.deployRamdiskBranch,
      extraKernelParams: spec.deployRamdisk?.extraKernelParams,
      sshKey: spec.deployRamdisk?.sshKey,
    }),
    ...(byDefault && { defaultImages: { kernel: byDefault.kernel, initramfs: byDefault.initramfs } }),
    imagesByArch: images.flatMap((i) =>
      i.architecture !== undefined && i.architecture !== '' ? [{ architecture: i.architecture, kernel: i.kernel, initramfs: i.initramfs }] : [],
    ),
    customImages: images.length > 0,
    servesKernel: downloader && images.length === 0,
  };
};

/** A type guard from a kubernetes-models validator: the object conforms to the upstream schema. */
const conforms =
  <T>(validate: (data: T) => void) =>
  (value: unknown): value is T => {
    if (typeof value !== 'object' || value === null) return false;
    try {
      validate(value as T);
      return true;
    } catch {
      return false;
    }
  };

const isContainer = conforms<IContainer>((d) => new Container(d).validate());
const isVolume = conforms<IVolume>((d) => new Volume(d).validate());
const isProbe = conforms<IProbe>((d) => new Probe(d).validate());
const isToleration = conforms<IToleration>((d) => new Toleration(d).validate());

/**
 * Quantities in the canonical text the API server stores (`1024Mi` is stored as `1Gi`): Metacontroller
 * compares desired and observed objects as they are, so any other text would be sent again on every sync.
 */
const canonicalContainer = (container: IContainer): IContainer =>
  container.resources ? { ...container, resources: canonicalResources(container.resources) } : container;

const canonicalVolume = (volume: IVolume): IVolume => {
  const sizeLimit = volume.emptyDir?.sizeLimit;
  return sizeLimit !== undefined ? { ...volume, emptyDir: { ...volume.emptyDir, sizeLimit: canonical(sizeLimit) } } : volume;
};

/** The overrides, typed. Validation refused any that does not conform, so nothing is dropped here. */
const podOverrides = (spec: IronicSpec): PodOverrides => {
  const o = spec.overrides;
  const liveness: unknown = o?.httpdLivenessProbe;
  const readiness: unknown = o?.httpdReadinessProbe;
  const containers: unknown[] = o?.containers ?? [];
  const initContainers: unknown[] = o?.initContainers ?? [];
  const volumes: unknown[] = o?.volumes ?? [];
  return {
    labels: sortedMap(o?.labels),
    annotations: sortedMap(o?.annotations),
    containers: containers.filter(isContainer).map(canonicalContainer),
    initContainers: initContainers.filter(isContainer).map(canonicalContainer),
    volumes: volumes.filter(isVolume).map(canonicalVolume),
    ...(isProbe(liveness) && { httpdLivenessProbe: liveness }),
    ...(isProbe(readiness) && { httpdReadinessProbe: readiness }),
  };
};

const resourcesModel = (spec: IronicSpec): ContainerResourcesModel => {
  const user = spec.resources ?? {};
  return Object.fromEntries(
    IRONIC_CONTAINER_NAMES.map((name) => [name, resourcesOverDefaults(DEFAULT_CONTAINER_REQUESTS[name], user[name])]),
  ) as ContainerResourcesModel;
};

const proxyModel = (spec: IronicSpec): ProxyModel | undefined => {
  const p = spec.proxy;
  const fields = optionalFields({ httpProxy: given(p?.httpProxy), httpsProxy: given(p?.httpsProxy) });
  const noProxy = listEntries(p?.noProxy);
  return Object.keys(fields).length > 0 || noProxy.length > 0 ? { ...fields, noProxy } : undefined;
};

/** The typed model of a valid spec. */
const ironicModel = (spec: IronicSpec): IronicModel => {
  const exporter = spec.prometheusExporter;
  const service = spec.networkingService;
  const tolerations: unknown[] = spec.overrides?.tolerations ?? [];
  return {
    spec,
    version: given(spec.version) ?? DEFAULT_VERSION,
    references: ironicSpecReferences(spec),
    highAvailability: spec.highAvailability === true,
    networking: networkingModel(spec),
    tls: tlsModel(spec),
    database: databaseModel(spec),
    ...optionalFields({ apiCredentialsName: given(spec.apiCredentialsName) }),
    images: imageOverrides(spec),
    ramdisk: ramdiskModel(spec),
    inspection: { collectors: spec.inspection?.collectors ?? [], vlanInterfaces: spec.inspection?.vlanInterfaces ?? [] },
    extraConfig: (spec.extraConfig ?? []).flatMap((c) =>
      given(c.name) !== undefined && given(c.value) !== undefined ? [{ group: given(c.group) ?? 'DEFAULT', name: c.name ?? '', value: c.value ?? '' }] : [],
    ),
    conductor: {
      heartbeatInterval: spec.conductor?.heartbeatInterval ?? DEFAULT_HEARTBEAT_INTERVAL,
      heartbeatTimeout: spec.conductor?.heartbeatTimeout ?? DEFAULT_HEARTBEAT_TIMEOUT,
      shutdownTimeout: spec.conductor?.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT,
    },
    logging: { debug: spec.logging?.debug === true, deployLogs: spec.logging?.deployLogs ?? DEFAULT_DEPLOY_LOGS },
    ...(exporter?.enabled === true && {
      exporter: {
        bindAddress: given(exporter.bindAddress) ?? DEFAULT_EXPORTER_BIND_ADDRESS,
        ...sensorInterval(exporter.sensorCollectionInterval),
        serviceMonitor: exporter.disableServiceMonitor !== true,
      },
    }),
    ...(service?.enabled === true && {
      networkingService: {
        providerNetworks: (service.providerNetworks ?? []).map((p) => ({
          type: p.type,
          mode: p.mode ?? DEFAULT_PROVIDER_NETWORK_MODE,
          nativeVLAN: p.nativeVLAN,
          allowedVLANs: p.allowedVLANs ?? [],
          ...(p.mtu !== undefined && p.mtu > 0 && { mtu: p.mtu }),
        })),
        ...optionalFields({
          switchConfigSecretName: given(service.switchConfigSecretName),
          switchCredentialsSecretName: given(service.switchCredentialsSecretName),
        }),
      },
    }),
    scheduling: {
      nodeSelector: sortedMap(spec.nodeSelector),
      tolerations: tolerations.filter(isToleration),
      ...optionalFields({ priorityClassName: given(spec.priorityClassName) }),
      imagePullSecrets: pullSecretNames(spec.imagePullSecrets),
    },
    overrides: podOverrides(spec),
    resources: resourcesModel(spec),
    ...optionalFields({ proxy: proxyModel(spec) }),
  };
};

/**
 * The sensor interval to run: unset or not positive (upstream's zero value) is the default; below the
 * minimum is raised to it and remembered for the Ready message. Never refused: the former CRD default was 60,
 * so stored Ironics hold values the CRD now refuses only when they change (validation ratcheting).
 */
const sensorInterval = (given: number | undefined): Pick<ExporterModel, 'sensorCollectionInterval' | 'sensorCollectionIntervalRaisedFrom'> => {
  const interval = positiveOr(given, DEFAULT_SENSOR_INTERVAL);
  return interval < MIN_SENSOR_INTERVAL
    ? { sensorCollectionInterval: MIN_SENSOR_INTERVAL, sensorCollectionIntervalRaisedFrom: interval }
    : { sensorCollectionInterval: interval };
};

/** The fields of spec.images that are not images. */
const NOT_IMAGES: ReadonlySet<string> = new Set(['deployRamdiskBranch']);

/** Every image spec.images names, by field, sorted: each feature reads the field of its own image. */
const imageOverrides = (spec: IronicSpec): ImageOverrides =>
  Object.fromEntries(
    Object.entries(spec.images ?? {})
      .flatMap(([field, image]) => {
        const named = NOT_IMAGES.has(field) || typeof image !== 'string' ? undefined : given(image);
        return named !== undefined ? [[field, named] as const] : [];
      })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

const isIronicSpec = (value: unknown): value is IronicSpec => compiledCheck(IronicSpec).Check(value);

/** Parses a spec there and then (see parseIronic). */
const parseIronicNow = (spec: unknown, old?: unknown): Parsed<IronicModel> => {
  const problems = [...validateIronic(spec, old), ...validateOverrides(spec)];
  if (problems.length > 0) return { ok: false, problems };
  if (!isIronicSpec(spec))
    return { ok: false, problems: [{ path: 'spec', message: 'the spec does not match the Ironic API: compare it with `kubectl explain ironic.spec`' }] };
  return { ok: true, model: ironicModel(spec) };
};

/** A few Ironics per namespace watched, each with one spec at a time (two during a change). */
const KEPT_SPECS = 64;
/** Larger specs are parsed every time. */
const MAX_KEPT_SPEC_LENGTH = 256 * 1024;

/**
 * Specs already parsed (without an old spec), by their exact JSON: every sync of a parent parses the same
 * spec, and the validators (kubernetes-models' among them, for the user's overrides) cost a good part of a
 * sync. The answers are frozen, and are those of parsing there and then.
 */
export const parsedIronicSpecs: JsonMemo<Parsed<IronicModel>> = jsonMemo(KEPT_SPECS, MAX_KEPT_SPEC_LENGTH, (spec) => parseIronicNow(spec));

/**
 * Parses an Ironic spec (`old`: the previous spec on update, for the rules about changes). Returns every
 * problem the validators find, or the model. Pure and total: never throws.
 */
export const parseIronic = (spec: unknown, old?: unknown): Parsed<IronicModel> => (old === undefined ? parsedIronicSpecs.get(spec) : parseIronicNow(spec, old));
